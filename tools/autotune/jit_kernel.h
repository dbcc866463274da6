// A kernel compiled in-process by libHalide's JIT from one of our generators,
// wrapped as a Variant so that the runtime can run it exactly like a
// compiled-in one (forced variant: same argument binding, same runtime path).
#ifndef HALNORM_TOOLS_AUTOTUNE_JIT_KERNEL_H_
#define HALNORM_TOOLS_AUTOTUNE_JIT_KERNEL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "absl/status/statusor.h"
#include "runtime/variant_registry.h"

namespace halnorm::autotune {

// What to compile: the generator, its GeneratorParams (algorithm and
// schedule knobs), the Halide target, and optionally one of Halide's
// autoschedulers instead of our hand-written schedule.
struct KernelSpec {
  std::string generator;                     // "row_norm_forward", ...
  std::map<std::string, std::string> params;  // "kind" -> "layer", "vector_width" -> "8", ...
  std::string halide_target;                 // "x86-64-linux-sse41-avx-avx2-fma-f16c"
  std::string autoscheduler;                 // "" (hand schedule), "Adams2019", ...
  internal::Variant fits{};  // op, direction, dtype, residual, target, isa to claim
};

class JitKernel {
 public:
  // Compile errors (a knob combination the schedule rejects, an
  // autoscheduler that fails on the pipeline) come back as a status.
  static absl::StatusOr<std::unique_ptr<JitKernel>> Compile(const KernelSpec& spec);

  const internal::Variant& variant() const { return variant_; }

 private:
  JitKernel() = default;

  Halide::Internal::JITModule module_;
  std::string name_, config_;
  // The argument list the runtime binds by name, built from the lowered
  // function (JIT modules do not export Halide's metadata function).
  std::vector<std::string> arg_names_;
  std::vector<halide_filter_argument_t> args_;
  halide_filter_metadata_t metadata_{};
  internal::Variant variant_{};
};

// The message of the last JIT kernel failure on this thread ("" if none),
// clearing it.
std::string TakeLastJitError();

// Loads Halide's autoscheduler plugins from the libHalide install (once).
absl::Status LoadAutoschedulers();

// The plugins Halide 14 ships, by the name Pipeline::auto_schedule knows.
inline const char* const kAutoschedulers[] = {"Adams2019", "Mullapudi2016", "Li2018"};

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_JIT_KERNEL_H_
