#include "tests/edge_values.h"

#include <cmath>
#include <random>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace halnorm::testutil {

double SmallestSubnormal(halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32:
      return std::ldexp(1.0, -149);
    case HALNORM_F16:
      return std::ldexp(1.0, -24);
    case HALNORM_BF16:
      return std::ldexp(1.0, -133);
  }
  return 0.0;
}

double SmallestNormal(halnorm_dtype dtype) {
  return dtype == HALNORM_F16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
}

int64_t ExpectCloseNotFlushed(absl::Span<const float> got, absl::Span<const double> ref, double rel,
                              halnorm_dtype dtype, absl::string_view context) {
  EXPECT_EQ(got.size(), ref.size()) << context;
  const double allowance = 2 * SmallestSubnormal(dtype);
  int64_t subnormal_refs = 0, failures = 0;
  size_t first_failure = 0;
  for (size_t i = 0; i < got.size() && i < ref.size(); ++i) {
    const double error = std::abs(static_cast<double>(got[i]) - ref[i]);
    const bool flushed = got[i] == 0.f && std::abs(ref[i]) > allowance;
    if (!(error <= rel * std::abs(ref[i]) + allowance) || flushed) {
      if (failures++ == 0) first_failure = i;
    }
    subnormal_refs += ref[i] != 0.0 && std::abs(ref[i]) < SmallestNormal(dtype);
  }
  if (failures > 0) {
    ADD_FAILURE() << absl::StrFormat(
        "%s: %d of %d elements off by more than %g * |ref| + %g, or flushed to zero; first at "
        "[%d]: got %.9g, ref %.17g",
        context, failures, got.size(), rel, allowance, first_failure, got[first_failure],
        ref[first_failure]);
  }
  return subnormal_refs;
}

int64_t CountSubnormal(absl::Span<const float> values, halnorm_dtype dtype) {
  int64_t count = 0;
  for (float v : values) count += v != 0.f && std::abs(v) < SmallestNormal(dtype);
  return count;
}

std::vector<float> LargeMagnitudes(int64_t count, double low, double high, uint32_t seed,
                                   halnorm_dtype dtype) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> magnitude(low, high);
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) {
    const double sign = i % 2 == 0 ? 1.0 : -1.0;
    values[i] = RoundToDtype(static_cast<float>(sign * magnitude(generator)), dtype);
  }
  return values;
}

void ExpectAllWritten(const TestTensor& tensor, absl::string_view context) {
  int64_t unwritten = 0;
  for (int64_t offset : ElementOffsets(*tensor.view())) {
    unwritten += tensor.IsSentinel(tensor.data_offset() + offset);
  }
  EXPECT_EQ(unwritten, 0) << context << ": elements never written";
}

}  // namespace halnorm::testutil
