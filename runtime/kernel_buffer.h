// halide_buffer_t views of caller memory, built on the stack for one call.
#ifndef HALNORM_RUNTIME_KERNEL_BUFFER_H_
#define HALNORM_RUNTIME_KERNEL_BUFFER_H_

#include <cstdint>
#include <initializer_list>
#include <new>

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
  // Uninitialized until Set(): RowBatch keeps an array of them, and zeroing
  // ~1 KiB per call showed at decode shapes.
  KernelBuffer() {}
  KernelBuffer(const void* data, halide_type_t type, std::initializer_list<DimSpec> dims) {
    Set(data, type, dims);
  }
  KernelBuffer(const KernelBuffer&) = delete;
  KernelBuffer& operator=(const KernelBuffer&) = delete;

  // At most kMaxDims dims.
  void Set(const void* data, halide_type_t type, std::initializer_list<DimSpec> dims) {
    buf_ = {};
    buf_.host = static_cast<uint8_t*>(const_cast<void*>(data));
    buf_.type = type;
    buf_.dimensions = static_cast<int32_t>(dims.size());
    buf_.dim = dims_;
    int d = 0;
    for (const DimSpec& spec : dims) {
      new (&dims_[d++]) halide_dimension_t(0, static_cast<int32_t>(spec.extent),
                                           static_cast<int32_t>(spec.stride));
    }
  }

  halide_buffer_t* get() { return &buf_; }

 private:
  static constexpr int kMaxDims = 4;
  union {  // a union, so the default constructor leaves the dims unset
    halide_dimension_t dims_[kMaxDims];
  };
  halide_buffer_t buf_;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_BUFFER_H_
