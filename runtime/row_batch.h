// The tensors of one row-norm call that are indexed by row (x, y, residual,
// mean, ...), folded together into the (n, r, b) buffers the kernels take,
// and split into pieces where they are too large for one kernel call.
#ifndef HALNORM_RUNTIME_ROW_BATCH_H_
#define HALNORM_RUNTIME_ROW_BATCH_H_

#include <array>
#include <cstdint>

#include "HalideRuntime.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"
#include "runtime/kernel_args.h"
#include "runtime/kernel_buffer.h"
#include "runtime/kernel_call.h"
#include "runtime/row_view.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

halide_type_t HalideType(halnorm_dtype dtype);

// ---- Pieces: calls past the kernels' 32-bit offsets -----------------------
//
// A kernel call takes buffers of (unit, r, b): a unit is a row's normalized
// elements (a sample's C*H*W for the channel-norm kernels), r and b two
// strided dims of units. Each buffer must span at most `max_span_bytes`
// (kKernelMaxSpanBytes: under 2^31) and hold at most kKernelMaxElements
// elements. A call on larger tensors runs as several kernel calls, each on a
// piece of the units: whole (r, b) slabs when one fits; else runs of whole
// b lines; else runs of units along r within one line. The pieces follow
// from the shape, the strides and the limit, never from the thread count.
//
// Partial sums (the backward's dweight/dbias) are written per slot: a chunk
// of `rows_per_slot` units along r (CPU kernels), or one slot per piece and
// line (GPU kernels sum their chunks themselves). Pieces that split a line
// start on a chunk boundary, so every chunk's partial is the one an
// unsplit call would write, in the same place: the sums over the slots in
// their fixed order stay bitwise those of an unsplit call. Only where not
// even `rows_per_slot` units fit in one piece are the chunks made smaller
// (to what fits), which changes the sums' rounding, not their determinism.

// One buffer of a kernel call.
struct PieceOperand {
  const char* name;    // the argument it is made from, for errors
  int64_t unit_span;   // elements from a unit's first element to its last, + 1
  int64_t elem_bytes;  // 4 for f32, 2 for f16/bf16
  int64_t r_stride;    // elements between units along r
  int64_t b_stride;    // and along b
};

struct PiecePartials {
  const char* name = nullptr;  // nullptr: the call writes none
  int64_t slot_bytes = 0;      // one slot of one line
  int64_t rows_per_slot = 0;   // units summed into one slot; 0: one slot per piece and line
};

struct PiecePlan {
  int64_t rows_per_piece;   // units along r (r_extent: whole lines)
  int64_t lines_per_piece;  // b lines (1 when rows_per_piece < r_extent)
  int64_t rows_per_slot;    // PiecePartials::rows_per_slot, lowered only where it must be
};

// The largest pieces (in the order above) whose every operand and partial
// buffer fits; InvalidArgument naming the operand when not even one unit
// does. `unit` names a unit in that message ("row", "sample"), `unit_detail`
// says what it is ("the normalized dims").
absl::StatusOr<PiecePlan> PlanPieces(int64_t r_extent, int64_t b_extent, int64_t unit_elements,
                                     absl::Span<const PieceOperand> operands,
                                     const PiecePartials& partials, int64_t max_span_bytes,
                                     const char* unit, const char* unit_detail);

// The stride a kernel buffer gets for a dim of `extent`: a dim of extent 1
// is never stepped along, and its stride becomes 0, as FoldRowDims leaves
// such dims. It may exceed the kernels' 32 bits there (one line of lines
// 2^31 elements apart), which Halide would refuse though never stepped.
inline int64_t KernelStride(int64_t extent, int64_t stride) { return extent <= 1 ? 0 : stride; }

// One kernel call's share of the folded rows.
struct RowPiece {
  int64_t outer;       // folded dim 2 index
  int64_t line_begin;  // folded dim 1 (b): [line_begin, line_begin + lines)
  int64_t lines;
  int64_t row_begin;  // folded dim 0 (r): [row_begin, row_begin + rows)
  int64_t rows;
  int64_t row_piece;  // which piece of its line along r (0 unless lines are split)
};

class RowBatch {
 public:
  // `leading` = the row dims' extents, outermost first (at most kMaxLeadingDims).
  RowBatch(int64_t hidden, absl::Span<const int64_t> leading);

  int64_t rows() const { return rows_; }

  // At most kMaxRowTensors Add calls in all (a row-norm call makes up to 8).
  // `name` is the argument the tensor is, for errors.
  // A tensor with one row of `hidden` elements per leading index.
  void AddRows(KernelArg kernel_arg, const halnorm_tensor& t, const char* name);
  // A placeholder bound like rows that the kernel never reads (an absent
  // weight, over other memory): left out of the piece plan.
  void AddUnread(KernelArg kernel_arg, const halnorm_tensor& t, const char* name);
  // A tensor with one f32 value per leading index (mean, rstd). Null: the
  // kernel writes into scratch laid out like x (it always computes them).
  void AddPerRow(KernelArg kernel_arg, const halnorm_tensor* t, const char* name);

  // Folds the row dims (call once, after every Add), innermost (r) first in
  // the order of the first operand's strides, or of `order_by`'s. The
  // kernels index two folded dims; a third (permuted or padded rank-4 views)
  // is looped here.
  void Fold();
  void FoldOrderedBy(KernelArg order_by);
  // Extent of folded dim d: 0 = r, 1 = b (both indexed by the kernel), 2 = outer.
  int64_t folded_extent(int d) const { return dims_.dims[d].extent; }
  // The stride of the operand bound to `arg` along folded dim d, in elements.
  int64_t folded_stride(int d, KernelArg arg) const;
  int64_t outer_extent() const { return dims_.dims[2].extent; }

  // Plans the pieces (call once, after Fold): PlanPieces over the added
  // tensors and the kernel's `partials`, at KernelSpanLimit(). One piece per
  // outer index unless the tensors are past the limit.
  absl::Status Split(const PiecePartials& partials);
  const PiecePlan& plan() const { return plan_; }
  // The fold and the pieces, which follow from the tensors' shapes, strides
  // and dtypes (and the span limit) alone. A batch made of tensors with the
  // same of those may Adopt() them instead of Fold() and Split(), and skip
  // working them out again (call_memo.h).
  struct Layout {
    RowDims dims;
    PiecePlan plan;
    int64_t pieces_per_line, line_groups;
  };
  Layout layout() const { return {dims_, plan_, pieces_per_line_, line_groups_}; }
  void Adopt(const Layout& layout);

  // Pieces along r in one line (1 unless lines are split).
  int64_t pieces_per_line() const { return pieces_per_line_; }
  // Pieces in their fixed order: outer index, then lines, then rows.
  int64_t piece_count() const;
  RowPiece Piece(int64_t i) const;

  // Binds every operand's buffer for `piece`; they live until the next call
  // or the batch's end.
  void Bind(KernelCall& call, const RowPiece& piece);

  // The operands are HALNORM_CUDA tensors: Bind makes device buffers.
  void PlaceOnCuda() { on_cuda_ = true; }

 private:
  struct Operand {
    KernelArg arg;
    char* data;
    halide_type_t type;
    int64_t elem_bytes;
    bool per_row;
    bool read;  // false: AddUnread's placeholder
    const char* name;
  };
  LeadingStrides DenseStridesLikeFirst() const;
  // Points the per-row operands given as null at scratch.
  void PlaceScratch();
  int OperandIndex(KernelArg arg) const;

  int64_t hidden_, rows_ = 1;
  absl::Span<const int64_t> leading_;
  int operand_count_ = 0;
  std::array<Operand, kMaxRowTensors> operands_;
  std::array<LeadingStrides, kMaxRowTensors> strides_;  // per operand, elements
  RowDims dims_;
  PiecePlan plan_ = {};
  int64_t pieces_per_line_ = 1, line_groups_ = 1;
  std::array<KernelBuffer, kMaxRowTensors> buffers_;
  bool on_cuda_ = false;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_BATCH_H_
