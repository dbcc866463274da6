#include "tests/test_tensors.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "tests/float16_conversions.h"

namespace halnorm::testutil {
namespace {

// Quiet NaNs with payloads no arithmetic produces.
constexpr uint32_t kF32Sentinel = 0x7fc0dead;
constexpr uint16_t kF16Sentinel = 0x7ead;
constexpr uint16_t kBf16Sentinel = 0x7fed;

// A malformed helper call is a bug in the test: fail loudly, not subtly.
void Check(bool ok, const char* what) {
  if (ok) return;
  std::cerr << "test_tensors: " << what << "\n";
  std::abort();
}

uint32_t SentinelBits(halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32:
      return kF32Sentinel;
    case HALNORM_F16:
      return kF16Sentinel;
    case HALNORM_BF16:
      return kBf16Sentinel;
  }
  Check(false, "unknown dtype");
  return 0;
}

// The element's bits, zero-extended (16-bit dtypes use the low half).
uint32_t LoadBits(const void* data, int64_t i, halnorm_dtype dtype) {
  const auto* bytes = static_cast<const uint8_t*>(data) + i * ElementBytes(dtype);
  if (dtype == HALNORM_F32) {
    uint32_t bits;
    std::memcpy(&bits, bytes, sizeof(bits));
    return bits;
  }
  uint16_t bits;
  std::memcpy(&bits, bytes, sizeof(bits));
  return bits;
}

void StoreBits(void* data, int64_t i, halnorm_dtype dtype, uint32_t bits) {
  auto* bytes = static_cast<uint8_t*>(data) + i * ElementBytes(dtype);
  if (dtype == HALNORM_F32) {
    std::memcpy(bytes, &bits, sizeof(bits));
    return;
  }
  const uint16_t half_bits = static_cast<uint16_t>(bits);
  std::memcpy(bytes, &half_bits, sizeof(half_bits));
}

float BitsToFloat(uint32_t bits, halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32: {
      float value;
      std::memcpy(&value, &bits, sizeof(value));
      return value;
    }
    case HALNORM_F16:
      return HalfBitsToFloat(static_cast<uint16_t>(bits));
    case HALNORM_BF16:
      return Bfloat16BitsToFloat(static_cast<uint16_t>(bits));
  }
  Check(false, "unknown dtype");
  return 0.0f;
}

uint32_t FloatToBits(float value, halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32: {
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      return bits;
    }
    case HALNORM_F16:
      return FloatToHalfBits(value);
    case HALNORM_BF16:
      return FloatToBfloat16Bits(value);
  }
  Check(false, "unknown dtype");
  return 0;
}

}  // namespace

int64_t ElementBytes(halnorm_dtype dtype) { return dtype == HALNORM_F32 ? 4 : 2; }

float RoundToDtype(float value, halnorm_dtype dtype) {
  return BitsToFloat(FloatToBits(value, dtype), dtype);
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
                       int64_t data_offset, halnorm_dtype dtype)
    : dtype_(dtype), data_offset_(data_offset) {
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
  const int64_t elements = data_offset + std::max(span, int64_t{1});
  storage_.resize(elements * ElementBytes(dtype));
  for (int64_t i = 0; i < elements; ++i) StoreBits(storage_.data(), i, dtype, SentinelBits(dtype));
  view_ = {};
  view_.data = storage_.data() + data_offset * ElementBytes(dtype);
  view_.dtype = dtype;
  view_.device = HALNORM_CPU;
  view_.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    view_.shape[d] = shape[d];
    view_.strides[d] = actual_strides[d];
  }
}

float TestTensor::Load(int64_t i) const {
  return BitsToFloat(LoadBits(storage_.data(), i, dtype_), dtype_);
}

void TestTensor::Store(int64_t i, float value) {
  StoreBits(storage_.data(), i, dtype_, FloatToBits(value, dtype_));
}

bool TestTensor::IsSentinel(int64_t i) const {
  return LoadBits(storage_.data(), i, dtype_) == SentinelBits(dtype_);
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
  std::vector<float> values;
  for (int64_t offset : ElementOffsets(view)) {
    values.push_back(BitsToFloat(LoadBits(view.data, offset, view.dtype), view.dtype));
  }
  return values;
}

std::vector<double> GatherDouble(const halnorm_tensor& view) {
  const std::vector<float> values = Gather(view);
  return {values.begin(), values.end()};
}

std::vector<double> GatherDoubleOrEmpty(const std::optional<TestTensor>& tensor) {
  return tensor ? GatherDouble(*tensor->view()) : std::vector<double>();
}

void Scatter(absl::Span<const float> values, TestTensor& tensor) {
  const std::vector<int64_t> offsets = ElementOffsets(*tensor.view());
  Check(offsets.size() == values.size(), "Scatter: value count differs from the view's");
  for (size_t i = 0; i < offsets.size(); ++i) {
    tensor.Store(tensor.data_offset() + offsets[i], values[i]);
  }
}

std::vector<float> RandomNormal(int64_t count, uint32_t seed, double offset, double scale) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> values(count);
  for (float& value : values) value = static_cast<float>(offset + scale * normal(generator));
  return values;
}

void FillNormal(TestTensor& tensor, uint32_t seed, double offset, double scale) {
  const halnorm_tensor& view = *tensor.view();
  const int64_t count = NumElements(absl::Span<const int64_t>(view.shape, view.rank));
  Scatter(RandomNormal(count, seed, offset, scale), tensor);
}

halnorm_tensor* ViewOrNull(std::optional<TestTensor>& tensor) {
  return tensor ? tensor->view() : nullptr;
}

halnorm_tensor* HostView(TestTensor& tensor) { return tensor.view(); }

halnorm_tensor* ViewOrNull(std::optional<TestTensor>& tensor, const ViewOf& view_of) {
  return tensor ? view_of(*tensor) : nullptr;
}

int64_t CountPaddingWrites(const TestTensor& tensor) {
  std::vector<bool> in_view(tensor.storage_elements(), false);
  for (int64_t offset : ElementOffsets(*tensor.view())) {
    in_view[tensor.data_offset() + offset] = true;
  }
  int64_t writes = 0;
  for (size_t i = 0; i < in_view.size(); ++i) {
    if (!in_view[i] && !tensor.IsSentinel(i)) ++writes;
  }
  return writes;
}

bool AllSentinel(const TestTensor& tensor) {
  for (int64_t i = 0; i < tensor.storage_elements(); ++i) {
    if (!tensor.IsSentinel(i)) return false;
  }
  return true;
}

void TensorSnapshot::Add(const char* name, const TestTensor& tensor) {
  entries_.push_back({name, &tensor, tensor.bytes()});
}

std::vector<std::string> TensorSnapshot::Changed() const {
  std::vector<std::string> changed;
  for (const Entry& entry : entries_) {
    if (entry.tensor->bytes() != entry.bytes) changed.push_back(entry.name);
  }
  return changed;
}

}  // namespace halnorm::testutil
