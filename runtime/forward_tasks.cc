#include "runtime/forward_tasks.h"

#include <algorithm>
#include <limits>

namespace halnorm::internal {
namespace {

// The floor (forward_tasks.h).
constexpr int64_t kMinTaskBytes = 16384;

}  // namespace

int32_t ForwardTaskRows(int64_t r_extent, int64_t b_extent, int64_t row_bytes, int threads) {
  int64_t rows = r_extent;  // one task per line
  if (threads > 1 && b_extent < threads) {
    const int64_t tasks_per_line = (threads + b_extent - 1) / b_extent;
    const int64_t even = (r_extent + tasks_per_line - 1) / tasks_per_line;
    const int64_t floor = (kMinTaskBytes + row_bytes - 1) / std::max<int64_t>(row_bytes, 1);
    rows = std::min(std::max(even, floor), r_extent);
  }
  return static_cast<int32_t>(
      std::clamp<int64_t>(rows, 1, std::numeric_limits<int32_t>::max()));
}

}  // namespace halnorm::internal
