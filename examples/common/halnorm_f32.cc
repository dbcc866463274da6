#include "examples/common/halnorm_f32.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace examples {

F32Buffer::F32Buffer(std::vector<int64_t> shape) : shape_(std::move(shape)) {
  if (shape_.empty() || shape_.size() > 4) {
    std::fprintf(stderr, "F32Buffer: halnorm tensors have rank 1..4, got %zu\n", shape_.size());
    std::abort();
  }
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  data_.assign(n, 0.f);
}

F32Buffer F32Buffer::From(const Tensor& t) {
  F32Buffer b(t.shape);
  for (int64_t i = 0; i < t.numel(); i++) b.data_[i] = static_cast<float>(t.data[i]);
  return b;
}

Tensor F32Buffer::ToTensor() const {
  Tensor t(shape_);
  for (size_t i = 0; i < data_.size(); i++) t.data[i] = data_[i];
  return t;
}

halnorm_tensor F32Buffer::View() const {
  halnorm_tensor t = {};
  t.data = const_cast<float*>(data_.data());
  t.dtype = HALNORM_F32;
  t.device = HALNORM_CPU;
  t.rank = static_cast<int32_t>(shape_.size());
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; d--) {
    t.shape[d] = shape_[d];
    t.strides[d] = stride;
    stride *= shape_[d];
  }
  return t;
}

void CheckHalnorm(int status, const char* call) {
  if (status == HALNORM_OK) return;
  std::fprintf(stderr, "%s failed (status %d): %s\n", call, status, halnorm_last_error());
  std::exit(2);
}

}  // namespace examples
