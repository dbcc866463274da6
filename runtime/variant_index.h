// The registry indexed for dispatch, built once: a call finds its variant
// by arithmetic on (op, direction, dtype, residual, native params, target,
// config), never by scanning the registry or comparing strings.
#ifndef HALNORM_RUNTIME_VARIANT_INDEX_H_
#define HALNORM_RUNTIME_VARIANT_INDEX_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// How many values Op, Direction and halnorm_dtype have.
inline constexpr int kOpCount = 3;
inline constexpr int kDirectionCount = 2;
inline constexpr int kDtypeCount = 3;

// What a variant computes; the target and config say how.
struct VariantKind {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  bool fused_residual;
  bool native_params = false;
};

class VariantIndex {
 public:
  // The index of AllVariants(), built on first use.
  static const VariantIndex& Get();

  // Targets are numbered in the order the registry first names them.
  int target_count() const { return static_cast<int>(targets_.size()); }
  const char* target_name(int target) const { return targets_[target]; }
  // -1 when this library has no such target.
  int TargetIndex(absl::string_view name) const;

  // The variant of `kind` with `config` of `target`, or nullptr.
  const Variant* Find(const VariantKind& kind, int target, int config) const;
  // Every config of `kind` that `target` has, in config order (none for -1).
  std::vector<const Variant*> Configs(const VariantKind& kind, int target) const;

  // The CPU target dispatch uses for `kind`: the widest ISA it may use
  // (MaxDispatchIsa), the first such target in registry order; -1 if none
  // runs here. Its config 0 (the default) always exists.
  int DispatchTarget(const VariantKind& kind) const { return dispatch_target_[KindSlot(kind)]; }

 private:
  VariantIndex();
  static constexpr int kKindsPerDtype = 3;  // plain, fused residual, native params
  static int KindSlot(const VariantKind& kind);

  std::vector<const char*> targets_;
  int config_count_ = 0;                  // 1 + the largest config index
  std::vector<const Variant*> variants_;  // [kind][target][config]
  std::vector<int> dispatch_target_;      // [kind]
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_VARIANT_INDEX_H_
