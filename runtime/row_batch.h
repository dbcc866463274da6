// The tensors of one row-norm call that are indexed by row (x, y, residual,
// mean, ...), folded together into the (n, r, b) buffers the kernels take.
#ifndef HALNORM_RUNTIME_ROW_BATCH_H_
#define HALNORM_RUNTIME_ROW_BATCH_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "HalideRuntime.h"
#include "runtime/halnorm_c.h"
#include "runtime/kernel_buffer.h"
#include "runtime/kernel_call.h"
#include "runtime/row_view.h"

namespace halnorm::internal {

halide_type_t HalideType(halnorm_dtype dtype);

class RowBatch {
 public:
  // `leading` = the row dims' extents, outermost first.
  RowBatch(int64_t hidden, absl::Span<const int64_t> leading);

  int64_t rows() const { return rows_; }

  // A tensor with one row of `hidden` elements per leading index.
  void AddRows(const char* kernel_arg, const halnorm_tensor& t);
  // A tensor with one f32 value per leading index (mean, rstd). Null: the
  // kernel writes into scratch laid out like x (it always computes them).
  void AddPerRow(const char* kernel_arg, const halnorm_tensor* t);

  // Folds the row dims (call once, after every Add). The kernels index two
  // folded dims; a third (permuted or padded rank-4 views) is looped here.
  void Fold();
  // Extent of folded dim d: 0 = r, 1 = b (both indexed by the kernel), 2 = outer.
  int64_t folded_extent(int d) const { return dims_[d].extent; }
  int64_t outer_extent() const { return dims_[2].extent; }
  // Binds every operand's buffer for outer index `o`; they live until the
  // next call or the batch's end.
  void Bind(KernelCall& call, int64_t o);

 private:
  static constexpr int kMaxOperands = 8;  // a row-norm call has at most 6
  struct Operand {
    const char* name;
    char* data;
    halide_type_t type;
    int64_t elem_bytes;
    bool per_row;
    PerDim strides;  // leading dims, elements
  };
  PerDim DenseStridesLikeFirst() const;

  int64_t hidden_, rows_ = 1;
  PerDim leading_;
  absl::InlinedVector<Operand, kMaxOperands> operands_;
  std::vector<float> scratch_;
  RowDims dims_;
  std::optional<KernelBuffer> buffers_[kMaxOperands];
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_BATCH_H_
