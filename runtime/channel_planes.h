// LayerNorm2d over CHW or HW runs on the row-norm kernels, whose parameters
// are per feature: each channel's weight and bias repeat over its features,
// and its dweight/dbias are the sums of its features' ones. ChannelPlanes
// holds those f32 planes and makes those sums for one call, in host memory,
// or in device memory (kernels of cuda_channel_planes.h, on the legacy
// default stream) for HALNORM_CUDA tensors.
#ifndef HALNORM_RUNTIME_CHANNEL_PLANES_H_
#define HALNORM_RUNTIME_CHANNEL_PLANES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_tensors.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// Where channel c's i-th feature sits in a per-sample row of [C][per_channel]
// (NCHW) or [per_channel][C] (channels-last) features.
struct FeatureLayout {
  int64_t channels, per_channel;
  bool channels_last;

  int64_t operator()(int64_t c, int64_t i) const {
    return channels_last ? i * channels + c : c * per_channel + i;
  }
  int64_t features() const { return channels * per_channel; }
};

class ChannelPlanes {
 public:
  // For a call on x's device. Errors: CUDA tensors without a usable GPU.
  static absl::StatusOr<std::unique_ptr<ChannelPlanes>> For(const halnorm_tensor& x);

  // `count` f32 values on the call's device, for the call's duration
  // (zeros on the host, uninitialized on a GPU).
  absl::StatusOr<float*> Scratch(int64_t count);
  // A dense f32 tensor of `shape` over `data` on the call's device.
  halnorm_tensor Tensor(float* data, const std::vector<int64_t>& shape) const;

  // *plane = the per-channel `t` repeated over its features, an f32 plane
  // of `shape` (at.features() elements). t null: nothing.
  absl::Status Expand(const halnorm_tensor* t, const FeatureLayout& at,
                      const std::vector<int64_t>& shape, halnorm_tensor* plane);

  // Where out's C sums are made (out null: nowhere), allocated before the
  // call writes any output, so that failing here leaves nothing written.
  absl::StatusOr<float*> SumsFor(const halnorm_tensor* out);
  // out = each channel's features of `plane` added in feature order, made
  // in `sums` (SumsFor(out)). out null: nothing.
  absl::Status StoreSums(const float* plane, const FeatureLayout& at, float* sums,
                         halnorm_tensor* out);

 private:
  explicit ChannelPlanes(std::unique_ptr<CudaCall> cuda) : cuda_(std::move(cuda)) {}

  std::unique_ptr<CudaCall> cuda_;  // null for host tensors
  std::vector<std::unique_ptr<float[]>> host_;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CHANNEL_PLANES_H_
