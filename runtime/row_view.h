// Folds the leading (row) dims of the tensors of one call into the fewest
// dims the kernels index, without copying: rows are independent, so the dims
// may be reordered and merged freely as long as every tensor agrees.
#ifndef HALNORM_RUNTIME_ROW_VIEW_H_
#define HALNORM_RUNTIME_ROW_VIEW_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/types/span.h"

namespace halnorm::internal {

// Rank <= 4 with at least one normalized dim; a row-norm call has at most 8
// tensors indexed by row. Fixed arrays: a call on a small tensor must not
// allocate, and at decode shapes even inline vectors' bookkeeping showed.
inline constexpr int kMaxLeadingDims = 3;
inline constexpr int kMaxRowTensors = 8;

// One tensor's strides along the leading dims, in elements.
using LeadingStrides = std::array<int64_t, kMaxLeadingDims>;

// One folded row dim: its extent and each tensor's stride along it.
struct RowDim {
  int64_t extent;
  std::array<int64_t, kMaxRowTensors> strides;  // one per tensor, in the order given
};

// The folded dims, innermost first.
struct RowDims {
  int count = 0;
  std::array<RowDim, kMaxLeadingDims> dims;
};

// Sorts the first `count` elements of `a` by `less`, keeping ties in order:
// an insertion sort, for the <= kMaxLeadingDims dims sorted here.
// (std::stable_sort allocates a buffer even for three elements: malloc and
// free were 3% of a decode-shape call.)
template <typename T, size_t N, typename Less>
void StableSortFew(std::array<T, N>& a, size_t count, Less less) {
  for (size_t i = 1; i < count; i++) {
    for (size_t j = i; j > 0 && less(a[j], a[j - 1]); j--) std::swap(a[j], a[j - 1]);
  }
}

// `extents` are the leading dims (outermost first, at most kMaxLeadingDims);
// `strides[t]` are tensor t's strides for them (at most kMaxRowTensors
// tensors). Returns the folded dims innermost first (dims of extent 1
// dropped), ordered by tensor `order_by`'s strides (ties keep their order).
RowDims FoldRowDims(absl::Span<const int64_t> extents, absl::Span<const LeadingStrides> strides,
                    int order_by = 0);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ROW_VIEW_H_
