// The kernel arguments the runtime binds, and where each sits in a kernel's
// argument list. Generators name their arguments; the slots are resolved
// from a kernel's metadata once, when the variant registry is built, so a
// call binds by index instead of comparing names (at decode shapes that
// comparison was a visible share of the call).
#ifndef HALNORM_RUNTIME_KERNEL_ARGS_H_
#define HALNORM_RUNTIME_KERNEL_ARGS_H_

#include <array>
#include <cstdint>

#include "HalideRuntime.h"

namespace halnorm::internal {

// Every argument name any generator declares (generators/*_generator.cc).
enum class KernelArg : uint8_t {
  kX,
  kY,
  kDy,
  kDx,
  kResidual,
  kResidualOut,
  kDresidual,
  kMean,
  kRstd,
  kWeight,
  kBias,
  kHasWeight,
  kHasBias,
  kHasDresidual,
  kResidualAlpha,
  kEps,
  kRowsPerChunk,
  kDweightPartial,  // channel-norm and GPU row-norm backwards: dweight's partial sums
  kDbiasPartial,    // and dbias's
  kPartials,        // CPU row-norm backwards: both, as (n, slot, line, part)
  kWeightOffset,    // GPU kernels: added to the weight in the kernel
  kPrefetchRows,    // CPU backward kernels: prefetch rows ahead (row_prefetch.h)
  kTaskRows,        // CPU forward kernels: the most rows a parallel task takes (forward_tasks.h)
};
inline constexpr int kKernelArgCount = 23;

// The generator's name for `arg` ("residual_out").
const char* KernelArgName(KernelArg arg);

// slot[arg]: the argument's index in the kernel's argv, or -1 when the
// kernel does not take it (RMSNorm has no bias).
using ArgumentSlots = std::array<int8_t, kKernelArgCount>;
ArgumentSlots SlotsOf(const halide_filter_metadata_t& metadata);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_ARGS_H_
