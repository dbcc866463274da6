// Links and exercises every Debian-provided library the project relies on.
#include <vector>

#include "Halide.h"
#include "absl/base/call_once.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"

ABSL_FLAG(int, smoke_n, 4, "Flag used only by the smoke test.");

namespace {

absl::StatusOr<int> Half(int v) {
  if (v % 2 != 0) return absl::InvalidArgumentError(absl::StrCat("odd: ", v));
  return v / 2;
}

int Sum(absl::Span<const int> xs) {
  int s = 0;
  for (int x : xs) s += x;
  return s;
}

TEST(DepsSmoke, Absl) {
  EXPECT_EQ(*Half(8), 4);
  EXPECT_EQ(Half(3).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(absl::StrFormat("%d-%s", 3, "x"), "3-x");
  EXPECT_EQ(Sum(std::vector<int>{1, 2, 3}), 6);

  static absl::once_flag once;
  int calls = 0;
  for (int i = 0; i < 2; ++i) absl::call_once(once, [&] { ++calls; });
  EXPECT_EQ(calls, 1);

  absl::Mutex mu;
  absl::MutexLock lock(&mu);
}

TEST(DepsSmoke, AbslFlags) {
  char arg0[] = "deps_smoke_test";
  char arg1[] = "--smoke_n=7";
  char* argv[] = {arg0, arg1};
  absl::ParseCommandLine(2, argv);
  EXPECT_EQ(absl::GetFlag(FLAGS_smoke_n), 7);
}

TEST(DepsSmoke, HalideJit) {
  Halide::Var x;
  Halide::Func f;
  f(x) = x * 2;
  Halide::Buffer<int> out = f.realize({4});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out(i), 2 * i);
}

}  // namespace
