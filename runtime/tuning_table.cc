#include "runtime/tuning_table.h"

#include "absl/strings/str_cat.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {
namespace {

std::string DescribeBucket(const char* name, int bucket, const int64_t* bounds, int count) {
  return bucket < count - 1 ? absl::StrCat(name, "<=", bounds[bucket])
                            : absl::StrCat(name, ">", bounds[count - 2]);
}

}  // namespace

TuningTable::TuningTable(int target_count)
    : target_count_(target_count),
      configs_(static_cast<size_t>(kOpCount) * kDirectionCount * kDtypeCount * target_count *
                   kHiddenBuckets * kRowBuckets,
               -1) {}

size_t TuningTable::Slot(const TuningKey& key) const {
  size_t slot = static_cast<size_t>(key.op);
  slot = slot * kDirectionCount + static_cast<size_t>(key.direction);
  slot = slot * kDtypeCount + static_cast<size_t>(key.dtype);
  slot = slot * target_count_ + key.target;
  slot = slot * kHiddenBuckets + key.hidden_bucket;
  return slot * kRowBuckets + key.row_bucket;
}

void TuningTable::Set(const TuningKey& key, int config) {
  configs_[Slot(key)] = static_cast<int16_t>(config);
}

TuningTable::Entry TuningTable::Nearest(const TuningKey& key) const {
  for (int distance = 0; distance < kRowBuckets; distance++) {
    for (int row_bucket : {key.row_bucket - distance, key.row_bucket + distance}) {
      if (row_bucket < 0 || row_bucket >= kRowBuckets) continue;
      TuningKey near = key;
      near.row_bucket = row_bucket;
      const int config = Config(near);
      if (config >= 0) return {config, row_bucket};
      if (distance == 0) break;  // the key's own bucket: looked up once
    }
  }
  return {-1, key.row_bucket};
}

std::string DescribeBuckets(Op op, int hidden_bucket, int row_bucket) {
  return absl::StrCat(DescribeBucket(op == Op::kLayerNorm2d ? "channels" : "hidden", hidden_bucket,
                                     HiddenBucketBounds(op), kHiddenBuckets),
                      " ", DescribeBucket("rows", row_bucket, kRowBucketBounds, kRowBuckets));
}

}  // namespace halnorm::internal
