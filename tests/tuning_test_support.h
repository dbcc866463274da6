// Helpers for the dispatch-tuning tests: shapes inside a bucket, files in
// the test's scratch directory, and what dispatch picks for a key.
#ifndef HALNORM_TESTS_TUNING_TEST_SUPPORT_H_
#define HALNORM_TESTS_TUNING_TEST_SUPPORT_H_

#include <cstdint>
#include <string>

#include "runtime/dispatch.h"
#include "runtime/variant_index.h"

namespace halnorm::testutil {

// A hidden size (channel count for LayerNorm2d) and row count that fall in
// the given buckets.
int64_t HiddenIn(internal::Op op, int hidden_bucket);
int64_t RowsIn(int row_bucket);

// The request of `kind` whose shape falls in the given buckets.
internal::KernelRequest RequestIn(const internal::VariantKind& kind, int hidden_bucket,
                                  int row_bucket);

// `name` in the test's scratch directory (TEST_TMPDIR).
std::string TestFilePath(const std::string& name);

// Writes `text` to TestFilePath(name); returns that path.
std::string WriteTestFile(const std::string& name, const std::string& text);

// How many configs `target` compiles for `kind`.
int ConfigCount(const internal::VariantKind& kind, int target);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_TUNING_TEST_SUPPORT_H_
