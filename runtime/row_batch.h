// The tensors of one row-norm call that are indexed by row (x, y, residual,
// mean, ...), folded together into the (n, r, b) buffers the kernels take.
#ifndef HALNORM_RUNTIME_ROW_BATCH_H_
#define HALNORM_RUNTIME_ROW_BATCH_H_

#include <array>
#include <cstdint>
#include <vector>

#include "HalideRuntime.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"
#include "runtime/kernel_args.h"
#include "runtime/kernel_buffer.h"
#include "runtime/kernel_call.h"
#include "runtime/row_view.h"

namespace halnorm::internal {

halide_type_t HalideType(halnorm_dtype dtype);

class RowBatch {
 public:
  // `leading` = the row dims' extents, outermost first (at most kMaxLeadingDims).
  RowBatch(int64_t hidden, absl::Span<const int64_t> leading);

  int64_t rows() const { return rows_; }

  // At most kMaxRowTensors Add calls in all (a row-norm call makes 6).
  // A tensor with one row of `hidden` elements per leading index.
  void AddRows(KernelArg kernel_arg, const halnorm_tensor& t);
  // A tensor with one f32 value per leading index (mean, rstd). Null: the
  // kernel writes into scratch laid out like x (it always computes them).
  void AddPerRow(KernelArg kernel_arg, const halnorm_tensor* t);

  // Folds the row dims (call once, after every Add). The kernels index two
  // folded dims; a third (permuted or padded rank-4 views) is looped here.
  void Fold();
  // Extent of folded dim d: 0 = r, 1 = b (both indexed by the kernel), 2 = outer.
  int64_t folded_extent(int d) const { return dims_.dims[d].extent; }
  int64_t outer_extent() const { return dims_.dims[2].extent; }
  // Binds every operand's buffer for outer index `o`; they live until the
  // next call or the batch's end.
  void Bind(KernelCall& call, int64_t o);

  // The operands are HALNORM_CUDA tensors: Bind makes device buffers.
  void PlaceOnCuda() { on_cuda_ = true; }

 private:
  struct Operand {
    KernelArg arg;
    char* data;
    halide_type_t type;
    int64_t elem_bytes;
    bool per_row;
  };
  LeadingStrides DenseStridesLikeFirst() const;

  int64_t hidden_, rows_ = 1;
  absl::Span<const int64_t> leading_;
  int operand_count_ = 0;
  std::array<Operand, kMaxRowTensors> operands_;
  std::array<LeadingStrides, kMaxRowTensors> strides_;  // per operand, elements
  std::vector<float> scratch_;
  RowDims dims_;
  std::array<KernelBuffer, kMaxRowTensors> buffers_;
  bool on_cuda_ = false;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_BATCH_H_
