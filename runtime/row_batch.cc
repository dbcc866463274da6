#include "runtime/row_batch.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/cuda_tensors.h"
#include "runtime/scratch.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

// Whether a piece of `rows` units along r by `lines` along b fits the limit
// (128-bit: counts times strides can pass int64).
struct PieceFit {
  int64_t unit_elements;
  absl::Span<const PieceOperand> operands;
  const PiecePartials& partials;
  int64_t max_span_bytes;

  bool operator()(int64_t rows, int64_t lines, int64_t rows_per_slot) const {
    if (static_cast<__int128>(rows) * lines * unit_elements > kKernelMaxElements) return false;
    for (const PieceOperand& op : operands) {
      const __int128 span = static_cast<__int128>(rows - 1) * op.r_stride +
                            static_cast<__int128>(lines - 1) * op.b_stride + op.unit_span;
      if (span * op.elem_bytes > max_span_bytes) return false;
    }
    if (partials.name == nullptr) return true;
    // A piece's partial buffer: its slots of each of its lines.
    const int64_t slots = rows_per_slot > 0 ? (rows + rows_per_slot - 1) / rows_per_slot : 1;
    return static_cast<__int128>(slots) * lines * partials.slot_bytes <= max_span_bytes;
  }
};

// The largest n in [1, max] with fits(n), given fits(1); fits is monotone.
template <typename Fits>
int64_t LargestFitting(int64_t max, Fits fits) {
  int64_t lo = 1, hi = max;  // fits(lo); the answer is in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace

absl::StatusOr<PiecePlan> PlanPieces(int64_t r_extent, int64_t b_extent, int64_t unit_elements,
                                     absl::Span<const PieceOperand> operands,
                                     const PiecePartials& partials, int64_t max_span_bytes,
                                     const char* unit, const char* unit_detail) {
  const PieceFit fits{unit_elements, operands, partials, max_span_bytes};
  int64_t rows_per_slot = partials.rows_per_slot;
  // Common case first: one piece per outer index.
  if (fits(r_extent, b_extent, rows_per_slot)) return PiecePlan{r_extent, b_extent, rows_per_slot};
  if (fits(r_extent, 1, rows_per_slot)) {
    const int64_t lines =
        LargestFitting(b_extent, [&](int64_t n) { return fits(r_extent, n, rows_per_slot); });
    return PiecePlan{r_extent, lines, rows_per_slot};
  }
  if (!fits(1, 1, rows_per_slot)) {
    // Not even one unit: name what does not fit.
    const std::string limit = SpanLimitText(max_span_bytes);
    auto refuse = [&](const char* name, const auto&... what) {
      return InvalidArgument(name, ": one ", unit, " (", unit_detail, ") ", what...,
                             "; a kernel call addresses less than ", limit,
                             " per tensor (32-bit offsets), and calls on larger tensors are "
                             "split only between whole ",
                             unit, "s");
    };
    const char* first = operands.empty() ? "x" : operands[0].name;
    if (unit_elements > kKernelMaxElements) {
      return refuse(first, "has ", unit_elements, " elements, more than 2^31 - 1");
    }
    for (const PieceOperand& op : operands) {
      if (op.unit_span * op.elem_bytes > max_span_bytes) {
        return refuse(op.name, "spans ", op.unit_span * op.elem_bytes, " bytes");
      }
    }
    return refuse(partials.name, "needs ", partials.slot_bytes,
                  " bytes of f32 dweight/dbias partial sums");
  }
  // Lines split along r. Pieces start on slot (chunk) boundaries; where not
  // even one chunk fits, the chunks shrink to what does (which keeps the
  // partial buffer of a piece the same size, so the loop ends at once).
  int64_t rows = 0;
  while (true) {
    rows = LargestFitting(r_extent, [&](int64_t n) { return fits(n, 1, rows_per_slot); });
    if (rows_per_slot == 0 || rows >= rows_per_slot) break;
    rows_per_slot = rows;
  }
  if (rows_per_slot > 0) rows = rows / rows_per_slot * rows_per_slot;
  return PiecePlan{rows, 1, rows_per_slot};
}

halide_type_t HalideType(halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F16:
      return halide_type_t(halide_type_float, 16);
    case HALNORM_BF16:
      return halide_type_t(halide_type_bfloat, 16);
    default:
      return halide_type_t(halide_type_float, 32);
  }
}

RowBatch::RowBatch(int64_t hidden, absl::Span<const int64_t> leading)
    : hidden_(hidden), leading_(leading) {
  for (int64_t e : leading_) rows_ *= e;
}

void RowBatch::AddRows(KernelArg kernel_arg, const halnorm_tensor& t, const char* name) {
  operands_[operand_count_] = {kernel_arg, static_cast<char*>(t.data), HalideType(t.dtype),
                               DtypeBytes(t.dtype), /*per_row=*/false, /*read=*/true, name};
  std::copy(t.strides, t.strides + leading_.size(), strides_[operand_count_].begin());
  operand_count_++;
}

void RowBatch::AddUnread(KernelArg kernel_arg, const halnorm_tensor& t, const char* name) {
  AddRows(kernel_arg, t, name);
  operands_[operand_count_ - 1].read = false;
}

// Dense strides in the first operand's (x's) stride order, so scratch
// statistics fold exactly like x.
LeadingStrides RowBatch::DenseStridesLikeFirst() const {
  const LeadingStrides& x_strides = strides_[0];
  std::array<size_t, kMaxLeadingDims> order;
  for (size_t d = 0; d < leading_.size(); d++) order[d] = d;
  StableSortFew(order, leading_.size(),
                [&](size_t a, size_t b) { return x_strides[a] < x_strides[b]; });
  LeadingStrides strides;
  int64_t dense = 1;
  for (size_t i = 0; i < leading_.size(); i++) {
    strides[order[i]] = dense;
    dense *= leading_[order[i]];
  }
  return strides;
}

void RowBatch::AddPerRow(KernelArg kernel_arg, const halnorm_tensor* t, const char* name) {
  // Scratch data is filled in by Fold(), once the scratch no longer moves.
  operands_[operand_count_] = {
      kernel_arg, t ? static_cast<char*>(t->data) : nullptr, HalideType(HALNORM_F32), 4,
      /*per_row=*/true, /*read=*/true, name};
  if (t != nullptr) {
    std::copy(t->strides, t->strides + leading_.size(), strides_[operand_count_].begin());
  } else {
    strides_[operand_count_] = DenseStridesLikeFirst();
  }
  operand_count_++;
}

void RowBatch::Fold() { FoldOrderedBy(operands_[0].arg); }

int RowBatch::OperandIndex(KernelArg arg) const {
  int t = 0;
  while (operands_[t].arg != arg) t++;  // every caller's arg was added
  return t;
}

int64_t RowBatch::folded_stride(int d, KernelArg arg) const {
  return dims_.dims[d].strides[OperandIndex(arg)];
}

void RowBatch::PlaceScratch() {
  const auto operands = absl::MakeSpan(operands_.data(), operand_count_);
  size_t scratch_rows = 0;
  for (const Operand& op : operands) scratch_rows += op.per_row && op.data == nullptr;
  // Reused, not allocated per call: an inference forward (no mean or rstd
  // asked for) at decode shapes spent ~9% of its time allocating it.
  float* next_scratch =
      scratch_rows > 0 ? ThreadScratch(scratch_rows * rows_, ScratchUse::kStatistics) : nullptr;
  for (Operand& op : operands) {
    if (op.per_row && op.data == nullptr) {
      op.data = reinterpret_cast<char*>(next_scratch);
      next_scratch += rows_;
    }
  }
}

void RowBatch::FoldOrderedBy(KernelArg order_by) {
  PlaceScratch();
  dims_ = FoldRowDims(leading_, absl::MakeConstSpan(strides_.data(), operand_count_),
                      OperandIndex(order_by));
  while (dims_.count < kMaxLeadingDims) dims_.dims[dims_.count++] = RowDim{1, {}};
}

absl::Status RowBatch::Split(const PiecePartials& partials) {
  const RowDim &r = dims_.dims[0], &b = dims_.dims[1];
  std::array<PieceOperand, kMaxRowTensors> all;
  size_t count = 0;
  for (int t = 0; t < operand_count_; t++) {
    const Operand& op = operands_[t];
    if (!op.read) continue;
    all[count++] = {op.name, op.per_row ? 1 : hidden_, op.elem_bytes, r.strides[t], b.strides[t]};
  }
  absl::StatusOr<PiecePlan> plan =
      PlanPieces(r.extent, b.extent, hidden_, absl::MakeConstSpan(all.data(), count), partials,
                 KernelSpanLimit(), "row", "the normalized dims");
  if (!plan.ok()) return plan.status();
  plan_ = *plan;
  // CUDA kernels put the b lines on grid y, which has at most 65535 blocks.
  if (on_cuda_) plan_.lines_per_piece = std::min(plan_.lines_per_piece, kCudaMaxGridYZ);
  pieces_per_line_ = (r.extent + plan_.rows_per_piece - 1) / plan_.rows_per_piece;
  line_groups_ = (b.extent + plan_.lines_per_piece - 1) / plan_.lines_per_piece;
  RecordPiecesForTesting(piece_count() > outer_extent(),
                         plan_.rows_per_slot != partials.rows_per_slot);
  return absl::OkStatus();
}

void RowBatch::Adopt(const Layout& layout) {
  PlaceScratch();
  dims_ = layout.dims;
  plan_ = layout.plan;
  pieces_per_line_ = layout.pieces_per_line;
  line_groups_ = layout.line_groups;
}

int64_t RowBatch::piece_count() const { return outer_extent() * line_groups_ * pieces_per_line_; }

RowPiece RowBatch::Piece(int64_t i) const {
  RowPiece p;
  p.row_piece = i % pieces_per_line_;
  const int64_t line_group = i / pieces_per_line_ % line_groups_;
  p.outer = i / pieces_per_line_ / line_groups_;
  p.row_begin = p.row_piece * plan_.rows_per_piece;
  p.rows = std::min(plan_.rows_per_piece, folded_extent(0) - p.row_begin);
  p.line_begin = line_group * plan_.lines_per_piece;
  p.lines = std::min(plan_.lines_per_piece, folded_extent(1) - p.line_begin);
  return p;
}

void RowBatch::Bind(KernelCall& call, const RowPiece& piece) {
  const RowDim &r = dims_.dims[0], &b = dims_.dims[1], &outer = dims_.dims[2];
  for (int t = 0; t < operand_count_; t++) {
    const Operand& op = operands_[t];
    const int64_t offset = piece.outer * outer.strides[t] + piece.line_begin * b.strides[t] +
                           piece.row_begin * r.strides[t];
    buffers_[t].Set(op.data + offset * op.elem_bytes, op.type,
                    {{op.per_row ? 1 : hidden_, 1},
                     {piece.rows, KernelStride(piece.rows, r.strides[t])},
                     {piece.lines, KernelStride(piece.lines, b.strides[t])}});
    if (on_cuda_) MoveToCudaDevice(buffers_[t].get());
    call.Bind(op.arg, buffers_[t].get());
  }
}

}  // namespace halnorm::internal
