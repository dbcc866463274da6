// Per-channel parameters of LayerNorm2d over CHW or HW on CUDA, which runs on
// the row-norm kernels and their per-feature parameters: a channel's value
// repeated over its features, and a channel's sum over its features (in
// feature order, as on the CPU). Kernels of the runtime's own (cuda_ptx.h),
// queued on `stream` in `context` (current); f32 device memory throughout.
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

// sums[c] = values[c * c_stride] + values[c * c_stride + j_stride] + ...,
// `terms` of them added in that order (from 0), for each c < channels.
absl::Status SumChannelsOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                               const float* values, float* sums, int64_t channels, int64_t terms,
                               int64_t c_stride, int64_t j_stride);

// The kernels' PTX (tests assemble it with ptxas).
const std::string& ChannelPlanesPtx();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_CHANNEL_PLANES_H_
