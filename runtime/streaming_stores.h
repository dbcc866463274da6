// Whether a call writes its large outputs (y, residual_out, dx) with
// non-temporal stores: through the variant's streaming twin, built from the
// same kernel (tools/bazel/streaming_stores.py).
//
// Plain stores read each output line before writing it (write-allocate), so
// a forward call on DRAM-sized tensors moves 1.5x its logical bytes. Once a
// call's tensors are too large to stay cached anyway, streaming saves that.
#ifndef HALNORM_RUNTIME_STREAMING_STORES_H_
#define HALNORM_RUNTIME_STREAMING_STORES_H_

#include <cstdint>

#include "runtime/dispatch.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Bytes of a call's activation tensors (inputs and outputs of rows x hidden)
// from which it streams: twice the last-level cache (cache_size.h), or 16
// MiB where Linux does not list it. Below that, the next call or the caller
// reads the output (and the tensors again) from cache, faster than
// streaming saves. Zen 4 VM, 32 MiB L3, M=4096, GB/s with streaming / plain
// stores, 1 thread and 2 threads (row_norm_bench, one run each):
//   LayerNorm f32 forward  N=768   (24 MiB)  0.73  0.59
//                          N=1024  (32 MiB)  0.90  0.73
//                          N=4096 (128 MiB)  1.59  1.50
//   LayerNorm bf16 forward N=1024  (16 MiB)  0.72  0.77
//                          N=4096  (64 MiB)  1.56  1.51
//   LayerNorm f32 backward N=1024  (48 MiB)  0.91  0.96
//                          N=4096 (192 MiB)  1.24  1.22
//   LayerNorm bf16 bwd     N=1024  (24 MiB)  0.75  0.75
//                          N=4096  (96 MiB)  1.03  1.08
//   RMSNorm f16 backward   N=1024  (24 MiB)  0.71  0.70
//                          N=4096  (96 MiB)  1.19  1.24
// The fixed 16 MiB of before came from the AVX2 VM, whose L3 size was not
// recorded (LayerNorm f32 forward, 2 threads, plain -> streaming: 12 MiB
// 67.7 -> 43.2, 16 MiB 35.8 -> 57.5): check the rule there again.
// Where the inputs come from decides the line, checked with report_runner's
// --read_output (the call, then one thread reading its output) on an Intel
// Xeon VM (model 167, 32 MiB after the bound), streaming / plain, 1 thread
// (2 threads), medians of 3 alternating runs, LayerNorm f32, N = 4096:
//   forward, inputs resident (a repeated call, x fresh from the op before):
//     32 MiB 0.59, 64 MiB 0.71 (0.66), 96 MiB 1.13 (0.93), 128 MiB 1.22 (1.12)
//   forward, --cold (inputs from DRAM): 4 MiB (512x1024) 1.30, 16 MiB
//     1.22, 32 MiB 1.25 and 1.22 (N = 1024), 64 MiB 1.25 (bf16 1.22)
//   backward, --cold --warm_dy (dy fresh, x a saved activation): 6 MiB
//     1.04, 24 MiB 1.16 (1.17), bf16 24 MiB 1.06 (1.27), 48 MiB 1.13,
//     bf16 48 MiB 1.02
// So the line sits at the resident-input crossover, as meant; a caller
// whose inputs are cold (a backward whose x was saved long before) gains
// 1.0-1.3x from HALNORM_STREAMING_STORES=always at any footprint, which a
// repeated call on resident tensors (small models, recomputation, the
// report) pays 0.56-0.92x for below the line (backward 0.66-0.87).
int64_t StreamingMinFootprint();

// The line for one call: a quarter of the above (half the last-level cache)
// for f32 row-norm backwards with N > 2048, where a row of x and one of dy
// fill a 32 KiB L1d together (or overflow it) and plain stores of dx evict
// them mid-row. LayerNorm f32 backward, GB/s, plain -> streaming (with the
// row prefetch), report_runner, 2-3 alternating runs each:
//   Zen 4 (x86_avx512), 1 thread:  512x4096 (24 MiB)  21-25 -> 31-34
//                                  RMSNorm 512x4096   27-28 -> 32-36
//                                  512x2048 (12 MiB), bf16: +-5%
// N > 4096 joined later (Zen 4, auto prefetch, medians of 5 alternating
// runs, 1 thread): LayerNorm 192x8192 (18 MiB) 20.6 -> 23.8, 384x8192
// 12.2 -> 15.3, 96x16384 16.5 -> 18.7, 256x16384 13.2 -> 15.4; RMSNorm
// 384x8192 14.7 -> 19.2, 256x16384 12.8 -> 14.8; 2 threads: LayerNorm
// 384x8192 21.6 -> 31.8, 128x16384 35.7 -> 35.5, RMSNorm 512x8192 26.7 ->
// 32.5. (512x8192 had measured +-5% in the runs above.) Not measured at
// N > 4096 on Zen 3. report_runner repeats a call on the same tensors,
// so streamed dx also leaves more of dy and x in the LLC for the
// next call. Cold (inputs cycled over 6 tensor sets, then dx read back as
// the next op would; numpy through the Python binding, ms per call + read,
// plain -> streaming, 2 runs): LayerNorm 384x8192 3.66 -> 3.82 and 3.72 ->
// 3.37, RMSNorm 384x8192 3.43 -> 3.04 and 3.98 -> 3.63, LayerNorm
// 256x16384 5.19 -> 5.01 and 5.66 -> 4.68. On the Intel VM above
// (48 KiB L1d), streaming / plain, then one thread reading dx: resident
// inputs 0.70 (LayerNorm 384x8192) and 0.68 (RMSNorm), but --cold
// --warm_dy 1.22, 1.20, 1.17 (512x4096) and 1.20 (256x16384), 1.03 on 2
// threads: the line bets on x being a saved activation. Forwards at these
// footprints ran 0.8x-3x streaming from shape to shape (f32 4096x768 39 ->
// 32, 3072x1024 20 -> 37 GB/s): the residency lottery of a tensor the
// LLC's size, so their line stays.
//   Zen 3 (x86_avx2), 1 thread:    512x4096            6.2-7.3 -> 8.5-9.6
//                                  384x4096 (18 MiB)   5.7-7.8 -> 6.8-10.8
//                                  512x3072 (18 MiB)   4.3-6.2 -> 9.0-12.2
//                                  128x4096 (6 MiB)    15-18 -> 12-13 (lost)
//                    2 threads:    512x4096           13-15 -> 18-24
//                                  256x4096 (12 MiB)  20-31 -> 17-23 (lost)
// (the Zen 3 VM's STREAM copy was 10-12 GB/s at 1 thread, a third of the
// Zen 4's.) Other shapes and dtypes gained nothing below the general line.
int64_t StreamingMinFootprint(const KernelRequest& request);

// bf16 kernels that round to bf16 in integer vector ops (x86_avx2): on one
// thread they are bound by that arithmetic, not by the write-allocate reads
// streaming saves, and run slower streaming; so under auto they stream only
// when the call runs on two threads or more, which share the DRAM bandwidth.
// Zen 3 VM (32 MiB L3), vector_bf16.ll's store, report_runner, LayerNorm and
// RMSNorm fwd+bwd at 4096x4096, 16384x2048, 16384x4096, medians of 5
// alternating runs, streaming / plain: 1 thread geomean 0.972 (12 points),
// 0.975 with --cold --warm_dy (8); 2 threads 1.019 (8 of 12 above 1, range
// 0.94-1.12), 1.100 with --cold --warm_dy (6 of 8, 0.84-1.65).
// Until that store (2026-12-07) they never streamed, from these timings of
// the older rounding (Zen 2 VM, 16 MiB L3, report_runner, logical GB/s
// forward / backward, 3 alternating runs each, streaming -> plain; not
// re-timed there since):
//   LayerNorm 4096x4096   1 thread  6.2-6.5 / 5.7-5.8 -> 6.6-7.8 / 6.1-6.4
//                         2 threads 12.0-13.3 / 10.4-10.7 -> 13.3-14.9 / 11.0-11.2
//   LayerNorm 16384x2048  1 thread  6.3-6.9 / 5.6-6.5 -> 6.8-7.3 / 6.2-6.3
//   RMSNorm 16384x2048    1 thread  7.5-7.7 / 6.8-7.2 -> 8.2-8.3 / 7.3-7.6
//   RMSNorm 4096x4096     2 threads 15.0-16.0 / 13.0-13.4 -> 14.3-15.8 / 12.9-13.8
// f16 (F16C) on the same runs streamed as fast or faster (RMSNorm
// 16384x2048, 1 thread: 10.8-12.0 -> 9.4-10.1 forward). Not measured:
// x86_avx512's software bf16 (AVX-512 CPUs without AVX512_BF16).
bool StoresBf16InSoftware(const Variant& variant);

// HALNORM_STREAMING_STORES=auto (the default: from StreamingMinFootprint(request),
// for StoresBf16InSoftware(chosen) only on 2+ threads), always or never (read once).
// False when `chosen` has no streaming twin.
// HALNORM_VERBOSE=dispatch prints the decision.
bool UseStreamingStores(const KernelRequest& request, const Variant& chosen);

// The same decision for a variant that has a streaming twin, printing
// nothing. The f32 backward's row prefetch follows it (row_prefetch.h): it
// pays only when the rows come from memory.
bool StreamsWithTwin(const KernelRequest& request);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_STREAMING_STORES_H_
