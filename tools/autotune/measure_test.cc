#include "tools/autotune/measure.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace halnorm::autotune {
namespace {

using ::testing::HasSubstr;

// A call that sleeps `ms` (>= 10 ms, so each batch is one call) and counts
// how often it ran.
struct SleepyCall {
  int ms, runs = 0;
  absl::Status operator()() {
    runs++;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return absl::OkStatus();
  }
};

TEST(TimeSideBySideTest, GivesTheNearTiesMoreRoundsAndTheSlowCallNone) {
  SleepyCall a{12}, b{12}, slow{80};
  const SideBySideOptions options{/*rounds=*/3, /*extra_rounds=*/2, /*slack=*/0.5};
  const SideBySideTimes times =
      TimeSideBySide({std::ref(a), std::ref(b), std::ref(slow)}, options);
  // Warm-up and batch sizing (2), the shared rounds (3), the near ties' extra rounds (2).
  EXPECT_EQ(a.runs, 2 + 3 + 2);
  EXPECT_EQ(b.runs, 2 + 3 + 2);
  EXPECT_EQ(slow.runs, 2 + 3);
  EXPECT_GE(times.seconds[0], 0.012);
  EXPECT_GE(times.seconds[2], 0.080);
  EXPECT_GT(times.seconds[2], 2 * times.seconds[0]);
}

TEST(TimeSideBySideTest, TheAlwaysRefinedCallGetsTheExtraRoundsHoweverSlow) {
  SleepyCall a{12}, b{12}, slow{80};
  SideBySideOptions options{/*rounds=*/3, /*extra_rounds=*/2, /*slack=*/0.5};
  options.always_refined = 2;
  (void)TimeSideBySide({std::ref(a), std::ref(b), std::ref(slow)}, options);
  EXPECT_EQ(a.runs, 2 + 3 + 2);
  EXPECT_EQ(slow.runs, 2 + 3 + 2);
}

TEST(TimeSideBySideTest, AFailingCallIsReportedAndNotTimed) {
  int failing_runs = 0;
  SleepyCall fine{10};
  const SideBySideTimes times = TimeSideBySide(
      {[&] {
         failing_runs++;
         return absl::InvalidArgumentError("x: wrong shape");
       },
       std::ref(fine)},
      SideBySideOptions{});
  EXPECT_EQ(failing_runs, 1);
  EXPECT_TRUE(std::isinf(times.seconds[0]));
  EXPECT_THAT(times.status[0].message(), HasSubstr("x: wrong shape"));
  EXPECT_TRUE(times.status[1].ok());
  EXPECT_GE(times.seconds[1], 0.010);
}

}  // namespace
}  // namespace halnorm::autotune
