// The shape buckets that tuned tables key on: a call's hidden size (C for
// LayerNorm2d) and its row count (pixels N*H*W for LayerNorm2d), each rounded
// up to the first bound that holds it. The autotuner times one
// representative shape per bucket; the runtime looks calls up by bucket.
// LayerNorm2d's channel counts have bounds of their own (HiddenBucketBounds).
#ifndef HALNORM_RUNTIME_TUNING_BUCKETS_H_
#define HALNORM_RUNTIME_TUNING_BUCKETS_H_

#include <cstdint>
#include <limits>

#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Inclusive upper bounds; the last bucket holds everything larger.
inline constexpr int64_t kHiddenBucketBounds[] = {256, 1024, 4096,
                                                  std::numeric_limits<int64_t>::max()};
// LayerNorm2d: a task's tile of C channels x pixels_per_task pixels is what
// must stay in cache, and models' C runs 96-768, so the bounds are finer
// there. ConvNeXt stage 1 (C = 96) and the SAM neck (C = 256) want different
// configs: on the Zen 4 VM, bf16 forward 8x96x56x56 ran 1.7x faster with 32
// pixels x 32 lanes per task than with 64 x 16, 1x256x64x64 1.1-1.5x slower.
inline constexpr int64_t kChannelBucketBounds[] = {128, 256, 1024,
                                                   std::numeric_limits<int64_t>::max()};
// Rows: decode (<= 16), small batches, then two buckets split at 4096 rows,
// above which rows of 768 and more come from DRAM. There the best config
// differs: computing statistics 16 rows at a time (stats_rows) wins on rows
// in cache and loses on rows from DRAM (schedules/row_norm_cpu.cc; LayerNorm
// bf16 forward, 1 thread, GB/s, stats_rows 16 vs 1: 4096x768 46.7 vs 37.8,
// 16384x768 19.6 vs 33.7).
inline constexpr int64_t kRowBucketBounds[] = {16, 512, 4096, std::numeric_limits<int64_t>::max()};
inline constexpr int kHiddenBuckets = 4;
inline constexpr int kRowBuckets = 4;

constexpr int BucketOf(int64_t value, const int64_t* bounds, int count) {
  for (int i = 0; i < count - 1; i++) {
    if (value <= bounds[i]) return i;
  }
  return count - 1;
}
constexpr const int64_t* HiddenBucketBounds(Op op) {
  return op == Op::kLayerNorm2d ? kChannelBucketBounds : kHiddenBucketBounds;
}
constexpr int HiddenBucket(Op op, int64_t hidden) {
  return BucketOf(hidden, HiddenBucketBounds(op), kHiddenBuckets);
}
constexpr int RowBucket(int64_t rows) { return BucketOf(rows, kRowBucketBounds, kRowBuckets); }

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TUNING_BUCKETS_H_
