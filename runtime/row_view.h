// Folds the leading (row) dims of the tensors of one call into the fewest
// dims the kernels index, without copying: rows are independent, so the dims
// may be reordered and merged freely as long as every tensor agrees.
#ifndef HALNORM_RUNTIME_ROW_VIEW_H_
#define HALNORM_RUNTIME_ROW_VIEW_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace halnorm::internal {

// One folded row dim: its extent and each tensor's stride along it.
struct RowDim {
  int64_t extent;
  std::vector<int64_t> strides;  // one per tensor, in the order given
};

// `extents` are the leading dims (outermost first); `strides[t]` are tensor
// t's strides for them, in elements. Returns the folded dims innermost first
// (dims of extent 1 dropped), ordered by the first tensor's strides.
std::vector<RowDim> FoldRowDims(absl::Span<const int64_t> extents,
                                const std::vector<std::vector<int64_t>>& strides);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_VIEW_H_
