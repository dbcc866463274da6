#include "runtime/scratch.h"

#include <array>
#include <vector>

namespace halnorm::internal {

float* ThreadScratch(int64_t count, ScratchUse use, bool* reallocated) {
  thread_local std::array<std::vector<float>, static_cast<int>(ScratchUse::kCount)> buffers;
  std::vector<float>& buffer = buffers[static_cast<int>(use)];
  const bool grows = static_cast<int64_t>(buffer.size()) < count;
  if (reallocated != nullptr) *reallocated = grows;
  if (grows) {
    // Nothing to keep: the old buffer is freed first, not copied (and is
    // empty should the allocation throw bad_alloc). A std::vector, whose
    // operator new alloc_failure_test fails on demand (ASan's operator
    // new[] does not forward to a replaced operator new).
    buffer = std::vector<float>();
    buffer.resize(count);
  }
  return buffer.data();
}

}  // namespace halnorm::internal
