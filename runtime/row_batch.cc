#include "runtime/row_batch.h"

#include <algorithm>

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
    : hidden_(hidden), leading_(leading.begin(), leading.end()) {
  for (int64_t e : leading_) rows_ *= e;
}

void RowBatch::AddRows(const char* kernel_arg, const halnorm_tensor& t) {
  operands_.push_back({kernel_arg, static_cast<char*>(t.data), HalideType(t.dtype),
                       DtypeBytes(t.dtype), false,
                       PerDim(t.strides, t.strides + leading_.size())});
}

// Dense strides in the first operand's (x's) stride order, so scratch
// statistics fold exactly like x.
PerDim RowBatch::DenseStridesLikeFirst() const {
  const PerDim& x_strides = operands_.front().strides;
  absl::InlinedVector<size_t, 4> order(leading_.size());
  for (size_t d = 0; d < order.size(); d++) order[d] = d;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return x_strides[a] < x_strides[b]; });
  PerDim strides(leading_.size());
  int64_t dense = 1;
  for (size_t d : order) {
    strides[d] = dense;
    dense *= leading_[d];
  }
  return strides;
}

void RowBatch::AddPerRow(const char* kernel_arg, const halnorm_tensor* t) {
  Operand op{kernel_arg, nullptr, HalideType(HALNORM_F32), 4, true, {}};
  if (t != nullptr) {
    op.data = static_cast<char*>(t->data);
    op.strides.assign(t->strides, t->strides + leading_.size());
  } else {
    // Filled in by Fold(), once the scratch no longer moves.
    op.strides = DenseStridesLikeFirst();
  }
  operands_.push_back(op);
}

void RowBatch::Fold() {
  size_t scratch_rows = 0;
  for (const Operand& op : operands_) scratch_rows += op.per_row && op.data == nullptr;
  scratch_.resize(scratch_rows * rows_);
  float* next_scratch = scratch_.data();
  absl::InlinedVector<PerDim, kMaxOperands> strides;
  for (Operand& op : operands_) {
    if (op.per_row && op.data == nullptr) {
      op.data = reinterpret_cast<char*>(next_scratch);
      next_scratch += rows_;
    }
    strides.push_back(op.strides);
  }
  dims_ = FoldRowDims(leading_, strides);
  while (dims_.size() < 3) dims_.push_back(RowDim{1, PerTensor(operands_.size(), 0)});
}

void RowBatch::Bind(KernelCall& call, int64_t o) {
  const RowDim &r = dims_[0], &b = dims_[1], &outer = dims_[2];
  for (size_t t = 0; t < operands_.size(); t++) {
    const Operand& op = operands_[t];
    char* data = op.data + o * outer.strides[t] * op.elem_bytes;
    buffers_[t].emplace(data, op.type,
                        std::initializer_list<DimSpec>{{op.per_row ? 1 : hidden_, 1},
                                                       {r.extent, r.strides[t]},
                                                       {b.extent, b.strides[t]}});
    call.Bind(op.name, buffers_[t]->get());
  }
}

}  // namespace halnorm::internal
