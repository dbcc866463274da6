#include "tests/tolerance.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace halnorm::testutil {
namespace {

// Error of one element in units of (|ref| + 1); infinite when it cannot match.
double ScaledError(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(ref)) return got == ref ? 0.0 : std::numeric_limits<double>::infinity();
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  return std::abs(static_cast<double>(got) - ref) / (std::abs(ref) + 1.0);
}

}  // namespace

double Tolerance(internal::Op op, internal::Direction direction, halnorm_dtype dtype) {
  const bool forward = direction == internal::Direction::kForward;
  double f32_tolerance = 0.0;
  switch (op) {  // No default: adding an Op must add its policy here.
    case internal::Op::kLayerNorm:
    case internal::Op::kRmsNorm:
    case internal::Op::kLayerNorm2d:  // a LayerNorm over each normalized set
      f32_tolerance = forward ? 1e-5 : 2e-5;
      break;
  }
  if (dtype == HALNORM_F32) return f32_tolerance;
  return f32_tolerance + 2.0 * std::ldexp(1.0, -MantissaBits(dtype));
}

double RowSumTolerance(internal::Op op, internal::Direction direction, halnorm_dtype dtype,
                       int64_t rows) {
  return Tolerance(op, direction, dtype) * std::sqrt(std::max<double>(rows, 1));
}

double ExpectClose(absl::Span<const float> got, absl::Span<const double> ref, double tol,
                   absl::string_view context) {
  if (got.size() != ref.size()) {
    ADD_FAILURE() << context << ": got " << got.size() << " elements, reference has " << ref.size();
    return std::numeric_limits<double>::infinity();
  }
  int64_t failures = 0;
  size_t worst = 0;
  double worst_error = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double error = ScaledError(got[i], ref[i]);
    if (error > tol) ++failures;
    if (error > worst_error) {
      worst_error = error;
      worst = i;
    }
  }
  if (failures == 0) return worst_error;
  ADD_FAILURE() << absl::StrFormat(
      "%s: %d of %d elements exceed tol %g (error relative to |ref|+1); worst at [%d]: "
      "got %.9g, ref %.17g, error %g",
      context, failures, got.size(), tol, worst, got[worst], ref[worst], worst_error);
  return worst_error;
}

void ExpectCloseOutsidePoisoned(absl::Span<const float> got, absl::Span<const double> ref,
                                int64_t group_size, absl::Span<const int64_t> poisoned, double tol,
                                absl::string_view context) {
  ASSERT_EQ(got.size(), ref.size()) << context;
  std::vector<float> clean_got;
  std::vector<double> clean_ref;
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t group = static_cast<int64_t>(i) / group_size;
    if (std::find(poisoned.begin(), poisoned.end(), group) == poisoned.end()) {
      clean_got.push_back(got[i]);
      clean_ref.push_back(ref[i]);
    } else if (!std::isfinite(ref[i])) {
      EXPECT_FALSE(std::isfinite(got[i]))
          << context << "[" << i << "]: got " << got[i] << " where the reference has " << ref[i];
    }
  }
  ExpectClose(clean_got, clean_ref, tol, absl::StrCat(context, " (outside poisoned groups)"));
}

void ExpectAllNan(absl::Span<const float> got, absl::string_view context) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isnan(got[i])) {
      ADD_FAILURE() << context << "[" << i << "]: got " << got[i] << ", want NaN";
      return;
    }
  }
}

}  // namespace halnorm::testutil
