#include "runtime/row_view.h"

#include <algorithm>

namespace halnorm::internal {

RowDims FoldRowDims(absl::Span<const int64_t> extents, absl::Span<const PerDim> strides) {
  RowDims dims;
  for (size_t d = 0; d < extents.size(); d++) {
    if (extents[d] == 1) continue;
    RowDim dim{extents[d], {}};
    for (const auto& s : strides) dim.strides.push_back(s[d]);
    dims.push_back(dim);
  }
  // Innermost first by the first tensor's stride; stable keeps ties in order.
  std::stable_sort(dims.begin(), dims.end(),
                   [](const RowDim& a, const RowDim& b) { return a.strides[0] < b.strides[0]; });
  RowDims folded;
  for (const RowDim& dim : dims) {
    if (!folded.empty()) {
      RowDim& inner = folded.back();
      bool mergeable = true;
      for (size_t t = 0; t < dim.strides.size(); t++) {
        mergeable &= dim.strides[t] == inner.extent * inner.strides[t];
      }
      if (mergeable) {
        inner.extent *= dim.extent;
        continue;
      }
    }
    folded.push_back(dim);
  }
  return folded;
}

}  // namespace halnorm::internal
