// An optional per-feature parameter (weight, bias) as the f32 buffer the
// kernels take, plus `offset` (weight_offset: folded in here, once per call,
// instead of once per element in the kernel): converted when it is 16-bit or
// offset (N values per call, nothing next to the M*N activations), used in
// place otherwise; when absent, a placeholder of the right extent over
// `placeholder` memory that the kernel's has_weight/has_bias = false keeps it
// from reading.
#ifndef HALNORM_RUNTIME_F32_PARAM_H_
#define HALNORM_RUNTIME_F32_PARAM_H_

#include <cstdint>
#include <memory>

#include "runtime/halnorm_c.h"
#include "runtime/kernel_buffer.h"

namespace halnorm::internal {

class F32Param {
 public:
  F32Param(const halnorm_tensor* t, int64_t count, const void* placeholder, float offset = 0.f);

  bool present() const { return present_; }
  halide_buffer_t* buffer() { return buffer_.get(); }

 private:
  bool present_;
  std::unique_ptr<float[]> values_;
  KernelBuffer buffer_;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_F32_PARAM_H_
