// Every compiled LayerNorm forward f32 variant against the float64 reference,
// on the shapes of layer_norm_forward_cases.cc; plus non-finite propagation,
// thread-count independence and the public (dispatching) entry point.
#include <cmath>
#include <cstring>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/layer_norm.h"
#include "runtime/variant_registry.h"
#include "tests/layer_norm_forward_cases.h"
#include "tests/layer_norm_forward_problem.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Variant;
using testutil::ForwardCase;
using testutil::ForwardProblem;

// Read from the registry, never listed by hand, so new variants are tested.
std::vector<const Variant*> LayerNormForwardF32Variants() {
  std::vector<const Variant*> variants;
  for (const Variant& variant : internal::AllVariants()) {
    if (variant.op == internal::Op::kLayerNorm &&
        variant.direction == internal::Direction::kForward && variant.dtype == HALNORM_F32) {
      variants.push_back(&variant);
    }
  }
  return variants;
}

std::string Sanitize(std::string name) {
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!keep) c = '_';
  }
  return name;
}

struct VariantAndCase {
  const Variant* variant;
  ForwardCase shape_case;
};

void PrintTo(const VariantAndCase& param, std::ostream* os) {
  *os << param.variant->name << " (" << param.variant->config << ") ";
  PrintTo(param.shape_case, os);
}

std::vector<VariantAndCase> AllVariantsAndCases() {
  std::vector<VariantAndCase> params;
  for (const Variant* variant : LayerNormForwardF32Variants()) {
    for (const ForwardCase& shape_case : testutil::LayerNormForwardCases()) {
      params.push_back({variant, shape_case});
    }
  }
  return params;
}

const Variant& VariantOf(const VariantAndCase& param) { return *param.variant; }
const Variant& VariantOf(const Variant* variant) { return *variant; }

// Skips variants whose ISA this CPU lacks; they are still compiled and listed.
template <typename Param>
class VariantTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const Variant& variant = VariantOf(this->GetParam());
    if (!internal::HostSupports(variant.isa)) {
      GTEST_SKIP() << "CPU lacks " << internal::IsaName(variant.isa);
    }
  }
};

using LayerNormForwardTest = VariantTest<VariantAndCase>;

TEST_P(LayerNormForwardTest, MatchesReference) {
  ForwardProblem problem(GetParam().shape_case);
  const absl::Status status = problem.Run(GetParam().variant);
  ASSERT_TRUE(status.ok()) << status;
  problem.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllShapes, LayerNormForwardTest,
                         ::testing::ValuesIn(AllVariantsAndCases()),
                         [](const ::testing::TestParamInfo<VariantAndCase>& info) {
                           return Sanitize(absl::StrCat(info.param.variant->name, "__",
                                                        info.param.shape_case.name));
                         });

using LayerNormForwardVariantTest = VariantTest<const Variant*>;

// An inf or NaN poisons its own row (all of y NaN, like PyTorch) and no other.
TEST_P(LayerNormForwardVariantTest, NonFiniteStaysInItsRow) {
  ForwardCase shape_case;
  shape_case.name = "non_finite";
  shape_case.shape = {5, 37};
  ForwardProblem problem(shape_case);
  constexpr int64_t kHidden = 37;
  std::vector<float>& x = problem.x().storage();  // contiguous
  x[1 * kHidden + 18] = INFINITY;                 // mid-row
  x[3 * kHidden + 0] = NAN;                       // the first element
  x[4 * kHidden + kHidden - 1] = -INFINITY;       // the last element (a vector tail)
  const absl::Status status = problem.Run(GetParam());
  ASSERT_TRUE(status.ok()) << status;

  const reference::LayerNormForwardResult expected = problem.Expected();
  const std::vector<float> y = testutil::Gather(*problem.y().view());
  const std::vector<float> mean = testutil::Gather(*problem.mean()->view());
  const std::vector<float> rstd = testutil::Gather(*problem.rstd()->view());
  const double tolerance =
      testutil::Tolerance(internal::Op::kLayerNorm, internal::Direction::kForward, HALNORM_F32);
  for (int64_t row : {0, 2}) {
    testutil::ExpectClose(absl::MakeConstSpan(y).subspan(row * kHidden, kHidden),
                          absl::MakeConstSpan(expected.y).subspan(row * kHidden, kHidden),
                          tolerance, absl::StrCat("finite row ", row, " y"));
    testutil::ExpectClose(absl::MakeConstSpan(mean).subspan(row, 1),
                          absl::MakeConstSpan(expected.mean).subspan(row, 1), tolerance,
                          absl::StrCat("finite row ", row, " mean"));
    testutil::ExpectClose(absl::MakeConstSpan(rstd).subspan(row, 1),
                          absl::MakeConstSpan(expected.rstd).subspan(row, 1), tolerance,
                          absl::StrCat("finite row ", row, " rstd"));
  }
  for (int64_t row : {1, 3, 4}) {
    int64_t not_nan = 0;
    for (int64_t i = 0; i < kHidden; ++i) not_nan += !std::isnan(y[row * kHidden + i]);
    EXPECT_EQ(not_nan, 0) << "row " << row << " has a non-finite input, yet " << not_nan
                          << " of its outputs are not NaN";
  }
}

// Rows are independent, so splitting them across threads must not change a bit.
TEST_P(LayerNormForwardVariantTest, ThreadCountDoesNotChangeResults) {
  ForwardCase shape_case;
  shape_case.name = "threads";
  shape_case.shape = {256, 1000};
  ForwardProblem one_thread(shape_case);
  ForwardProblem two_threads(shape_case);
  halnorm_set_num_threads(1);
  const absl::Status one_status = one_thread.Run(GetParam());
  halnorm_set_num_threads(2);
  const absl::Status two_status = two_threads.Run(GetParam());
  halnorm_set_num_threads(0);  // back to the default: one per core
  ASSERT_TRUE(one_status.ok()) << one_status;
  ASSERT_TRUE(two_status.ok()) << two_status;

  auto bits_equal = [](const testutil::TestTensor& a, const testutil::TestTensor& b) {
    const std::vector<float> va = testutil::Gather(*a.view());
    const std::vector<float> vb = testutil::Gather(*b.view());
    return va.size() == vb.size() &&
           std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)) == 0;
  };
  EXPECT_TRUE(bits_equal(one_thread.y(), two_threads.y())) << "y";
  EXPECT_TRUE(bits_equal(*one_thread.mean(), *two_threads.mean())) << "mean";
  EXPECT_TRUE(bits_equal(*one_thread.rstd(), *two_threads.rstd())) << "rstd";
  one_thread.ExpectMatchesReference();
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LayerNormForwardVariantTest,
                         ::testing::ValuesIn(LayerNormForwardF32Variants()),
                         [](const ::testing::TestParamInfo<const Variant*>& info) {
                           return Sanitize(info.param->name);
                         });

// Guards against a silently empty parameterization above.
TEST(LayerNormForwardRegistryTest, HasRunnableUniquelyNamedF32Variants) {
  const std::vector<const Variant*> variants = LayerNormForwardF32Variants();
  ASSERT_FALSE(variants.empty());
  std::set<std::string> names;
  bool any_runnable = false;
  for (const Variant* variant : variants) {
    EXPECT_TRUE(names.insert(Sanitize(variant->name)).second) << "duplicate " << variant->name;
    any_runnable |= internal::HostSupports(variant->isa);
  }
  EXPECT_TRUE(any_runnable) << "no LayerNorm forward f32 variant runs on this CPU";
}

// Forcing a variant this CPU cannot execute is an error, not SIGILL.
TEST(LayerNormForwardForcedVariantTest, VariantTheCpuLacksIsRefused) {
  int refused = 0;
  for (const Variant* variant : LayerNormForwardF32Variants()) {
    if (internal::HostSupports(variant->isa)) continue;
    ForwardCase shape_case;
    shape_case.name = "unsupported";
    shape_case.shape = {5, 33};
    ForwardProblem problem(shape_case);
    const absl::Status status = problem.Run(variant);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition)
        << variant->name << ": " << status;
    EXPECT_EQ(testutil::CountPaddingWrites(problem.y()), 0);
    EXPECT_TRUE(testutil::IsSentinel(testutil::Gather(*problem.y().view())[0])) << "y written";
    ++refused;
  }
  if (refused == 0) GTEST_SKIP() << "this CPU runs every variant";
}

// The C entry point dispatches to some variant; its result obeys the same contract.
TEST(LayerNormForwardPublicTest, DispatchedResultMatchesReference) {
  ForwardCase shape_case;
  shape_case.name = "public";
  shape_case.shape = {5, 768};
  shape_case.x_strides = {768 + 3, 1};
  shape_case.y_strides = {768 + 8, 1};
  ForwardProblem problem(shape_case);
  ASSERT_EQ(problem.RunPublic(), HALNORM_OK) << halnorm_last_error();
  problem.ExpectMatchesReference();
}

}  // namespace
}  // namespace halnorm
