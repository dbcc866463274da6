// Whether a CPU row-norm backward prefetches the rows after the ones it is
// on (dy and x) as it computes dx: the kernels' prefetch_rows input. The
// kernels honour it on rows of 512+ elements, a whole number of vectors
// (schedules/row_norm_cpu.cc). Whether it pays depends on the CPU:
//
// - Zen 4 (AMD EPYC VM; figures in schedules/row_norm_cpu.cc): 16-bit
//   gained 6-13% on rows of 2048+ and up to 1.3x (LayerNorm) on rows of
//   640-1024; f32 gained only on calls too large to stay cached
//   (streaming_stores.h) with rows of 2048 to 4096, and lost otherwise.
// - Intel Xeon (family 6, model 207 VM): it lost on every call, 16-bit and
//   f32, cached and streamed. LayerNorm backward, GB/s, without -> with
//   (medians of 3 interleaved runs, 1 thread): bf16 512x2048 10.3 -> 4.1,
//   4096x4096 6.5 -> 4.2; f16 4096x4096 6.4 -> 4.1; f32 4096x4096 8.8 ->
//   4.1, 16384x2048 6.9 -> 4.0; RMSNorm bf16 512x2048 9.8 -> 5.5; 2 threads
//   bf16 4096x4096 9.2 -> 7.3, f32 12.9 -> 7.0.
//
// So: Intel CPUs never; others (Zen 4 measured, the rest as before) 16-bit
// always and f32 as above. HALNORM_ROW_PREFETCH=always|never overrides.
#ifndef HALNORM_RUNTIME_ROW_PREFETCH_H_
#define HALNORM_RUNTIME_ROW_PREFETCH_H_

#include "runtime/dispatch.h"

namespace halnorm::internal {

// For a CPU row-norm backward; `streams`: the call's streaming-stores decision.
bool PrefetchRows(const KernelRequest& request, bool streams);

// The auto rule, for a CPU by vendor (tests reach both).
bool PrefetchRowsByDefault(const KernelRequest& request, bool streams, bool intel_cpu);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_PREFETCH_H_
