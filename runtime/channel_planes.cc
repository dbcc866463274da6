#include "runtime/channel_planes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <tuple>
#include <utility>

#include "runtime/cuda_channel_planes.h"
#include "runtime/half_float.h"
#include "runtime/scratch.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

absl::StatusOr<std::unique_ptr<ChannelPlanes>> ChannelPlanes::For(const halnorm_tensor& x) {
  std::unique_ptr<CudaCall> cuda;
  if (x.device == HALNORM_CUDA) {
    // LayerNorm2d's entry points take no options: the legacy default stream.
    absl::StatusOr<std::unique_ptr<CudaCall>> begun = CudaCall::Begin(x, nullptr);
    if (!begun.ok()) return begun.status();
    cuda = std::move(*begun);
  }
  return std::unique_ptr<ChannelPlanes>(new ChannelPlanes(std::move(cuda)));
}

absl::StatusOr<float*> ChannelPlanes::Scratch(int64_t count) {
  if (cuda_ == nullptr) return absl::InternalError("ChannelPlanes::Scratch: CUDA calls only");
  return cuda_->Scratch(count);
}

halnorm_tensor ChannelPlanes::Tensor(float* data, const std::vector<int64_t>& shape) const {
  return DenseTensor(data, HALNORM_F32, cuda_ ? HALNORM_CUDA : HALNORM_CPU, shape);
}

namespace {

// What a host plane of this thread's kChannelPlanes scratch holds: the
// per-channel values (their bits) it repeats, in which layout, at which
// place. A call whose parameters match skips the fill: with one sample the
// planes are as large as x (SAM neck, 1x256x64x64 f32: filling the two 4 MB
// planes took about half the forward's time), and a model's weights repeat
// from call to call in inference, and from forward to backward in training.
struct FilledPlane {
  std::vector<float> values;
  FeatureLayout at{};
  const float* data = nullptr;

  bool Holds(const std::vector<float>& v, const FeatureLayout& layout, const float* place) const {
    return place == data && layout.channels == at.channels &&
           layout.per_channel == at.per_channel && layout.channels_last == at.channels_last &&
           v.size() == values.size() &&
           std::memcmp(v.data(), values.data(), v.size() * sizeof(float)) == 0;
  }
  bool Overlaps(const float* begin, const float* end) const {
    return data != nullptr && data < end && begin < data + at.features();
  }
};

}  // namespace

absl::Status ChannelPlanes::ExpandAffine(const halnorm_tensor* weight, const halnorm_tensor* bias,
                                         const FeatureLayout& at, const std::vector<int64_t>& shape,
                                         halnorm_tensor* weight_plane, halnorm_tensor* bias_plane) {
  if (cuda_ != nullptr) {
    for (auto [t, plane] : {std::pair{weight, weight_plane}, {bias, bias_plane}}) {
      if (t == nullptr) continue;
      absl::StatusOr<float*> data = cuda_->Scratch(at.features());
      if (!data.ok()) return data.status();
      *plane = Tensor(*data, shape);
      HALNORM_RETURN_IF_ERROR(ExpandOnCuda(*t, at, *data));
    }
    return absl::OkStatus();
  }
  // Host planes are reused, not allocated: fresh ones were mapped and
  // zeroed on every call (1x256x64x64 f32: 4 MB planes, and a third of a
  // LayerNorm2d backward's time in memset and page faults).
  thread_local std::array<FilledPlane, 2> filled;  // the scratch's first and second plane
  bool reallocated = false;
  float* data = ThreadScratch(((weight != nullptr) + (bias != nullptr)) * at.features(),
                              ScratchUse::kChannelPlanes, &reallocated);
  if (reallocated) filled = {};
  FilledPlane* slot = filled.data();
  for (auto [t, plane] : {std::pair{weight, weight_plane}, {bias, bias_plane}}) {
    if (t == nullptr) continue;
    *plane = Tensor(data, shape);
    std::vector<float> values = ToF32(*t, at.channels);
    if (!slot->Holds(values, at, data)) {
      // Planes of another size lie elsewhere: what this one overwrites of
      // the other plane no longer holds its values.
      for (FilledPlane& other : filled) {
        if (other.Overlaps(data, data + at.features())) other = {};
      }
      ExpandOnHost(values, at, data);
      *slot = {std::move(values), at, data};
    }
    data += at.features();
    slot++;
  }
  return absl::OkStatus();
}

absl::Status ChannelPlanes::ExpandOnCuda(const halnorm_tensor& t, const FeatureLayout& at,
                                         float* data) {
  halnorm_tensor f32_scratch;
  absl::StatusOr<const halnorm_tensor*> values = cuda_->AsF32(&t, &f32_scratch);
  if (!values.ok()) return values.status();
  return ExpandChannelsOnCuda(cuda_->driver(), cuda_->context(),
                              static_cast<CUstream>(cuda_->stream()),
                              static_cast<const float*>((*values)->data), data, at.features(),
                              at.channels_last ? 1 : at.per_channel, at.channels);
}

void ChannelPlanes::ExpandOnHost(const std::vector<float>& values, const FeatureLayout& at,
                                 float* data) {
  // Whole runs at a time (a channel's plane, or a feature's C values), not
  // element by element: 8x768x7x7 f32 AXES_CHW spent as long here as in
  // the kernel.
  for (int64_t i = 0; at.channels_last && i < at.per_channel; i++) {
    std::copy(values.begin(), values.end(), data + i * at.channels);
  }
  for (int64_t c = 0; !at.channels_last && c < at.channels; c++) {
    std::fill_n(data + c * at.per_channel, at.per_channel, values[c]);
  }
}

absl::StatusOr<float*> ChannelPlanes::SumsFor(const halnorm_tensor* out) {
  if (out == nullptr) return nullptr;
  if (cuda_ == nullptr) return absl::InternalError("ChannelPlanes::SumsFor: CUDA calls only");
  return cuda_->F32Output(*out);
}

absl::Status ChannelPlanes::StoreSums(const float* plane, const FeatureLayout& at, float* sums,
                                      halnorm_tensor* out) {
  if (out == nullptr) return absl::OkStatus();
  if (cuda_ == nullptr) return absl::InternalError("ChannelPlanes::StoreSums: CUDA calls only");
  // Channel c's features as column c of a per_channel x channels matrix.
  const int64_t c_stride = at.channels_last ? 1 : at.per_channel;
  const int64_t i_stride = at.channels_last ? at.channels : 1;
  HALNORM_RETURN_IF_ERROR(SumColumnsOnCuda(cuda_->driver(), cuda_->context(),
                                           static_cast<CUstream>(cuda_->stream()), plane, sums,
                                           at.channels, at.per_channel, c_stride, i_stride));
  return cuda_->FinishParam(sums, *out);
}

}  // namespace halnorm::internal
