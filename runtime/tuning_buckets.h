// The shape buckets that tuned tables key on: a call's hidden size (C for
// LayerNorm2d) and its row count (pixels N*H*W for LayerNorm2d), each rounded
// up to the first bound that holds it. The autotuner times one
// representative shape per bucket; the runtime looks calls up by bucket.
#ifndef HALNORM_RUNTIME_TUNING_BUCKETS_H_
#define HALNORM_RUNTIME_TUNING_BUCKETS_H_

#include <cstdint>
#include <limits>

namespace halnorm::internal {

// Inclusive upper bounds; the last bucket holds everything larger.
inline constexpr int64_t kHiddenBucketBounds[] = {256, 1024, 4096,
                                                  std::numeric_limits<int64_t>::max()};
inline constexpr int64_t kRowBucketBounds[] = {16, 512, std::numeric_limits<int64_t>::max()};
inline constexpr int kHiddenBuckets = 4;
inline constexpr int kRowBuckets = 3;

constexpr int BucketOf(int64_t value, const int64_t* bounds, int count) {
  for (int i = 0; i < count - 1; i++) {
    if (value <= bounds[i]) return i;
  }
  return count - 1;
}
constexpr int HiddenBucket(int64_t hidden) {
  return BucketOf(hidden, kHiddenBucketBounds, kHiddenBuckets);
}
constexpr int RowBucket(int64_t rows) { return BucketOf(rows, kRowBucketBounds, kRowBuckets); }

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TUNING_BUCKETS_H_
