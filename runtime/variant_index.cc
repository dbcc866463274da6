#include "runtime/variant_index.h"

#include <algorithm>

namespace halnorm::internal {

const VariantIndex& VariantIndex::Get() {
  static const VariantIndex* index = new VariantIndex();
  return *index;
}

// Fused residual and native params never come together: 3 kinds per dtype.
int VariantIndex::KindSlot(const VariantKind& kind) {
  return ((static_cast<int>(kind.op) * kDirectionCount + static_cast<int>(kind.direction)) *
              kDtypeCount +
          static_cast<int>(kind.dtype)) *
             kKindsPerDtype +
         (kind.fused_residual ? 1 : kind.native_params ? 2 : 0);
}

VariantIndex::VariantIndex() {
  for (const Variant& v : AllVariants()) {
    if (TargetIndex(v.target) < 0) targets_.push_back(v.target);
    config_count_ = std::max(config_count_, v.config_index + 1);
  }
  constexpr int kKindCount = kOpCount * kDirectionCount * kDtypeCount * kKindsPerDtype;
  variants_.assign(kKindCount * target_count() * config_count_, nullptr);
  dispatch_target_.assign(kKindCount, -1);
  std::vector<const Variant*> widest(kKindCount, nullptr);
  const Isa allowed = MaxDispatchIsa();
  for (const Variant& v : AllVariants()) {
    const VariantKind kind{v.op, v.direction, v.dtype, v.fused_residual, v.native_params};
    const int slot = KindSlot(kind);
    const int target = TargetIndex(v.target);
    variants_[(slot * target_count() + target) * config_count_ + v.config_index] = &v;
    if (v.device == Device::kCpu && v.config_index == 0 && v.isa <= allowed &&
        (widest[slot] == nullptr || v.isa > widest[slot]->isa)) {
      widest[slot] = &v;
      dispatch_target_[slot] = target;
    }
  }
}

int VariantIndex::TargetIndex(absl::string_view name) const {
  for (int t = 0; t < target_count(); t++) {
    if (name == targets_[t]) return t;
  }
  return -1;
}

const Variant* VariantIndex::Find(const VariantKind& kind, int target, int config) const {
  if (target < 0 || target >= target_count() || config < 0 || config >= config_count_) {
    return nullptr;
  }
  return variants_[(KindSlot(kind) * target_count() + target) * config_count_ + config];
}

std::vector<const Variant*> VariantIndex::Configs(const VariantKind& kind, int target) const {
  std::vector<const Variant*> out;
  for (int config = 0; config < config_count_; config++) {
    if (const Variant* v = Find(kind, target, config)) out.push_back(v);
  }
  return out;
}

}  // namespace halnorm::internal
