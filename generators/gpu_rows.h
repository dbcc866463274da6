// What the row-norm generators share on GPU targets (CUDA, OpenCL).
#ifndef HALNORM_GENERATORS_GPU_ROWS_H_
#define HALNORM_GENERATORS_GPU_ROWS_H_

#include <vector>

#include "Halide.h"

namespace halnorm {

// Halide emits a thread's `vector` elements as one wide load or store only
// where it knows the address is aligned to the whole vector: so these
// kernels require every row to start aligned (data and row strides) and to
// be whole vectors long. The runtime sends tensors that are not to the
// variants with vector = 1.
inline void RequireAlignedRows(const std::vector<Halide::OutputImageParam>& rows, int vector) {
  if (vector == 1) return;
  for (Halide::OutputImageParam p : rows) {
    p.set_host_alignment(p.type().bytes() * vector);
    p.dim(0).set_extent(p.dim(0).extent() / vector * vector);
    for (int d = 1; d < p.dimensions(); d++) {
      p.dim(d).set_stride(p.dim(d).stride() / vector * vector);
    }
  }
}

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_GPU_ROWS_H_
