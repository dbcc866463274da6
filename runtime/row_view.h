// Folds the leading (row) dims of the tensors of one call into the fewest
// dims the kernels index, without copying: rows are independent, so the dims
// may be reordered and merged freely as long as every tensor agrees.
#ifndef HALNORM_RUNTIME_ROW_VIEW_H_
#define HALNORM_RUNTIME_ROW_VIEW_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace halnorm::internal {

// Per-call lists live inline: a call on a small tensor must not allocate.
using PerDim = absl::InlinedVector<int64_t, 4>;     // one per leading dim
using PerTensor = absl::InlinedVector<int64_t, 8>;  // one per tensor of the call

// One folded row dim: its extent and each tensor's stride along it.
struct RowDim {
  int64_t extent;
  PerTensor strides;  // one per tensor, in the order given
};
using RowDims = absl::InlinedVector<RowDim, 4>;

// `extents` are the leading dims (outermost first); `strides[t]` are tensor
// t's strides for them, in elements. Returns the folded dims innermost first
// (dims of extent 1 dropped), ordered by the first tensor's strides.
RowDims FoldRowDims(absl::Span<const int64_t> extents, absl::Span<const PerDim> strides);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_VIEW_H_
