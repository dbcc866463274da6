// LayerNorm2d over CHW or HW runs on the row-norm kernels, whose parameters
// are per feature: each channel's weight and bias repeat over its features,
// and its dweight/dbias are the sums of its features' ones. ChannelPlanes
// holds the f32 weight and bias planes for one call, in host memory or in
// device memory (kernels of cuda_channel_planes.h, on the legacy default
// stream) for HALNORM_CUDA tensors. On a GPU it also makes the per-channel
// sums of dweight/dbias planes; host calls sum per channel in the row-norm
// backward itself (LayerNormBackwardChannelSums).
#ifndef HALNORM_RUNTIME_CHANNEL_PLANES_H_
#define HALNORM_RUNTIME_CHANNEL_PLANES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_tensors.h"
#include "runtime/feature_layout.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

class ChannelPlanes {
 public:
  // For a call on x's device. Errors: CUDA tensors without a usable GPU.
  static absl::StatusOr<std::unique_ptr<ChannelPlanes>> For(const halnorm_tensor& x);

  bool on_cuda() const { return cuda_ != nullptr; }
  // A dense f32 tensor of `shape` over `data` on the call's device.
  halnorm_tensor Tensor(float* data, const std::vector<int64_t>& shape) const;

  // *weight_plane, *bias_plane = the per-channel weight and bias repeated
  // over their features, f32 planes of `shape` (at.features() elements),
  // valid for the call. A null parameter: no plane. On the host they are
  // this thread's reused scratch (ThreadScratch), so a thread holds the
  // planes of one call at a time, and a plane already holding the same
  // values in the same place is not filled again.
  absl::Status ExpandAffine(const halnorm_tensor* weight, const halnorm_tensor* bias,
                            const FeatureLayout& at, const std::vector<int64_t>& shape,
                            halnorm_tensor* weight_plane, halnorm_tensor* bias_plane);

  // CUDA calls only. `count` f32 values of device memory for the call.
  absl::StatusOr<float*> Scratch(int64_t count);
  // Where out's C sums are made (out null: nowhere), allocated before the
  // call writes any output, so that failing here leaves nothing written.
  absl::StatusOr<float*> SumsFor(const halnorm_tensor* out);
  // out = each channel's features of `plane` added, made in `sums`
  // (SumsFor(out)). out null: nothing.
  absl::Status StoreSums(const float* plane, const FeatureLayout& at, float* sums,
                         halnorm_tensor* out);

 private:
  explicit ChannelPlanes(std::unique_ptr<CudaCall> cuda) : cuda_(std::move(cuda)) {}

  // One plane: `t`'s (or `values`') per-channel values repeated over their
  // features, into `data`.
  absl::Status ExpandOnCuda(const halnorm_tensor& t, const FeatureLayout& at, float* data);
  static void ExpandOnHost(const std::vector<float>& values, const FeatureLayout& at, float* data);

  std::unique_ptr<CudaCall> cuda_;  // null for host tensors
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CHANNEL_PLANES_H_
