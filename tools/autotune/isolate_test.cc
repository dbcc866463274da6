#include "tools/autotune/isolate.h"

#include <csignal>
#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace halnorm::autotune {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;

TEST(RunIsolatedTest, ReturnsTheChildsResult) {
  CandidateResult r = RunIsolated([] { return CandidateResult{{1.5, 2.5}, "point 3: failed"}; });
  EXPECT_THAT(r.seconds, ElementsAre(1.5, 2.5));
  EXPECT_EQ(r.error, "point 3: failed");
}

TEST(RunIsolatedTest, AChildThatCrashesIsAnErrorNamingTheSignal) {
  CandidateResult r = RunIsolated([]() -> CandidateResult {
    std::raise(SIGFPE);
    return {{1.0}, ""};
  });
  EXPECT_TRUE(r.seconds.empty());
  EXPECT_THAT(r.error, HasSubstr("crashed: Floating point exception"));
}

TEST(RunIsolatedTest, AChildThatExitsEarlyIsAnError) {
  CandidateResult r = RunIsolated([]() -> CandidateResult { std::_Exit(7); });
  EXPECT_THAT(r.error, HasSubstr("exit status 7"));
}

}  // namespace
}  // namespace halnorm::autotune
