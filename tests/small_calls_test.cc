// A variant's small calls take the way (split across threads, or on the
// caller's thread) that its timings say is cheaper, try the other one call
// in 128, follow a change, and drop timings that measured a wake-up.
#include "runtime/small_calls.h"

#include "gtest/gtest.h"

namespace halnorm::internal {
namespace {

using Choice = SmallCallChooser::Choice;

constexpr int kTrialEvery = 128;

// Runs `calls` calls, giving each timed one its way's cost; returns how many
// ran split.
int RunCalls(SmallCallChooser& chooser, int calls, float split_cost, float serial_cost) {
  int split = 0;
  for (int i = 0; i < calls; i++) {
    const Choice choice = chooser.Next();
    split += choice.split;
    if (choice.timed) {
      chooser.Record(choice, choice.split ? split_cost : serial_cost, /*woke_workers=*/false);
    }
  }
  return split;
}

struct Timings {
  float first, second;
};

// The first four calls time each way twice, the split first.
void WarmUp(SmallCallChooser& chooser, Timings split, Timings serial) {
  const std::pair<bool, float> calls[] = {
      {true, split.first}, {true, split.second}, {false, serial.first}, {false, serial.second}};
  for (const auto& [way, timing] : calls) {
    const Choice choice = chooser.Next();
    ASSERT_EQ(choice.split, way);
    ASSERT_TRUE(choice.timed);
    chooser.Record(choice, timing, /*woke_workers=*/false);
  }
}

TEST(SmallCallsTest, DropsEachWaysFirstTiming) {
  SmallCallChooser chooser;
  // Counted, the first timings would make the serial way cheaper.
  WarmUp(chooser, {1000.f, 10.f}, {1.f, 20.f});
  EXPECT_EQ(RunCalls(chooser, 100, 10.f, 20.f), 100);
}

TEST(SmallCallsTest, TakesTheCheaperWayAndTriesTheOther) {
  SmallCallChooser split_cheaper, serial_cheaper;
  WarmUp(split_cheaper, {10.f, 10.f}, {20.f, 20.f});
  WarmUp(serial_cheaper, {20.f, 20.f}, {10.f, 10.f});
  constexpr int kCalls = 8 * kTrialEvery;
  EXPECT_EQ(RunCalls(split_cheaper, kCalls, 10.f, 20.f), kCalls - kCalls / kTrialEvery);
  EXPECT_EQ(RunCalls(serial_cheaper, kCalls, 20.f, 10.f), kCalls / kTrialEvery);
}

TEST(SmallCallsTest, FollowsAChangeBothWays) {
  SmallCallChooser chooser;
  WarmUp(chooser, {10.f, 10.f}, {20.f, 20.f});
  RunCalls(chooser, 1000, 10.f, 20.f);
  // The split turns 4x dearer (its threads now share a core): the calls
  // that keep splitting are timed, so the switch comes within a few.
  EXPECT_LT(RunCalls(chooser, 64, 40.f, 20.f), 32);
  EXPECT_LE(RunCalls(chooser, 4 * kTrialEvery, 40.f, 20.f), 4);
  // And back: seen through the trials alone, so within a few of them.
  RunCalls(chooser, 8 * kTrialEvery, 10.f, 20.f);
  EXPECT_GE(RunCalls(chooser, 4 * kTrialEvery, 10.f, 20.f), 4 * kTrialEvery - 4);
}

TEST(SmallCallsTest, DropsASplitTimingThatWokeThePool) {
  SmallCallChooser chooser;
  WarmUp(chooser, {10.f, 10.f}, {11.f, 11.f});
  Choice choice = chooser.Next();
  while (!choice.timed) choice = chooser.Next();
  ASSERT_TRUE(choice.split);
  // Counted, it would make the serial way cheaper.
  chooser.Record(choice, 1000.f, /*woke_workers=*/true);
  EXPECT_EQ(RunCalls(chooser, 100, 10.f, 11.f), 100);
}

TEST(SmallCallsTest, RetriesATrialThatWokeThePoolOnce) {
  SmallCallChooser chooser;
  WarmUp(chooser, {20.f, 20.f}, {10.f, 10.f});
  ASSERT_EQ(RunCalls(chooser, kTrialEvery - 4, 20.f, 10.f), 0);
  const Choice trial = chooser.Next();
  ASSERT_TRUE(trial.split && trial.timed && trial.retry_if_woken);
  chooser.Record(trial, 20.f, /*woke_workers=*/true);
  const Choice retry = chooser.Next();
  EXPECT_TRUE(retry.split && retry.timed);
  EXPECT_FALSE(retry.retry_if_woken);
  chooser.Record(retry, 20.f, /*woke_workers=*/true);
  EXPECT_FALSE(chooser.Next().split);
}

}  // namespace
}  // namespace halnorm::internal
