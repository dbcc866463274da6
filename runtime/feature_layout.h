// LayerNorm2d over CHW or HW runs on the row-norm kernels, whose parameters
// are per feature: FeatureLayout says which channel each feature belongs to,
// and sums per-feature values per channel.
#ifndef HALNORM_RUNTIME_FEATURE_LAYOUT_H_
#define HALNORM_RUNTIME_FEATURE_LAYOUT_H_

#include <cstdint>

namespace halnorm::internal {

// A plane of [C][per_channel] (NCHW) or [per_channel][C] (channels-last)
// features: channel c's i-th is at c * per_channel + i, or i * C + c.
struct FeatureLayout {
  int64_t channels, per_channel;
  bool channels_last;

  int64_t features() const { return channels * per_channel; }

  // sums[c] += the `count` values at plane positions [first, first + count)
  // that are channel c's, in a fixed order.
  void AddToChannelSums(const float* values, int64_t first, int64_t count, float* sums) const;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_FEATURE_LAYOUT_H_
