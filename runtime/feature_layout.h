// LayerNorm2d over CHW or HW runs on the row-norm kernels, whose parameters
// are per feature: FeatureLayout says which channel each feature belongs to,
// and sums per-feature values per channel.
#ifndef HALNORM_RUNTIME_FEATURE_LAYOUT_H_
#define HALNORM_RUNTIME_FEATURE_LAYOUT_H_

#include <cstdint>

namespace halnorm::internal {

// Where channel c's i-th feature sits in a plane of [C][per_channel] (NCHW)
// or [per_channel][C] (channels-last) features.
struct FeatureLayout {
  int64_t channels, per_channel;
  bool channels_last;

  int64_t operator()(int64_t c, int64_t i) const {
    return channels_last ? i * channels + c : c * per_channel + i;
  }
  int64_t features() const { return channels * per_channel; }

  // sums[c] += the `count` values at plane positions [first, first + count)
  // that are channel c's, in a fixed order.
  void AddToChannelSums(const float* values, int64_t first, int64_t count, float* sums) const;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_FEATURE_LAYOUT_H_
