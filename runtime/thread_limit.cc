#include "runtime/thread_limit.h"

#include <atomic>
#include <mutex>

#include "HalideRuntime.h"

namespace halnorm::internal {
namespace {

std::atomic<int> thread_limit{0};

// One parallel loop [min, min + size) cut into `slices` contiguous slices.
struct SlicedLoop {
  halide_task_t task;
  int min, size, slices;
  uint8_t* closure;
};

int RunRange(void* user_context, halide_task_t task, int begin, int end, uint8_t* closure) {
  for (int i = begin; i < end; i++) {
    if (int code = task(user_context, i, closure); code != 0) return code;
  }
  return 0;
}

int RunSlice(void* user_context, int slice, uint8_t* closure) {
  const auto* loop = reinterpret_cast<const SlicedLoop*>(closure);
  // 64-bit: size * slice can exceed int32 for huge loops.
  const int begin = loop->min + static_cast<int>(int64_t{loop->size} * slice / loop->slices);
  const int end = loop->min + static_cast<int>(int64_t{loop->size} * (slice + 1) / loop->slices);
  return RunRange(user_context, loop->task, begin, end, loop->closure);
}

int LimitedParFor(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
  const int limit = thread_limit.load(std::memory_order_relaxed);
  if (size <= 1 || limit == 1) return RunRange(user_context, task, min, min + size, closure);
  if (limit <= 0 || size <= limit) {
    return halide_default_do_par_for(user_context, task, min, size, closure);
  }
  SlicedLoop loop{task, min, size, limit, closure};
  return halide_default_do_par_for(user_context, RunSlice, 0, limit,
                                   reinterpret_cast<uint8_t*>(&loop));
}

}  // namespace

void SetThreadLimit(int n) {
  static std::once_flag once;
  std::call_once(once, [] { halide_set_custom_do_par_for(&LimitedParFor); });
  thread_limit.store(n > 0 ? n : 0, std::memory_order_relaxed);
  halide_set_num_threads(n > 0 ? n : 0);
}

}  // namespace halnorm::internal
