// A dispatch table: which config of a target runs calls of one op,
// direction and dtype in one shape bucket. Dense, so a lookup is index
// arithmetic (dispatch runs it on every call).
#ifndef HALNORM_RUNTIME_TUNING_TABLE_H_
#define HALNORM_RUNTIME_TUNING_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/variant_registry.h"

namespace halnorm::internal {

// No residual: a forward entry also covers the fused-residual variant.
struct TuningKey {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  int target;         // VariantIndex numbering
  int hidden_bucket;  // HiddenBucket(op, ...) of runtime/tuning_buckets.h
  int row_bucket;     // RowBucket()
};

class TuningTable {
 public:
  // Empty: every key has no entry. Targets are numbered as in VariantIndex.
  explicit TuningTable(int target_count);

  // Keys must be in range (targets, buckets); checking them is the caller's job.
  void Set(const TuningKey& key, int config);
  // The config index for `key`, or -1 when the table has no entry.
  int Config(const TuningKey& key) const { return configs_[Slot(key)]; }

  struct Entry {
    int config;      // -1: no row bucket of the key's hidden bucket has an entry
    int row_bucket;  // whose entry it is
  };
  // The entry for `key`, else that of the nearest row bucket of the same
  // hidden bucket that has one (the fewer rows on a tie), so tables written
  // before a row bucket existed, or whose grid has no shape there, still
  // serve it.
  Entry Nearest(const TuningKey& key) const;

 private:
  size_t Slot(const TuningKey& key) const;

  int target_count_;
  std::vector<int16_t> configs_;
};

// "hidden<=1024 rows<=16", "hidden>4096 rows>512" ("channels<=128 ..." for
// LayerNorm2d): a bucket pair for people.
std::string DescribeBuckets(Op op, int hidden_bucket, int row_bucket);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TUNING_TABLE_H_
