// f32 copies of per-feature parameters (a 16-bit weight or bias converted,
// options.weight_offset folded in), kept per calling thread and reused for
// as long as their source holds the same bytes.
//
// Why reuse them: every thread a kernel runs on reads the copy. Written
// afresh on every call, those reads fetch lines another core has just
// written, which on the Intel VM cost more than sharing the rows out saved.
// LayerNorm bf16 forward, weight and bias given, us a call, 1 -> 2 threads
// with a fresh copy per call: 5x16384 22 -> 37, 8x8192 17-24 -> 26-29,
// 16x16384 61-64 -> 56-61 (the same calls with the kernels reading the
// 16-bit tensors themselves, nothing written: 8x8192 -> 11-14, 16x16384 ->
// 37-42). Checking the source (a compare of its N values) costs about what
// converting it did, and leaves the copy's lines shared in every core.
#ifndef HALNORM_RUNTIME_CONVERTED_PARAMS_H_
#define HALNORM_RUNTIME_CONVERTED_PARAMS_H_

#include <cstdint>

#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// Sources at most this large are kept (hidden sizes up to 128K in 16-bit;
// larger ones are converted per call), and at most kKeptParams of them per
// thread, the least recently used replaced first: with the copy of the
// source, at most 6 MiB a thread.
inline constexpr int64_t kMaxKeptParamBytes = int64_t{256} << 10;
inline constexpr int kKeptParams = 8;

// Writes the f32 values of the `count` contiguous elements of `t`, plus
// `offset`, to `out`.
void ToF32WithOffset(const halnorm_tensor& t, int64_t count, float offset, float* out);

// The same, as this thread's kept copy. Valid until this thread has asked for kKeptParams - 1 other
// sources since (a call asks for two: weight and bias). The source must be at most
// kMaxKeptParamBytes.
const float* KeptF32Param(const halnorm_tensor& t, int64_t count, float offset);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CONVERTED_PARAMS_H_
