// LayerNorm and RMSNorm at the edges of f32 arithmetic, on every CPU path:
// each forced variant this CPU runs (every AVX2/SSE4.1 config here) and the
// dispatched default. What each case gives is the documented behavior
// (README "Guarantees"); the float64 reference agrees except where a test
// says otherwise.
//   - eps = 0 and a constant row: variance 0, rstd = +inf, y = 0 * inf = NaN
//     (as PyTorch); mean is exact. With eps > 0 the row gives y = bias exactly.
//   - inf in a row: LayerNorm y and rstd NaN; mean +-inf, or NaN when the
//     row's first 16 elements (its shift) hold an inf or infs of both signs
//     meet. RMSNorm: rstd = 0, y NaN at the infinite elements, +-0 elsewhere.
//     A NaN makes its whole row NaN. No other row changes.
//   - Subnormal inputs and outputs are kept (no FTZ/DAZ in the kernels).
//   - Large 16-bit values whose squares overflow f16 are fine (f32 sums);
//     rows whose sum of squares overflows f32 (|x| >~ 1.8e19 / sqrt(N))
//     give rstd = 0 and y = bias (LayerNorm) or +-0 (RMSNorm), as PyTorch.
//   - Backward of a row with rstd = inf: its dx row is NaN, and so is every
//     column of dweight (it sums dy * xhat over rows); dbias stays finite.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/variant_registry.h"
#include "tests/edge_values.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/test_tensors.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;
using testutil::Gather;
using testutil::GatherDouble;
using testutil::TestTensor;

// One way a call runs: a forced variant, or dispatch (variant == nullptr).
struct Path {
  const Variant* variant;
  Op op;
  halnorm_dtype dtype;
  std::string name;
};

void PrintTo(const Path& path, std::ostream* os) { *os << path.name; }

// Every CPU LayerNorm/RMSNorm variant of `direction` (not the fused-residual
// ones: a residual would make the crafted rows non-constant; nor the
// native-params ones: the weights here are f32), then dispatch for each
// (op, dtype).
std::vector<Path> Paths(Direction direction) {
  std::vector<Path> paths;
  for (const Variant& v : internal::AllVariants()) {
    if ((v.op == Op::kLayerNorm || v.op == Op::kRmsNorm) && v.direction == direction &&
        v.device == internal::Device::kCpu && !v.fused_residual && !v.native_params) {
      paths.push_back({&v, v.op, v.dtype, v.name});
    }
  }
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
      paths.push_back(
          {nullptr, op, dtype,
           absl::StrCat("dispatched_", internal::OpName(op), "_", internal::DtypeName(dtype))});
    }
  }
  return paths;
}

std::string PathName(const ::testing::TestParamInfo<Path>& info) { return info.param.name; }

class PathTest : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    const Variant* v = GetParam().variant;
    if (v != nullptr && !internal::HostSupports(v->isa)) {
      GTEST_SKIP() << "CPU lacks " << internal::IsaName(v->isa);
    }
  }
  bool layer() const { return GetParam().op == Op::kLayerNorm; }
  halnorm_dtype dtype() const { return GetParam().dtype; }
  double Tol(Direction direction) const {
    return testutil::Tolerance(GetParam().op, direction, dtype());
  }
};

reference::Options ReferenceOptions(Op op, double eps) {
  reference::Options options;
  options.norm = op == Op::kLayerNorm ? reference::Norm::kLayerNorm : reference::Norm::kRmsNorm;
  options.eps = eps;
  return options;
}

// A [rows, hidden] forward call on x values the test sets; f32 weight (and
// bias) around 1 (and 0), or none.
struct ForwardCall {
  ForwardCall(const Path& path, int64_t rows, int64_t hidden, std::vector<float> x_values,
              bool affine = true)
      : path(path),
        rows(rows),
        hidden(hidden),
        x({rows, hidden}, {}, 0, path.dtype),
        y({rows, hidden}, {}, 0, path.dtype),
        mean({rows}),
        rstd({rows}) {
    testutil::Scatter(x_values, x);
    if (affine) {
      weight.emplace(std::vector<int64_t>{hidden});
      testutil::FillNormal(*weight, /*seed=*/2, /*offset=*/1.0, /*scale=*/0.5);
      if (path.op == Op::kLayerNorm) {
        bias.emplace(std::vector<int64_t>{hidden});
        testutil::FillNormal(*bias, /*seed=*/3, /*offset=*/0.0, /*scale=*/0.5);
      }
    }
  }

  absl::Status Run(float eps) {
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    opt.eps = eps;
    if (path.op == Op::kRmsNorm) {
      return internal::RmsNormForward(x.view(), testutil::ViewOrNull(weight), &opt, y.view(),
                                      rstd.view(), path.variant);
    }
    return internal::LayerNormForward(x.view(), testutil::ViewOrNull(weight),
                                      testutil::ViewOrNull(bias), &opt, y.view(), mean.view(),
                                      rstd.view(), path.variant);
  }

  reference::ForwardResult Expected(float eps) const {
    const std::vector<double> xs = GatherDouble(*x.view());
    const std::vector<double> w = weight ? GatherDouble(*weight->view()) : std::vector<double>{};
    const std::vector<double> b = bias ? GatherDouble(*bias->view()) : std::vector<double>{};
    return reference::Forward(ReferenceOptions(path.op, eps), {rows, hidden, xs, {}, w, b});
  }

  // Row r of y.
  std::vector<float> YRow(int64_t r) const {
    const std::vector<float> all = Gather(*y.view());
    return {all.begin() + r * hidden, all.begin() + (r + 1) * hidden};
  }

  Path path;
  int64_t rows, hidden;
  TestTensor x, y, mean, rstd;
  std::optional<TestTensor> weight, bias;
};

// Rows past its first 16 elements (LayerNorm's shift) and of more than one
// 32-lane step plus a tail.
constexpr int64_t kHidden = 100;

std::vector<float> Noise(int64_t count, uint32_t seed, halnorm_dtype dtype, double scale = 1.0) {
  std::vector<float> values = testutil::RandomNormal(count, seed, 0.0, scale);
  for (float& v : values) v = testutil::RoundToDtype(v, dtype);
  return values;
}

void Fill(std::vector<float>& values, int64_t row, float value) {
  std::fill(values.begin() + row * kHidden, values.begin() + (row + 1) * kHidden, value);
}

using EdgeForwardTest = PathTest;

// eps = 0: a constant row (LayerNorm: 3; RMSNorm: 0, its only constant with
// zero mean square) has rstd = +inf and y = NaN; the others are untouched.
TEST_P(EdgeForwardTest, ZeroEpsConstantRowIsNanWithInfiniteRstd) {
  std::vector<float> x = Noise(3 * kHidden, 1, dtype());
  const float constant = layer() ? 3.f : 0.f;
  Fill(x, 0, constant);
  ForwardCall call(GetParam(), 3, kHidden, x);
  ASSERT_TRUE(call.Run(0.f).ok());
  const std::vector<float> rstd = Gather(*call.rstd.view());
  EXPECT_EQ(rstd[0], INFINITY);
  testutil::ExpectAllNan(call.YRow(0), "y of the constant row");
  testutil::ExpectAllWritten(call.y, "y");
  if (layer()) {
    EXPECT_EQ(Gather(*call.mean.view())[0], constant);
  }
  // The reference gives the same NaN and inf, and the other rows as usual.
  const reference::ForwardResult expected = call.Expected(0.f);
  testutil::ExpectClose(Gather(*call.y.view()), expected.y, Tol(Direction::kForward), "y");
  testutil::ExpectClose(rstd, expected.rstd, Tol(Direction::kForward), "rstd");
  if (layer()) {
    testutil::ExpectClose(Gather(*call.mean.view()), expected.mean, Tol(Direction::kForward),
                          "mean");
  }
}

// eps > 0: the same row is exactly bias (LayerNorm) or 0 (RMSNorm), with
// rstd = 1 / sqrt(eps). So the f32 bias checks the kernel's f16/bf16 store
// bit for bit: its rounding, at ties too, and NaN lanes (in both halves of
// a 16-lane vector, beside lanes that are not NaN).
TEST_P(EdgeForwardTest, PositiveEpsConstantRowIsExactlyBias) {
  std::vector<float> x = Noise(2 * kHidden, 1, dtype());
  Fill(x, 0, layer() ? 3.f : 0.f);
  ForwardCall call(GetParam(), 2, kHidden, x);
  std::vector<float> bias(kHidden, 0.f);
  if (layer()) {
    bias = Gather(*call.bias->view());
    // Halfway between two neighbours near 1: even below, even above.
    const float bf16_tie = std::ldexp(1.f, -8), f16_tie = std::ldexp(1.f, -11);
    const float ties[] = {1 + bf16_tie, 1 + 3 * bf16_tie, -1 - bf16_tie,
                          1 + f16_tie,  1 + 3 * f16_tie,  -1 - 3 * f16_tie};
    for (int k = 0; k < 6; k++) bias[16 * k + 1] = ties[k];
    bias[5] = bias[13] = bias[20] = std::nanf("");
    testutil::Scatter(bias, *call.bias);
  }
  constexpr float kEps = 1e-5f;
  ASSERT_TRUE(call.Run(kEps).ok());
  const std::vector<float> y = call.YRow(0);
  for (int64_t i = 0; i < kHidden; ++i) {
    if (std::isnan(bias[i])) {
      ASSERT_TRUE(std::isnan(y[i])) << "y[0][" << i << "]";
    } else {
      ASSERT_EQ(y[i], testutil::RoundToDtype(bias[i], dtype())) << "y[0][" << i << "]";
    }
  }
  EXPECT_NEAR(Gather(*call.rstd.view())[0], 1.0 / std::sqrt(double{kEps}), 1e-6 / std::sqrt(kEps));
}

// Infinities and a NaN in rows 0-4, row 5 clean.
TEST_P(EdgeForwardTest, NonFiniteRowsGiveTheDocumentedValues) {
  constexpr int64_t kRows = 6;
  std::vector<float> x = Noise(kRows * kHidden, 1, dtype());
  x[0 * kHidden + 40] = INFINITY;   // past the first 16
  x[1 * kHidden + 0] = INFINITY;    // within the first 16
  x[2 * kHidden + 99] = -INFINITY;  // the last element (a tail)
  x[3 * kHidden + 50] = INFINITY;   // both signs
  x[3 * kHidden + 60] = -INFINITY;
  x[4 * kHidden + 7] = NAN;
  ForwardCall call(GetParam(), kRows, kHidden, x);
  ASSERT_TRUE(call.Run(1e-5f).ok());
  testutil::ExpectAllWritten(call.y, "y");
  const std::vector<float> rstd = Gather(*call.rstd.view());
  const std::vector<float> mean = Gather(*call.mean.view());
  for (int64_t r = 0; r < 5; ++r) {
    SCOPED_TRACE(absl::StrCat("row ", r));
    const std::vector<float> y = call.YRow(r);
    if (layer() || r == 4) {
      EXPECT_TRUE(std::isnan(rstd[r])) << rstd[r];
      testutil::ExpectAllNan(y, "y");
      continue;
    }
    // RMSNorm: sum of squares inf, so rstd = 1/sqrt(inf) = 0 and y = x * 0.
    EXPECT_EQ(rstd[r], 0.f);
    for (int64_t i = 0; i < kHidden; ++i) {
      if (std::isinf(x[r * kHidden + i])) {
        EXPECT_TRUE(std::isnan(y[i])) << "y[" << i << "] = " << y[i];
      } else {
        EXPECT_EQ(y[i], 0.f) << "y[" << i << "]";
      }
    }
  }
  if (layer()) {
    EXPECT_EQ(mean[0], INFINITY);
    EXPECT_TRUE(std::isnan(mean[1])) << mean[1];
    EXPECT_EQ(mean[2], -INFINITY);
    EXPECT_TRUE(std::isnan(mean[3])) << mean[3];
    EXPECT_TRUE(std::isnan(mean[4])) << mean[4];
  }
  // The clean row is exactly what it is without the others.
  ForwardCall alone(GetParam(), 1, kHidden, std::vector<float>(x.begin() + 5 * kHidden, x.end()));
  ASSERT_TRUE(alone.Run(1e-5f).ok());
  EXPECT_EQ(call.YRow(5), alone.YRow(0));
  EXPECT_EQ(rstd[5], Gather(*alone.rstd.view())[0]);
}

// Subnormal inputs (f32 and bf16 x ~ 1e-39, f16 x ~ 1e-5), and outputs
// scaled by the weight into the subnormals (y ~ 3e-40, 3e-40, 3e-5).
// Flushing either to zero fails.
TEST_P(EdgeForwardTest, SubnormalsAreNotFlushed) {
  const double x_scale = dtype() == HALNORM_F16 ? 1e-5 : 1e-39;
  const float weight = dtype() == HALNORM_F16 ? 1e-2f : 1e-3f;
  constexpr int64_t kRows = 4;
  ForwardCall call(GetParam(), kRows, kHidden, Noise(kRows * kHidden, 7, dtype(), x_scale),
                   /*affine=*/false);
  call.weight.emplace(std::vector<int64_t>{kHidden});
  testutil::Scatter(std::vector<float>(kHidden, weight), *call.weight);
  ASSERT_GT(testutil::CountSubnormal(Gather(*call.x.view()), dtype()), kRows * kHidden / 2);
  ASSERT_TRUE(call.Run(1e-5f).ok());
  const reference::ForwardResult expected = call.Expected(1e-5f);
  const double rel = Tol(Direction::kForward);
  EXPECT_GT(testutil::ExpectCloseNotFlushed(Gather(*call.y.view()), expected.y, rel, dtype(), "y"),
            kRows * kHidden / 2)
      << "most outputs must be subnormal";
  testutil::ExpectClose(Gather(*call.rstd.view()), expected.rstd, rel, "rstd");
  if (layer()) {
    testutil::ExpectCloseNotFlushed(Gather(*call.mean.view()), expected.mean, rel, HALNORM_F32,
                                    "mean");
  }
}

// 16-bit values whose squares overflow their own dtype (f16: |x| up to
// 65000, x^2 ~ 4e9 > 65504; bf16: |x| ~ 1e15, N x^2 ~ 1e32 is still within
// f32) accumulate in f32: finite and within the usual tolerance. Row 1 is a
// large common offset (cancellation).
TEST_P(EdgeForwardTest, LargeValuesAccumulateInF32) {
  if (dtype() == HALNORM_F32) GTEST_SKIP() << "f32: see SumOfSquaresBeyondF32";
  constexpr int64_t kRows = 3, kWide = 4099;
  const bool f16 = dtype() == HALNORM_F16;
  std::vector<float> x =
      testutil::LargeMagnitudes(kRows * kWide, f16 ? 30000 : 1e14, f16 ? 65000 : 1e15, 11, dtype());
  for (int64_t i = 0; i < kWide; ++i) {
    // f16: 60000 + multiples of its spacing (32) there.
    const float offset = f16 ? 60000.f + 32.f * (i % 50) : 1e15f + 1e13f * (i % 50);
    x[kWide + i] = testutil::RoundToDtype(offset, dtype());
  }
  ForwardCall call(GetParam(), kRows, kWide, x);
  ASSERT_TRUE(call.Run(1e-5f).ok());
  const reference::ForwardResult expected = call.Expected(1e-5f);
  const double tol = Tol(Direction::kForward);
  testutil::ExpectClose(Gather(*call.y.view()), expected.y, tol, "y");
  testutil::ExpectClose(Gather(*call.rstd.view()), expected.rstd, tol, "rstd");
  if (layer()) testutil::ExpectClose(Gather(*call.mean.view()), expected.mean, tol, "mean");
}

// f32 and bf16 rows of |x| ~ 3e19: each square is past FLT_MAX, the sum is
// inf, rstd = 1/sqrt(inf) = 0 and y = 0 * w + bias: exactly bias
// (LayerNorm) or +-0 (RMSNorm). PyTorch's f32 kernels give the same; the
// float64 reference does not overflow (this is a documented limit).
TEST_P(EdgeForwardTest, SumOfSquaresBeyondF32GivesZeroRstd) {
  if (dtype() == HALNORM_F16) GTEST_SKIP() << "f16 values cannot get there";
  std::vector<float> x = testutil::LargeMagnitudes(2 * kHidden, 2e19, 4e19, 5, dtype());
  ForwardCall call(GetParam(), 2, kHidden, x);
  ASSERT_TRUE(call.Run(1e-5f).ok());
  const std::vector<float> rstd = Gather(*call.rstd.view());
  const std::vector<float> y = Gather(*call.y.view());
  const std::vector<float> bias =
      layer() ? Gather(*call.bias->view()) : std::vector<float>(kHidden, 0.f);
  for (int64_t r = 0; r < 2; ++r) {
    EXPECT_EQ(rstd[r], 0.f) << "row " << r;
    for (int64_t i = 0; i < kHidden; ++i) {
      ASSERT_EQ(y[r * kHidden + i], testutil::RoundToDtype(bias[i], dtype()))
          << "y[" << r << "][" << i << "]";
    }
  }
  if (layer()) {
    // The mean itself is finite and right: only the squares overflow.
    testutil::ExpectClose(Gather(*call.mean.view()), call.Expected(1e-5f).mean,
                          Tol(Direction::kForward), "mean");
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCpuPath, EdgeForwardTest,
                         ::testing::ValuesIn(Paths(Direction::kForward)), PathName);

// A backward call on x values the test sets: mean/rstd are the float64
// forward's with `stats_eps`, rounded to f32 as a forward kernel stores them.
struct BackwardCall {
  BackwardCall(const Path& path, int64_t rows, int64_t hidden, const std::vector<float>& x_values,
               const std::vector<float>& dy_values, float stats_eps)
      : path(path),
        rows(rows),
        hidden(hidden),
        dy({rows, hidden}, {}, 0, path.dtype),
        x({rows, hidden}, {}, 0, path.dtype),
        mean({rows}),
        rstd({rows}),
        weight({hidden}),
        dx({rows, hidden}, {}, 0, path.dtype),
        dweight({hidden}),
        dbias({hidden}) {
    testutil::Scatter(x_values, x);
    testutil::Scatter(dy_values, dy);
    testutil::FillNormal(weight, /*seed=*/2, /*offset=*/1.0, /*scale=*/0.5);
    const std::vector<double> xs = GatherDouble(*x.view());
    const reference::ForwardResult stats =
        reference::Forward(ReferenceOptions(path.op, stats_eps), {rows, hidden, xs});
    if (path.op == Op::kLayerNorm) {
      testutil::Scatter(std::vector<float>(stats.mean.begin(), stats.mean.end()), mean);
    }
    testutil::Scatter(std::vector<float>(stats.rstd.begin(), stats.rstd.end()), rstd);
  }

  absl::Status Run() {
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    if (path.op == Op::kRmsNorm) {
      return internal::RmsNormBackward(dy.view(), x.view(), rstd.view(), weight.view(), &opt,
                                       dx.view(), dweight.view(), path.variant);
    }
    return internal::LayerNormBackward(dy.view(), x.view(), mean.view(), rstd.view(), weight.view(),
                                       &opt, dx.view(), dweight.view(), dbias.view(), path.variant);
  }

  reference::BackwardResult Expected() const {
    const std::vector<double> dys = GatherDouble(*dy.view()), xs = GatherDouble(*x.view());
    const std::vector<double> means = GatherDouble(*mean.view());
    const std::vector<double> rstds = GatherDouble(*rstd.view());
    const std::vector<double> w = GatherDouble(*weight.view());
    const bool layer = path.op == Op::kLayerNorm;
    return reference::Backward(
        ReferenceOptions(path.op, 0.0),
        {rows, hidden, dys, xs, layer ? means : std::vector<double>{}, rstds, w});
  }

  Path path;
  int64_t rows, hidden;
  TestTensor dy, x, mean, rstd, weight, dx, dweight, dbias;
};

using EdgeBackwardTest = PathTest;

// rstd = +inf (a constant row's, eps = 0): xhat = 0 * inf = NaN on that row,
// so its dx row is NaN and every column of dweight (summed over rows) is
// NaN; dbias (sum of dy) and the other rows of dx are unaffected.
TEST_P(EdgeBackwardTest, InfiniteRstdRowPoisonsItsDxRowAndAllOfDweight) {
  constexpr int64_t kRows = 3;
  std::vector<float> x = Noise(kRows * kHidden, 1, dtype());
  Fill(x, 1, layer() ? 3.f : 0.f);
  BackwardCall call(GetParam(), kRows, kHidden, x, Noise(kRows * kHidden, 5, dtype()), 0.f);
  ASSERT_EQ(Gather(*call.rstd.view())[1], INFINITY);
  ASSERT_TRUE(call.Run().ok());
  testutil::ExpectAllWritten(call.dx, "dx");
  testutil::ExpectAllWritten(call.dweight, "dweight");
  const std::vector<float> dx = Gather(*call.dx.view());
  testutil::ExpectAllNan(absl::MakeConstSpan(dx).subspan(kHidden, kHidden), "dx row 1");
  testutil::ExpectAllNan(Gather(*call.dweight.view()), "dweight");
  // The reference agrees, NaNs included, on everything.
  const reference::BackwardResult expected = call.Expected();
  const double tol = Tol(Direction::kBackward);
  testutil::ExpectClose(dx, expected.dx, tol, "dx");
  testutil::ExpectClose(Gather(*call.dweight.view()), expected.dweight, tol, "dweight");
  if (layer()) {
    testutil::ExpectClose(
        Gather(*call.dbias.view()), expected.dbias,
        testutil::RowSumTolerance(GetParam().op, Direction::kBackward, dtype(), kRows), "dbias");
  }
}

// Subnormal gradients (f32 and bf16 dy ~ 1e-39, f16 ~ 1e-5) give subnormal
// dx (and f32 dweight/dbias sums of subnormals), not zeros.
TEST_P(EdgeBackwardTest, SubnormalGradientsAreNotFlushed) {
  const double dy_scale = dtype() == HALNORM_F16 ? 1e-5 : 1e-39;
  constexpr int64_t kRows = 4;
  BackwardCall call(GetParam(), kRows, kHidden, Noise(kRows * kHidden, 1, dtype()),
                    Noise(kRows * kHidden, 5, dtype(), dy_scale), 1e-5f);
  ASSERT_TRUE(call.Run().ok());
  const reference::BackwardResult expected = call.Expected();
  const double rel = Tol(Direction::kBackward);
  const double sum_rel =
      testutil::RowSumTolerance(GetParam().op, Direction::kBackward, dtype(), kRows);
  EXPECT_GT(
      testutil::ExpectCloseNotFlushed(Gather(*call.dx.view()), expected.dx, rel, dtype(), "dx"),
      kRows * kHidden / 2)
      << "most of dx must be subnormal";
  // dweight/dbias are f32 sums of f32 products.
  const halnorm_dtype f32 = HALNORM_F32;
  testutil::ExpectCloseNotFlushed(Gather(*call.dweight.view()), expected.dweight, sum_rel, f32,
                                  "dweight");
  if (layer()) {
    testutil::ExpectCloseNotFlushed(Gather(*call.dbias.view()), expected.dbias, sum_rel, f32,
                                    "dbias");
  }
}

// f16 x up to 65000 (x^2 beyond f16) and bf16 x ~ 1e15: dx within the usual
// tolerance (the statistics are f32; rstd ~ 1e-5 and ~1e-15 are normal f32).
TEST_P(EdgeBackwardTest, LargeValuesAccumulateInF32) {
  if (dtype() == HALNORM_F32) GTEST_SKIP() << "nothing to overflow in f32 at these values";
  constexpr int64_t kRows = 3, kWide = 4099;
  const bool f16 = dtype() == HALNORM_F16;
  BackwardCall call(
      GetParam(), kRows, kWide,
      testutil::LargeMagnitudes(kRows * kWide, f16 ? 30000 : 1e14, f16 ? 65000 : 1e15, 11, dtype()),
      Noise(kRows * kWide, 5, dtype()), 1e-5f);
  ASSERT_TRUE(call.Run().ok());
  const reference::BackwardResult expected = call.Expected();
  testutil::ExpectClose(Gather(*call.dx.view()), expected.dx, Tol(Direction::kBackward), "dx");
  const double sum_tol =
      testutil::RowSumTolerance(GetParam().op, Direction::kBackward, dtype(), kRows);
  testutil::ExpectClose(Gather(*call.dweight.view()), expected.dweight, sum_tol, "dweight");
  if (layer()) {
    testutil::ExpectClose(Gather(*call.dbias.view()), expected.dbias, sum_tol, "dbias");
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCpuPath, EdgeBackwardTest,
                         ::testing::ValuesIn(Paths(Direction::kBackward)), PathName);

}  // namespace
}  // namespace halnorm
