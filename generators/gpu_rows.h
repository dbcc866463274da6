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

// The row a GPU kernel reads where the algorithm says row `r` of `rows`.
// The statistics of a block run for every row of the block, also for the
// rows past the tensor's last one in the last block, and those reads are
// not guarded (schedules/row_norm_gpu.cc: the threads index a full block):
// unclamped they read past the buffer's end (ASan caught it on PoCL, whose
// device memory is host memory). Clamped, they read the last row again;
// their results are never stored.
inline Halide::Expr ReadableRow(const Halide::OutputImageParam& rows, const Halide::Var& r) {
  return Halide::clamp(r, rows.dim(1).min(), rows.dim(1).max());
}

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_GPU_ROWS_H_
