// A variant's small calls take the way (split across threads, or on the
// caller's thread) that its timings say is cheaper, try the other in bursts
// of 8 calls every 512, follow a change, and drop timings that cannot be
// trusted (a way's first, a trial's first half, a split that woke the pool).
#include "runtime/small_calls.h"

#include "gtest/gtest.h"

namespace halnorm::internal {
namespace {

using Choice = SmallCallChooser::Choice;

constexpr int kTrialEvery = 512, kTrialCalls = 8;
// Each way's first timing (dropped) and second come within these calls.
constexpr int kWarmUpCalls = 32;

// What timed calls report: each way's cost, and its first timing.
struct Costs {
  float split, serial;
  float first_split = split, first_serial = serial;
};

class Calls {
 public:
  explicit Calls(SmallCallChooser& chooser) : chooser_(chooser) {}

  // Makes `count` calls; returns how many ran split.
  int Run(int count, const Costs& costs) {
    int split = 0;
    for (int i = 0; i < count; i++) {
      const Choice choice = chooser_.Next();
      split += choice.split;
      if (!choice.timed) continue;
      const bool first = choice.split ? split_timings_++ == 0 : serial_timings_++ == 0;
      const float timing = choice.split ? (first ? costs.first_split : costs.split)
                                        : (first ? costs.first_serial : costs.serial);
      chooser_.Record(choice, timing, /*woke_workers=*/false);
    }
    return split;
  }

 private:
  SmallCallChooser& chooser_;
  int split_timings_ = 0, serial_timings_ = 0;
};

TEST(SmallCallsTest, DropsEachWaysFirstTiming) {
  SmallCallChooser chooser;
  Calls calls(chooser);
  // Counted, the first timings would make the serial way the cheaper.
  calls.Run(kWarmUpCalls, {10.f, 20.f, /*first_split=*/1000.f, /*first_serial=*/1.f});
  EXPECT_EQ(calls.Run(100, {10.f, 20.f}), 100);
}

TEST(SmallCallsTest, TakesTheCheaperWayAndTriesTheOther) {
  constexpr int kCalls = 4 * kTrialEvery - kWarmUpCalls;  // 3 trials
  SmallCallChooser split_cheaper, serial_cheaper;
  Calls split_calls(split_cheaper), serial_calls(serial_cheaper);
  split_calls.Run(kWarmUpCalls, {10.f, 20.f});
  serial_calls.Run(kWarmUpCalls, {20.f, 10.f});
  EXPECT_EQ(split_calls.Run(kCalls, {10.f, 20.f}), kCalls - 3 * kTrialCalls);
  EXPECT_EQ(serial_calls.Run(kCalls, {20.f, 10.f}), 3 * kTrialCalls);
}

TEST(SmallCallsTest, TimesOnlyATrialsSecondHalf) {
  SmallCallChooser chooser;
  Calls calls(chooser);
  calls.Run(kTrialEvery, {10.f, 20.f});
  for (int i = 0; i < kTrialCalls; i++) {
    const Choice choice = chooser.Next();
    EXPECT_FALSE(choice.split) << "call " << i;
    EXPECT_EQ(choice.timed, i >= kTrialCalls / 2) << "call " << i;
  }
}

TEST(SmallCallsTest, FollowsAChangeBothWays) {
  SmallCallChooser chooser;
  Calls calls(chooser);
  calls.Run(4 * kTrialEvery, {10.f, 20.f});
  // The split turns 4x dearer (its threads now share a core): the calls
  // that keep splitting are timed, so the switch comes within a few.
  EXPECT_LT(calls.Run(64, {40.f, 20.f}), 32);
  EXPECT_LE(calls.Run(4 * kTrialEvery, {40.f, 20.f}), 4 * kTrialCalls);
  // And back: seen through the trials alone, so within a few of them.
  calls.Run(2 * kTrialEvery, {10.f, 20.f});
  EXPECT_GE(calls.Run(4 * kTrialEvery, {10.f, 20.f}), 4 * (kTrialEvery - kTrialCalls));
}

TEST(SmallCallsTest, DropsASplitTimingThatWokeThePool) {
  SmallCallChooser chooser;
  Calls calls(chooser);
  calls.Run(kWarmUpCalls, {10.f, 11.f});
  Choice choice = chooser.Next();
  while (!choice.timed) choice = chooser.Next();
  ASSERT_TRUE(choice.split);
  // Counted, it would make the serial way the cheaper.
  chooser.Record(choice, 1000.f, /*woke_workers=*/true);
  EXPECT_EQ(calls.Run(100, {10.f, 11.f}), 100);
}

}  // namespace
}  // namespace halnorm::internal
