// f32 CPU tensors for tests: owned storage plus a halnorm_tensor view of it
// with PyTorch-order shape and strides (outermost first, in elements).
// Storage the view does not cover ("padding") holds a sentinel NaN, so a
// kernel that reads padding produces NaNs and one that writes it is caught.
#ifndef HALNORM_TESTS_TEST_TENSORS_H_
#define HALNORM_TESTS_TEST_TENSORS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "runtime/halnorm_c.h"

namespace halnorm::testutil {

// A quiet NaN with a payload no arithmetic produces.
float SentinelNan();
bool IsSentinel(float value);  // bitwise, so NaNs computed by a kernel don't match

int64_t NumElements(absl::Span<const int64_t> shape);
std::vector<int64_t> ContiguousStrides(absl::Span<const int64_t> shape);

// Owns the storage its view points into. Movable (a moved vector keeps its
// buffer), not copyable (a copy's view would point into the original).
class TestTensor {
 public:
  // Storage holds data_offset sentinel elements, then the view (at least one
  // element, so data is never null and an empty view still has memory a
  // faulty kernel could write), every element set to `fill`. Empty strides
  // mean contiguous; data_offset = 1 misaligns data for vector loads.
  TestTensor(absl::Span<const int64_t> shape, absl::Span<const int64_t> strides = {},
             int64_t data_offset = 0, float fill = SentinelNan());
  TestTensor(TestTensor&&) = default;
  TestTensor& operator=(TestTensor&&) = default;
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  halnorm_tensor* view() { return &view_; }
  const halnorm_tensor* view() const { return &view_; }
  int64_t data_offset() const { return data_offset_; }
  std::vector<float>& storage() { return storage_; }
  const std::vector<float>& storage() const { return storage_; }

 private:
  std::vector<float> storage_;
  int64_t data_offset_;  // storage_[data_offset_] is view_.data[0]
  halnorm_tensor view_;
};

// Offsets from view.data of the view's elements, in logical row-major order.
std::vector<int64_t> ElementOffsets(const halnorm_tensor& view);

// The view's elements as a contiguous row-major array (what the reference takes).
std::vector<float> Gather(const halnorm_tensor& view);

// Sets the view's elements (padding keeps its sentinel) to
// offset + scale * N(0,1) from std::mt19937(seed): same seed, same values.
void FillNormal(TestTensor& tensor, uint32_t seed, double offset = 0.0, double scale = 1.0);
std::vector<float> RandomNormal(int64_t count, uint32_t seed, double offset = 0.0,
                                double scale = 1.0);

// Storage elements outside the view that no longer hold the sentinel.
int64_t CountPaddingWrites(const TestTensor& tensor);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_TEST_TENSORS_H_
