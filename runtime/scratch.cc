#include "runtime/scratch.h"

#include <array>
#include <memory>

namespace halnorm::internal {

float* ThreadScratch(int64_t count, ScratchUse use, bool* reallocated) {
  struct Buffer {
    std::unique_ptr<float[]> data;
    int64_t size = 0;
  };
  thread_local std::array<Buffer, static_cast<int>(ScratchUse::kCount)> buffers;
  Buffer& buffer = buffers[static_cast<int>(use)];
  if (reallocated != nullptr) *reallocated = buffer.size < count;
  if (buffer.size < count) {
    // Nothing to keep: the contents are not copied, nor the new ones zeroed.
    // Freed first, and empty should the allocation throw (bad_alloc).
    buffer.data.reset();
    buffer.size = 0;
    buffer.data.reset(new float[count]);
    buffer.size = count;
  }
  return buffer.data.get();
}

}  // namespace halnorm::internal
