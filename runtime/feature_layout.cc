#include "runtime/feature_layout.h"

#include <algorithm>

namespace halnorm::internal {
namespace {

// The sum of `count` values, in 16 interleaved lanes (which vectorize, and
// round less than one running sum), then the lanes in order.
float SumRun(const float* values, int64_t count) {
  constexpr int kLanes = 16;
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; l++) lanes[l] += values[i + l];
  }
  float sum = 0.f;
  for (int l = 0; l < kLanes; l++) sum += lanes[l];
  for (; i < count; i++) sum += values[i];
  return sum;
}

}  // namespace

// Runs of one channel's positions (NCHW), or of consecutive channels
// (channels-last).
void FeatureLayout::AddToChannelSums(const float* values, int64_t first, int64_t count,
                                     float* sums) const {
  for (int64_t j = 0; j < count;) {
    const int64_t position = first + j;
    if (channels_last) {
      const int64_t c = position % channels;
      const int64_t run = std::min(channels - c, count - j);
      for (int64_t k = 0; k < run; k++) sums[c + k] += values[j + k];
      j += run;
    } else {
      const int64_t c = position / per_channel;
      const int64_t run = std::min((c + 1) * per_channel - position, count - j);
      sums[c] += SumRun(values + j, run);
      j += run;
    }
  }
}

}  // namespace halnorm::internal
