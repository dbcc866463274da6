#include "tests/test_tensors.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

namespace halnorm::testutil {
namespace {

constexpr uint32_t kSentinelBits = 0x7fc0dead;

// A malformed helper call is a bug in the test: fail loudly, not subtly.
void Check(bool ok, const char* what) {
  if (ok) return;
  std::cerr << "test_tensors: " << what << "\n";
  std::abort();
}

}  // namespace

float SentinelNan() {
  float value;
  std::memcpy(&value, &kSentinelBits, sizeof(value));
  return value;
}

bool IsSentinel(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits == kSentinelBits;
}

int64_t NumElements(absl::Span<const int64_t> shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

std::vector<int64_t> ContiguousStrides(absl::Span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

TestTensor::TestTensor(absl::Span<const int64_t> shape, absl::Span<const int64_t> strides,
                       int64_t data_offset, float fill)
    : data_offset_(data_offset) {
  Check(shape.size() >= 1 && shape.size() <= 4, "rank must be 1..4");
  std::vector<int64_t> actual_strides = strides.empty()
                                            ? ContiguousStrides(shape)
                                            : std::vector<int64_t>(strides.begin(), strides.end());
  Check(actual_strides.size() == shape.size(), "strides and shape differ in rank");
  int64_t span = NumElements(shape) == 0 ? 0 : 1;  // 1 + the largest offset
  for (size_t d = 0; d < shape.size() && span > 0; ++d) {
    Check(actual_strides[d] >= 0, "negative stride");
    span += (shape[d] - 1) * actual_strides[d];
  }
  Check(data_offset >= 0, "negative data_offset");
  storage_.assign(data_offset + std::max(span, int64_t{1}), fill);
  view_ = {};
  view_.data = storage_.data() + data_offset;
  view_.dtype = HALNORM_F32;
  view_.device = HALNORM_CPU;
  view_.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    view_.shape[d] = shape[d];
    view_.strides[d] = actual_strides[d];
  }
}

std::vector<int64_t> ElementOffsets(const halnorm_tensor& view) {
  const absl::Span<const int64_t> shape(view.shape, view.rank);
  std::vector<int64_t> offsets;
  offsets.reserve(NumElements(shape));
  if (NumElements(shape) == 0) return offsets;
  std::vector<int64_t> index(view.rank, 0);  // odometer, last dim fastest
  while (true) {
    int64_t offset = 0;
    for (int d = 0; d < view.rank; ++d) offset += index[d] * view.strides[d];
    offsets.push_back(offset);
    int d = view.rank - 1;
    while (d >= 0 && ++index[d] == view.shape[d]) index[d--] = 0;
    if (d < 0) return offsets;
  }
}

std::vector<float> Gather(const halnorm_tensor& view) {
  Check(view.dtype == HALNORM_F32, "Gather reads f32 only");
  const float* data = static_cast<const float*>(view.data);
  std::vector<float> values;
  for (int64_t offset : ElementOffsets(view)) values.push_back(data[offset]);
  return values;
}

std::vector<float> RandomNormal(int64_t count, uint32_t seed, double offset, double scale) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> values(count);
  for (float& value : values) value = static_cast<float>(offset + scale * normal(generator));
  return values;
}

void FillNormal(TestTensor& tensor, uint32_t seed, double offset, double scale) {
  const std::vector<int64_t> offsets = ElementOffsets(*tensor.view());
  const std::vector<float> values = RandomNormal(offsets.size(), seed, offset, scale);
  for (size_t i = 0; i < offsets.size(); ++i) {
    tensor.storage()[tensor.data_offset() + offsets[i]] = values[i];
  }
}

int64_t CountPaddingWrites(const TestTensor& tensor) {
  std::vector<bool> in_view(tensor.storage().size(), false);
  for (int64_t offset : ElementOffsets(*tensor.view())) {
    in_view[tensor.data_offset() + offset] = true;
  }
  int64_t writes = 0;
  for (size_t i = 0; i < in_view.size(); ++i) {
    if (!in_view[i] && !IsSentinel(tensor.storage()[i])) ++writes;
  }
  return writes;
}

}  // namespace halnorm::testutil
