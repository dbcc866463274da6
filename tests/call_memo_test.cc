// The per-thread memo of what a call works out from its tensors' geometry
// (runtime/call_memo.h): the memo and its keys, and forward and backward
// calls through the C API that find their geometry remembered. Those must still check
// what depends on the data and the options' values, run on their own data,
// and follow a tuning file loaded in between. (HALNORM_VERBOSE is unset
// here: with it on, calls bypass the memo.)
#include "runtime/call_memo.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/tuning_buckets.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tests/api_error_matchers.h"
#include "tests/test_tensors.h"
#include "tests/tuning_test_support.h"

namespace halnorm::internal {
namespace {

using testutil::LastError;
using testutil::NamesArgument;
using testutil::TestTensor;
using ::testing::HasSubstr;

struct SmallKey {
  int32_t a, b;
};

TEST(CallMemoTest, FindsWhatWasRememberedAndReplacesTheOldest) {
  CallMemo<SmallKey, int, 2> memo;
  EXPECT_EQ(memo.Find({1, 2}), nullptr);
  memo.Remember({1, 2}, 10);
  memo.Remember({3, 4}, 20);
  ASSERT_NE(memo.Find({1, 2}), nullptr);
  EXPECT_EQ(*memo.Find({1, 2}), 10);
  EXPECT_EQ(*memo.Find({3, 4}), 20);
  EXPECT_EQ(memo.Find({2, 1}), nullptr);
  memo.Remember({5, 6}, 30);
  EXPECT_EQ(memo.Find({1, 2}), nullptr);
  EXPECT_EQ(*memo.Find({3, 4}), 20);
  EXPECT_EQ(*memo.Find({5, 6}), 30);
}

bool SameBytes(const TensorGeometry& a, const TensorGeometry& b) {
  return std::memcmp(&a, &b, sizeof(TensorGeometry)) == 0;
}

TEST(TensorGeometryTest, IgnoresTheDataAndWhatLiesPastTheRank) {
  float first[32], second[32];
  halnorm_tensor a = {first, HALNORM_F32, HALNORM_CPU, 2, {4, 8}, {8, 1}};
  halnorm_tensor b = a;
  b.data = second;
  b.shape[3] = 99;  // past the rank: a caller need not clear it
  b.strides[2] = 7;
  EXPECT_TRUE(SameBytes(TensorGeometry::Of(&a), TensorGeometry::Of(&b)));

  for (auto change : {+[](halnorm_tensor& t) { t.strides[0] = 16; },
                      +[](halnorm_tensor& t) { t.shape[1] = 4; },
                      +[](halnorm_tensor& t) { t.dtype = HALNORM_BF16; },
                      +[](halnorm_tensor& t) { t.rank = 3; }}) {
    halnorm_tensor c = a;
    change(c);
    EXPECT_FALSE(SameBytes(TensorGeometry::Of(&a), TensorGeometry::Of(&c)));
  }
  EXPECT_FALSE(SameBytes(TensorGeometry::Of(nullptr), TensorGeometry::Of(&a)));
  EXPECT_TRUE(SameBytes(TensorGeometry::Of(nullptr), TensorGeometry{}));
}

constexpr int64_t kRows = 4, kHidden = 768;

TestTensor RandomRows(uint32_t seed) {
  TestTensor t({kRows, kHidden});
  testutil::FillNormal(t, seed, 0.5, 2.0);
  return t;
}

class RememberedCallTest : public ::testing::Test {
 protected:
  RememberedCallTest()
      : weight_({kHidden}), bias_({kHidden}), mean_({kRows}), rstd_({kRows}) {
    testutil::FillNormal(weight_, 7, 1.0, 0.5);
    testutil::FillNormal(bias_, 8);
    halnorm_norm_options_init(&options_);
  }
  void TearDown() override { halnorm_load_tuning_file(nullptr); }

  // LayerNorm forward of x into y, with every optional tensor given;
  // `variant` forces a kernel (through the internal API, which the memo
  // leaves alone).
  int Forward(const halnorm_tensor& x, halnorm_tensor& y, const Variant* variant = nullptr) {
    if (variant != nullptr) {
      return LayerNormForward(&x, weight_.view(), bias_.view(), &options_, &y, mean_.view(),
                              rstd_.view(), variant)
                     .ok()
                 ? HALNORM_OK
                 : HALNORM_ERROR_INVALID_ARGUMENT;
    }
    return halnorm_layer_norm_forward(&x, weight_.view(), bias_.view(), &options_, &y,
                                      mean_.view(), rstd_.view());
  }

  // y for x from a thread that has remembered nothing.
  TestTensor OnAFreshThread(const halnorm_tensor& x) {
    TestTensor y({kRows, kHidden});
    int status = -1;
    std::thread([&] { status = Forward(x, *y.view()); }).join();
    EXPECT_EQ(status, HALNORM_OK);
    return y;
  }

  TestTensor weight_, bias_, mean_, rstd_;
  halnorm_norm_options options_;
};

TEST_F(RememberedCallTest, RunsEachCallOnItsOwnData) {
  TestTensor x1 = RandomRows(1), x2 = RandomRows(2);
  TestTensor y1({kRows, kHidden}), y2({kRows, kHidden});
  ASSERT_EQ(Forward(*x1.view(), *y1.view()), HALNORM_OK);  // remembered
  ASSERT_EQ(Forward(*x2.view(), *y2.view()), HALNORM_OK);  // found
  EXPECT_EQ(y2.bytes(), OnAFreshThread(*x2.view()).bytes());
  EXPECT_NE(y1.bytes(), y2.bytes());

  // The options' values are read from each call too.
  options_.eps = 10.f;
  TestTensor y_wide_eps({kRows, kHidden});
  ASSERT_EQ(Forward(*x2.view(), *y_wide_eps.view()), HALNORM_OK);
  EXPECT_NE(y_wide_eps.bytes(), y2.bytes());
  EXPECT_EQ(y_wide_eps.bytes(), OnAFreshThread(*x2.view()).bytes());
}

TEST_F(RememberedCallTest, StillChecksTheDataAndTheOptionValues) {
  TestTensor x = RandomRows(3);
  TestTensor y({kRows, kHidden});
  ASSERT_EQ(Forward(*x.view(), *y.view()), HALNORM_OK);
  const std::vector<uint8_t> x_before = x.bytes(), y_before = y.bytes();

  halnorm_tensor y_over_x = *x.view();  // the same geometry as y
  EXPECT_EQ(Forward(*x.view(), y_over_x), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("overlaps"));
  EXPECT_THAT(LastError(), NamesArgument("y"));

  halnorm_tensor y_without_data = *y.view();
  y_without_data.data = nullptr;
  EXPECT_EQ(Forward(*x.view(), y_without_data), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("y: data is null"));

  options_.eps = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Forward(*x.view(), *y.view()), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("opt->eps"));
  options_.eps = 1e-5f;
  options_.weight_offset = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Forward(*x.view(), *y.view()), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("opt->weight_offset"));

  // Refused calls write nothing.
  EXPECT_EQ(x.bytes(), x_before);
  EXPECT_EQ(y.bytes(), y_before);
}

TEST_F(RememberedCallTest, BackwardRunsOnItsOwnDataAndStillChecksIt) {
  struct Grads {
    TestTensor dx{std::vector<int64_t>{kRows, kHidden}}, dweight{std::vector<int64_t>{kHidden}},
        dbias{std::vector<int64_t>{kHidden}};
  };
  // The backward of dy at x, with the statistics of x's forward.
  auto backward = [&](TestTensor& x, const TestTensor& dy, Grads& g, halnorm_tensor* dx = nullptr) {
    TestTensor y({kRows, kHidden});
    EXPECT_EQ(Forward(*x.view(), *y.view()), HALNORM_OK);
    return halnorm_layer_norm_backward(dy.view(), x.view(), mean_.view(), rstd_.view(),
                                       weight_.view(), &options_, dx ? dx : g.dx.view(),
                                       g.dweight.view(), g.dbias.view());
  };
  TestTensor x1 = RandomRows(5), x2 = RandomRows(6), dy1 = RandomRows(7), dy2 = RandomRows(8);
  Grads first, second, fresh;
  ASSERT_EQ(backward(x1, dy1, first), HALNORM_OK);   // remembered
  ASSERT_EQ(backward(x2, dy2, second), HALNORM_OK);  // found
  int fresh_status = -1;
  std::thread([&] { fresh_status = backward(x2, dy2, fresh); }).join();
  ASSERT_EQ(fresh_status, HALNORM_OK);
  EXPECT_EQ(second.dx.bytes(), fresh.dx.bytes());
  EXPECT_EQ(second.dweight.bytes(), fresh.dweight.bytes());
  EXPECT_EQ(second.dbias.bytes(), fresh.dbias.bytes());
  EXPECT_NE(first.dx.bytes(), second.dx.bytes());

  halnorm_tensor dx_over_dy = *dy2.view();
  EXPECT_EQ(backward(x2, dy2, second, &dx_over_dy), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("dx: overlaps dy"));
  halnorm_tensor dx_without_data = *second.dx.view();
  dx_without_data.data = nullptr;
  EXPECT_EQ(backward(x2, dy2, second, &dx_without_data), HALNORM_ERROR_INVALID_ARGUMENT);
  EXPECT_THAT(LastError(), HasSubstr("dx: data is null"));
}

TEST_F(RememberedCallTest, FollowsATuningFileLoadedInBetween) {
  const VariantKind kind{Op::kLayerNorm, Direction::kForward, HALNORM_F32, false};
  const VariantIndex& index = VariantIndex::Get();
  const int target = index.DispatchTarget(kind);
  TestTensor x = RandomRows(4);
  // Each config's y, forced; dispatch's picks are told apart by them.
  std::vector<TestTensor> by_config;
  for (int c = 0; c < testutil::ConfigCount(kind, target); c++) {
    by_config.emplace_back(std::vector<int64_t>{kRows, kHidden});
    ASSERT_EQ(Forward(*x.view(), *by_config.back().view(), index.Find(kind, target, c)),
              HALNORM_OK);
  }
  std::optional<std::pair<int, int>> differing;
  for (int i = 0; i < static_cast<int>(by_config.size()) && !differing; i++) {
    for (int j = 0; j < i && !differing; j++) {
      if (by_config[i].bytes() != by_config[j].bytes()) differing = {i, j};
    }
  }
  if (!differing) GTEST_SKIP() << "no two configs of this target differ in their results here";

  for (int config : {differing->first, differing->second}) {
    TuningFile file;
    file.entries.push_back({HiddenBucket(Op::kLayerNorm, kHidden), RowBucket(kRows),
                            index.Find(kind, target, config)});
    const std::string path =
        testutil::WriteTestFile("config" + std::to_string(config) + ".tuning", file.ToText());
    ASSERT_EQ(halnorm_load_tuning_file(path.c_str()), HALNORM_OK) << LastError();
    TestTensor y({kRows, kHidden});
    ASSERT_EQ(Forward(*x.view(), *y.view()), HALNORM_OK);
    EXPECT_EQ(y.bytes(), by_config[config].bytes()) << "config " << config;
  }
}

}  // namespace
}  // namespace halnorm::internal
