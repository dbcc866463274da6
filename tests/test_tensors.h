// CPU tensors for tests: owned storage of f32, f16 or bf16 elements plus a
// halnorm_tensor view of it with PyTorch-order shape and strides (outermost
// first, in elements). Storage the view does not cover ("padding") holds a
// sentinel NaN of the dtype, so a kernel that reads padding produces NaNs and
// one that writes it is caught. Values go in and out as floats; 16-bit
// stores round to nearest even (tests/float16_conversions.h).
#ifndef HALNORM_TESTS_TEST_TENSORS_H_
#define HALNORM_TESTS_TEST_TENSORS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "runtime/halnorm_c.h"

namespace halnorm::testutil {

int64_t ElementBytes(halnorm_dtype dtype);
// The value `dtype` stores for `value` (identity for f32).
float RoundToDtype(float value, halnorm_dtype dtype);

int64_t NumElements(absl::Span<const int64_t> shape);
std::vector<int64_t> ContiguousStrides(absl::Span<const int64_t> shape);

// Owns the storage its view points into. Movable (a moved vector keeps its
// buffer), not copyable (a copy's view would point into the original).
class TestTensor {
 public:
  // Storage holds data_offset sentinel elements, then the view (at least one
  // element, so data is never null and an empty view still has memory a
  // faulty kernel could write), every element the sentinel. Empty strides
  // mean contiguous; data_offset = 1 misaligns data for vector loads.
  TestTensor(absl::Span<const int64_t> shape, absl::Span<const int64_t> strides = {},
             int64_t data_offset = 0, halnorm_dtype dtype = HALNORM_F32);
  TestTensor(TestTensor&&) = default;
  TestTensor& operator=(TestTensor&&) = default;
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  halnorm_tensor* view() { return &view_; }
  const halnorm_tensor* view() const { return &view_; }
  halnorm_dtype dtype() const { return dtype_; }
  int64_t data_offset() const { return data_offset_; }
  int64_t storage_elements() const { return storage_.size() / ElementBytes(dtype_); }
  // Every byte, padding included: for bitwise comparisons.
  const std::vector<uint8_t>& bytes() const { return storage_; }
  // The same, writable: a device copy's result is copied back into it.
  std::vector<uint8_t>& mutable_bytes() { return storage_; }

  // Element i of the storage (storage index data_offset() is view()->data[0]).
  float Load(int64_t i) const;
  void Store(int64_t i, float value);  // rounds to the dtype
  bool IsSentinel(int64_t i) const;    // bitwise, so NaNs a kernel computes don't match

 private:
  std::vector<uint8_t> storage_;
  halnorm_dtype dtype_;
  int64_t data_offset_;
  halnorm_tensor view_;
};

// Offsets from view.data of the view's elements, in logical row-major order.
std::vector<int64_t> ElementOffsets(const halnorm_tensor& view);

// The view's elements as a contiguous row-major array (what the reference
// takes), read in the view's dtype.
std::vector<float> Gather(const halnorm_tensor& view);
std::vector<double> GatherDouble(const halnorm_tensor& view);
// Gather, or empty for an absent tensor (the reference's "none").
std::vector<double> GatherDoubleOrEmpty(const std::optional<TestTensor>& tensor);
// Writes a contiguous row-major array into the view's elements.
void Scatter(absl::Span<const float> values, TestTensor& tensor);

// Sets the view's elements (padding keeps its sentinel) to
// offset + scale * N(0,1) from std::mt19937(seed), rounded to the dtype:
// same seed, same values.
void FillNormal(TestTensor& tensor, uint32_t seed, double offset = 0.0, double scale = 1.0);
std::vector<float> RandomNormal(int64_t count, uint32_t seed, double offset = 0.0,
                                double scale = 1.0);

// What the API takes for an optional tensor: its view, or null when absent.
halnorm_tensor* ViewOrNull(std::optional<TestTensor>& tensor);

// Which descriptor a call gets for a test tensor: its host view by default;
// the CUDA tests pass device copies (tests/cuda_mirror.h).
using ViewOf = std::function<halnorm_tensor*(TestTensor&)>;
halnorm_tensor* HostView(TestTensor& tensor);
halnorm_tensor* ViewOrNull(std::optional<TestTensor>& tensor, const ViewOf& view_of);

// Storage elements outside the view that no longer hold the sentinel.
int64_t CountPaddingWrites(const TestTensor& tensor);
// Whether no element of the storage, view or padding, was written.
bool AllSentinel(const TestTensor& tensor);

// The bytes of tensors when added; Changed() names those modified since
// (inputs a call must not write).
class TensorSnapshot {
 public:
  void Clear() { entries_.clear(); }
  void Add(const char* name, const TestTensor& tensor);
  std::vector<std::string> Changed() const;

 private:
  struct Entry {
    const char* name;
    const TestTensor* tensor;
    std::vector<uint8_t> bytes;
  };
  std::vector<Entry> entries_;
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_TEST_TENSORS_H_
