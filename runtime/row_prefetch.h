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
// - Zen 2 (AMD EPYC VM, family 23 model 49, x86_avx2 variants): it lost
//   on nearly every call, as on Intel. Backward, configs c0 / c2, 1 thread,
//   us, with -> without (kernel_ab, 3 rounds): LayerNorm f16 512x2048
//   1816 / 2329 -> 529 / 524, 4096x4096 23170 / 29649 -> 14601 / 15521,
//   1024x16384 20488 / 43299 -> 16019 / 18887; LayerNorm bf16 512x768
//   617 / 650 -> 315 / 312; RMSNorm f16 4096x4096 15420 / 13426 -> 11016 /
//   11001; LayerNorm f32 4096x4096 (streamed) 25746 / 33704 -> 21854 /
//   21921. Over 48 16-bit and 24 f32 (shape, config) pairs of 16-8192
//   rows and N = 768-16384, the prefetch took a median 1.67x / 1.53x as
//   long; it gained on 6 pairs, at most 1.14x (LayerNorm bf16 16x8192 and
//   1024x16384 c0, 4096x4096 c2).
//
// So on x86 only AMD CPUs of family 0x19 and later (Zen 3 and Zen 4; Zen 4
// measured, Zen 3 and Zen 5 not) prefetch: 16-bit always, f32 as above.
// Intel and older AMD CPUs never. Other architectures (not measured) as
// Zen 4. HALNORM_ROW_PREFETCH=always|never overrides.
#ifndef HALNORM_RUNTIME_ROW_PREFETCH_H_
#define HALNORM_RUNTIME_ROW_PREFETCH_H_

#include "runtime/dispatch.h"

namespace halnorm::internal {

// For a CPU row-norm backward; `streams`: the call's streaming-stores decision.
bool PrefetchRows(const KernelRequest& request, bool streams);

// The auto rule, on a CPU where prefetching rows gains or on one where it
// loses (tests reach both).
bool PrefetchRowsByDefault(const KernelRequest& request, bool streams, bool cpu_gains);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_PREFETCH_H_
