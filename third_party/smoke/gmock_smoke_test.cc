// Proves gMock (a separate Debian package) links.
#include "gmock/gmock.h"
#include "gtest/gtest.h"

TEST(GmockSmoke, Matchers) {
  EXPECT_THAT((std::vector<int>{1, 2, 3}), ::testing::ElementsAre(1, 2, 3));
}
