// An optional per-feature parameter (weight, bias) as the buffer a kernel
// takes. For a kernel taking f32 (`kernel_dtype` HALNORM_F32), converted
// when 16-bit or offset (options.weight_offset: folded in here instead of
// once per element in the kernel; N values, nothing next to the M*N
// activations, and reused while the source is unchanged:
// converted_params.h), used in place otherwise. For a
// native-params kernel (16-bit `kernel_dtype`), the caller's tensor as it
// is: it has that dtype, and the kernel adds any offset itself. When absent,
// a placeholder of the right extent and type over `placeholder` memory that
// the kernel's has_weight/has_bias = false keeps it from reading.
#ifndef HALNORM_RUNTIME_KERNEL_PARAM_H_
#define HALNORM_RUNTIME_KERNEL_PARAM_H_

#include <cstdint>
#include <memory>

#include "runtime/halnorm_c.h"
#include "runtime/kernel_buffer.h"

namespace halnorm::internal {

class KernelParam {
 public:
  KernelParam(const halnorm_tensor* t, int64_t count, const void* placeholder, float offset = 0.f,
              halnorm_dtype kernel_dtype = HALNORM_F32);

  bool present() const { return present_; }
  // The 1-D buffer of `count` values (channel-norm kernels).
  halide_buffer_t* buffer() { return buffer_.get(); }
  // The same values as the row-norm kernels take them: a tensor shaped like
  // x whose `leading` row dims have stride 0, so every row reads them.
  halnorm_tensor OverRowsOf(const halnorm_tensor& x, int leading) const;

 private:
  bool present_;
  bool converted_;                  // data_ holds f32 values made from the tensor
  std::unique_ptr<float[]> owned_;  // those values, where too large to keep
  const void* data_;
  halnorm_dtype dtype_;
  KernelBuffer buffer_;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_PARAM_H_
