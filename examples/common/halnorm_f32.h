// Staging between the models' double tensors and halnorm's f32 C API.
#ifndef HALNORM_EXAMPLES_COMMON_HALNORM_F32_H_
#define HALNORM_EXAMPLES_COMMON_HALNORM_F32_H_

#include <cstdint>
#include <vector>

#include "examples/common/tensor.h"
#include "runtime/halnorm_c.h"

namespace examples {

// A contiguous f32 tensor in host memory, the form the halnorm calls take.
// What a backward call needs again (the norm's input, mean, rstd) stays in
// these buffers between the passes, as a framework keeps its saved tensors.
class F32Buffer {
 public:
  F32Buffer() = default;
  explicit F32Buffer(std::vector<int64_t> shape);  // zeros; rank 1..4
  static F32Buffer From(const Tensor& t);          // rounds to f32

  Tensor ToTensor() const;  // widens to double
  const std::vector<int64_t>& shape() const { return shape_; }
  // A halnorm view of the buffer (f32, CPU, dense strides). The C struct's
  // data pointer is not const; halnorm only writes through output arguments.
  halnorm_tensor View() const;

 private:
  std::vector<int64_t> shape_;
  std::vector<float> data_;
};

// Every halnorm call goes through this: on failure it prints which call
// failed, the status code and halnorm_last_error(), then exits with status 2
// (the example cannot continue without the norm's result).
void CheckHalnorm(int status, const char* call);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_COMMON_HALNORM_F32_H_
