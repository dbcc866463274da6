#include "runtime/row_batch.h"

#include <algorithm>

#include "runtime/cuda_tensors.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

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

void RowBatch::AddRows(KernelArg kernel_arg, const halnorm_tensor& t) {
  operands_[operand_count_] = {kernel_arg, static_cast<char*>(t.data), HalideType(t.dtype),
                               DtypeBytes(t.dtype), false};
  std::copy(t.strides, t.strides + leading_.size(), strides_[operand_count_].begin());
  operand_count_++;
}

// Dense strides in the first operand's (x's) stride order, so scratch
// statistics fold exactly like x.
LeadingStrides RowBatch::DenseStridesLikeFirst() const {
  const LeadingStrides& x_strides = strides_[0];
  std::array<size_t, kMaxLeadingDims> order;
  for (size_t d = 0; d < leading_.size(); d++) order[d] = d;
  std::stable_sort(order.begin(), order.begin() + leading_.size(),
                   [&](size_t a, size_t b) { return x_strides[a] < x_strides[b]; });
  LeadingStrides strides;
  int64_t dense = 1;
  for (size_t i = 0; i < leading_.size(); i++) {
    strides[order[i]] = dense;
    dense *= leading_[order[i]];
  }
  return strides;
}

void RowBatch::AddPerRow(KernelArg kernel_arg, const halnorm_tensor* t) {
  // Scratch data is filled in by Fold(), once the scratch no longer moves.
  operands_[operand_count_] = {kernel_arg, t ? static_cast<char*>(t->data) : nullptr,
                               HalideType(HALNORM_F32), 4, true};
  if (t != nullptr) {
    std::copy(t->strides, t->strides + leading_.size(), strides_[operand_count_].begin());
  } else {
    strides_[operand_count_] = DenseStridesLikeFirst();
  }
  operand_count_++;
}

void RowBatch::Fold() {
  const auto operands = absl::MakeSpan(operands_.data(), operand_count_);
  size_t scratch_rows = 0;
  for (const Operand& op : operands) scratch_rows += op.per_row && op.data == nullptr;
  if (scratch_rows > 0) scratch_.resize(scratch_rows * rows_);
  float* next_scratch = scratch_.data();
  for (Operand& op : operands) {
    if (op.per_row && op.data == nullptr) {
      op.data = reinterpret_cast<char*>(next_scratch);
      next_scratch += rows_;
    }
  }
  dims_ = FoldRowDims(leading_, absl::MakeConstSpan(strides_.data(), operand_count_));
  while (dims_.count < kMaxLeadingDims) dims_.dims[dims_.count++] = RowDim{1, {}};
}

void RowBatch::Bind(KernelCall& call, int64_t o) {
  const RowDim &r = dims_.dims[0], &b = dims_.dims[1], &outer = dims_.dims[2];
  for (int t = 0; t < operand_count_; t++) {
    const Operand& op = operands_[t];
    char* data = op.data + o * outer.strides[t] * op.elem_bytes;
    buffers_[t].Set(
        data, op.type,
        {{op.per_row ? 1 : hidden_, 1}, {r.extent, r.strides[t]}, {b.extent, b.strides[t]}});
    if (on_cuda_) MoveToCudaDevice(buffers_[t].get());
    call.Bind(op.arg, buffers_[t].get());
  }
}

}  // namespace halnorm::internal
