#include "runtime/row_view.h"

namespace halnorm::internal {

RowDims FoldRowDims(absl::Span<const int64_t> extents, absl::Span<const LeadingStrides> strides,
                    int order_by) {
  RowDims unfolded;
  for (size_t d = 0; d < extents.size(); d++) {
    if (extents[d] == 1) continue;
    RowDim& dim = unfolded.dims[unfolded.count++];
    dim.extent = extents[d];
    for (size_t t = 0; t < strides.size(); t++) dim.strides[t] = strides[t][d];
  }
  // Innermost first by that tensor's stride; stable keeps ties in order.
  StableSortFew(unfolded.dims, unfolded.count, [order_by](const RowDim& a, const RowDim& b) {
    return a.strides[order_by] < b.strides[order_by];
  });
  RowDims folded;
  for (int d = 0; d < unfolded.count; d++) {
    const RowDim& dim = unfolded.dims[d];
    if (folded.count > 0) {
      RowDim& inner = folded.dims[folded.count - 1];
      bool mergeable = true;
      for (size_t t = 0; t < strides.size(); t++) {
        mergeable &= dim.strides[t] == inner.extent * inner.strides[t];
      }
      if (mergeable) {
        inner.extent *= dim.extent;
        continue;
      }
    }
    folded.dims[folded.count++] = dim;
  }
  return folded;
}

}  // namespace halnorm::internal
