// The CPU forward's task sizes (runtime/forward_tasks.h): a line's rows where
// every thread already gets rows, an even share above a floor of work
// otherwise, and never more rows than the call has.
#include "runtime/forward_tasks.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace halnorm::internal {
namespace {

constexpr int64_t kBf16Row4096 = 2 * 4096 * 2;  // x and y

TEST(ForwardTaskRowsTest, WholeLinesOnOneThread) {
  EXPECT_EQ(ForwardTaskRows(16, 1, kBf16Row4096, 1), 16);
  EXPECT_EQ(ForwardTaskRows(16, 1, kBf16Row4096, 0), 16);
  EXPECT_EQ(ForwardTaskRows(1, 1, kBf16Row4096, 1), 1);
}

TEST(ForwardTaskRowsTest, WholeLinesWhenEveryThreadHasALine) {
  EXPECT_EQ(ForwardTaskRows(16, 2, kBf16Row4096, 2), 16);
  EXPECT_EQ(ForwardTaskRows(1, 8, kBf16Row4096, 4), 1);
}

// Lines of more than 2^31 - 1 rows (a kernel piece never has them, but the
// cap is an int32): the cap saturates.
TEST(ForwardTaskRowsTest, SaturatesAtInt32) {
  EXPECT_EQ(ForwardTaskRows(int64_t{1} << 40, 1, 4, 1), std::numeric_limits<int32_t>::max());
}

TEST(ForwardTaskRowsTest, SharesFewLongRowsEvenly) {
  EXPECT_EQ(ForwardTaskRows(16, 1, kBf16Row4096, 2), 8);
  EXPECT_EQ(ForwardTaskRows(13, 1, kBf16Row4096, 2), 7);
  EXPECT_EQ(ForwardTaskRows(16, 1, kBf16Row4096, 3), 6);
  // 3 lines on 8 threads: each line in 3 tasks.
  EXPECT_EQ(ForwardTaskRows(12, 3, 1 << 20, 8), 4);
  // Many rows: the share exceeds any rows_per_task knob, which then decides.
  EXPECT_EQ(ForwardTaskRows(16384, 1, kBf16Row4096, 2), 8192);
}

TEST(ForwardTaskRowsTest, KeepsAFloorOfWorkPerTask) {
  // 16 KiB: 32 rows of bf16 128, so a 16-row call stays one task of its 16
  // rows (the floor never exceeds the rows there are); 6 rows
  // of bf16 768, so 16 of them go 8 to a task on 2 threads, and 6 to a
  // task on 4; a quarter row of f32 8192, so 16 go 2 to a task on 8.
  EXPECT_EQ(ForwardTaskRows(16, 1, 2 * 128 * 2, 2), 16);
  EXPECT_EQ(ForwardTaskRows(16, 1, 2 * 768 * 2, 2), 8);
  EXPECT_EQ(ForwardTaskRows(16, 1, 2 * 768 * 2, 4), 6);
  EXPECT_EQ(ForwardTaskRows(16, 1, 2 * 8192 * 4, 8), 2);
  EXPECT_EQ(ForwardTaskRows(3, 1, 1 << 20, 8), 1);
}

}  // namespace
}  // namespace halnorm::internal
