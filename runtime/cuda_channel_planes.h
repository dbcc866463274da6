// Parameter planes and sums on CUDA: a channel's value repeated over its
// features (LayerNorm2d over CHW or HW runs on the row-norm kernels, whose
// parameters are per feature), and column sums in a fixed order (a
// channel's dweight over its features; the dweight/dbias blocks of several
// kernel calls), in a fixed order. Kernels of the
// runtime's own (cuda_ptx.h), queued on `stream` in `context` (current);
// f32 device memory throughout.
#ifndef HALNORM_RUNTIME_CUDA_CHANNEL_PLANES_H_
#define HALNORM_RUNTIME_CUDA_CHANNEL_PLANES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/cuda_driver.h"

namespace halnorm::internal {

// plane[i] = values[(i / inner) % channels] for i < count: inner is the
// features per channel of a [C][features] plane, 1 for a [features][C] one.
absl::Status ExpandChannelsOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                                  const float* values, float* plane, int64_t count, int64_t inner,
                                  int64_t channels);

// sums[c] = the sum of values[c * column_stride + r * row_stride] over r <
// rows, for each column c < columns, in a fixed order: 32 strided sums (r =
// l, l + 32, ... in order, for l < 32), then those folded by halving (l +=
// l + 16, l + 8, ...).
absl::Status SumColumnsOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                              const float* values, float* sums, int64_t columns, int64_t rows,
                              int64_t column_stride, int64_t row_stride);

// The kernels' PTX (tests assemble it with ptxas).
const std::string& ChannelPlanesPtx();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_CHANNEL_PLANES_H_
