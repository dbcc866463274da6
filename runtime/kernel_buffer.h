// halide_buffer_t views of caller memory, built on the stack for one call.
#ifndef HALNORM_RUNTIME_KERNEL_BUFFER_H_
#define HALNORM_RUNTIME_KERNEL_BUFFER_H_

#include <cstdint>
#include <initializer_list>

#include "HalideRuntime.h"

namespace halnorm::internal {

struct DimSpec {
  int64_t extent;
  int64_t stride;  // elements
};

// Not copyable: buf.dim points into this object. Extents and strides must
// already be checked to fit in 32 bits (CheckTensor bounds the span).
class KernelBuffer {
 public:
  KernelBuffer(const void* data, halide_type_t type, std::initializer_list<DimSpec> dims) {
    buf_.host = static_cast<uint8_t*>(const_cast<void*>(data));
    buf_.type = type;
    buf_.dimensions = static_cast<int32_t>(dims.size());
    buf_.dim = dims_;
    int d = 0;
    for (const DimSpec& spec : dims) {
      dims_[d++] = halide_dimension_t(0, static_cast<int32_t>(spec.extent),
                                      static_cast<int32_t>(spec.stride));
    }
  }
  KernelBuffer(const KernelBuffer&) = delete;
  KernelBuffer& operator=(const KernelBuffer&) = delete;

  halide_buffer_t* get() { return &buf_; }

 private:
  halide_dimension_t dims_[4] = {};
  halide_buffer_t buf_ = {};
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_BUFFER_H_
