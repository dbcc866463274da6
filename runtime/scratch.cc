#include "runtime/scratch.h"

#include <vector>

namespace halnorm::internal {

float* ThreadScratch(int64_t count) {
  thread_local std::vector<float> scratch;
  if (static_cast<int64_t>(scratch.size()) < count) scratch.resize(count);
  return scratch.data();
}

}  // namespace halnorm::internal
