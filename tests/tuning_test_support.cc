#include "tests/tuning_test_support.h"

#include <cstdlib>
#include <fstream>

#include "runtime/tuning_buckets.h"

namespace halnorm::testutil {

using internal::kHiddenBuckets;
using internal::kRowBucketBounds;
using internal::kRowBuckets;

// A bucket's upper bound; twice the previous bound for the open last bucket.
int64_t HiddenIn(internal::Op op, int hidden_bucket) {
  const int64_t* bounds = internal::HiddenBucketBounds(op);
  return hidden_bucket < kHiddenBuckets - 1 ? bounds[hidden_bucket]
                                            : 2 * bounds[kHiddenBuckets - 2];
}

int64_t RowsIn(int row_bucket) {
  return row_bucket < kRowBuckets - 1 ? kRowBucketBounds[row_bucket]
                                      : 2 * kRowBucketBounds[kRowBuckets - 2];
}

internal::KernelRequest RequestIn(const internal::VariantKind& kind, int hidden_bucket,
                                  int row_bucket) {
  internal::KernelRequest request{kind.op,
                                  kind.direction,
                                  kind.dtype,
                                  kind.fused_residual,
                                  HiddenIn(kind.op, hidden_bucket),
                                  RowsIn(row_bucket)};
  request.native_params = kind.native_params;
  return request;
}

std::string TestFilePath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string WriteTestFile(const std::string& name, const std::string& text) {
  const std::string path = TestFilePath(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

int ConfigCount(const internal::VariantKind& kind, int target) {
  return static_cast<int>(internal::VariantIndex::Get().Configs(kind, target).size());
}

}  // namespace halnorm::testutil
