// Checks what dist_app (built outside Bazel from the //:dist tarball) wrote
// against the float64 reference, with the test suite's tolerance policy.
// dist_test.sh runs it with HALNORM_DIST_DUMP=<the directory dist_app wrote>.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/variant_registry.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;

// dist_app's shapes.
constexpr int64_t kRows = 48;
constexpr int64_t kHidden = 1000;

// Reads <dump>/<name>.f32, which must hold exactly `count` floats.
std::vector<float> Load(const std::string& name, int64_t count) {
  const char* dump = std::getenv("HALNORM_DIST_DUMP");
  EXPECT_NE(dump, nullptr) << "HALNORM_DIST_DUMP is not set";
  if (dump == nullptr) return {};
  std::string path = std::string(dump) + "/" + name + ".f32";
  FILE* f = std::fopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << "cannot open " << path;
  if (f == nullptr) return {};
  std::vector<float> values(count + 1);  // one more: a longer file must fail
  size_t read = std::fread(values.data(), sizeof(float), values.size(), f);
  std::fclose(f);
  EXPECT_EQ(read, static_cast<size_t>(count)) << path << " has the wrong size";
  values.resize(count);
  return values;
}

std::vector<double> Widen(const std::vector<float>& values) {
  return std::vector<double>(values.begin(), values.end());
}

void ExpectMatches(const std::string& name, const std::vector<double>& ref, double tol) {
  testutil::ExpectClose(Load(name, ref.size()), ref, tol, name);
}

class DistAppTest : public testing::TestWithParam<Op> {};

TEST_P(DistAppTest, MatchesTheReference) {
  const Op op = GetParam();
  const std::string prefix = op == Op::kLayerNorm ? "layer_norm_" : "rms_norm_";
  const auto x = Widen(Load("x", kRows * kHidden));
  const auto dy = Widen(Load("dy", kRows * kHidden));
  const auto weight = Widen(Load("weight", kHidden));
  const auto bias = Widen(Load("bias", kHidden));

  reference::Options options;
  options.norm = op == Op::kLayerNorm ? reference::Norm::kLayerNorm : reference::Norm::kRmsNorm;
  reference::ForwardInputs forward{kRows, kHidden, x, {}, weight, {}};
  if (op == Op::kLayerNorm) forward.bias = bias;
  reference::ForwardResult want = reference::Forward(options, forward);
  const double forward_tol = testutil::Tolerance(op, Direction::kForward, HALNORM_F32);
  ExpectMatches(prefix + "y", want.y, forward_tol);
  ExpectMatches(prefix + "rstd", want.rstd, forward_tol);
  if (op == Op::kLayerNorm) ExpectMatches(prefix + "mean", want.mean, forward_tol);

  // The backward reference takes the statistics the library's forward gave,
  // as the library's backward did.
  const auto rstd = Widen(Load(prefix + "rstd", kRows));
  const auto mean = op == Op::kLayerNorm ? Widen(Load(prefix + "mean", kRows)) : std::vector<double>();
  reference::BackwardResult grads =
      reference::Backward(options, {kRows, kHidden, dy, x, mean, rstd, weight, {}});
  ExpectMatches(prefix + "dx", grads.dx, testutil::Tolerance(op, Direction::kBackward, HALNORM_F32));
  const double sum_tol = testutil::RowSumTolerance(op, Direction::kBackward, HALNORM_F32, kRows);
  ExpectMatches(prefix + "dweight", grads.dweight, sum_tol);
  if (op == Op::kLayerNorm) ExpectMatches(prefix + "dbias", grads.dbias, sum_tol);
}

INSTANTIATE_TEST_SUITE_P(Ops, DistAppTest, testing::Values(Op::kLayerNorm, Op::kRmsNorm),
                         [](const testing::TestParamInfo<Op>& info) {
                           return info.param == Op::kLayerNorm ? "LayerNorm" : "RmsNorm";
                         });

}  // namespace
}  // namespace halnorm
