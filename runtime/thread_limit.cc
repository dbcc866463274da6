#include "runtime/thread_limit.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "HalideRuntime.h"
#include "runtime/spinning_pool.h"
#include "runtime/status.h"

namespace halnorm::internal {
namespace {

std::atomic<int> thread_limit{0};

// Whether the loops this thread starts run right here: inside a
// LoopsOnThisThread, or in a task of a loop that keeps every allowed thread
// busy (at least as many tasks as threads). A loop nested in such a task
// (LayerNorm2d's pixel tiles within its samples), handed to Halide's pool
// (ours is held by the outer loop), ran on more threads than the limit and
// paid their wake-ups in every sample. LayerNorm2d at 2 threads, batch 8,
// interleaved A/B on the Zen 4 VM, us: f32 forward 8x384x14x14 with 32-pixel
// tiles 212 -> 106 (1 thread: 197), bf16 forward 8x192x28x28 with 256-pixel
// tiles 579 -> 251; backwards 1.0-1.3x.
thread_local bool loops_stay_here = false;

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

// A loop's tasks, wrapped: a failing task's Halide message (reported on the
// thread that ran it) is moved here, the first one kept, and handed to the
// thread running the loop afterwards. Without it a task failing on a pool
// thread (a kernel's halide_malloc returning null) made the call say only
// "Halide error code -11", and left the message on the pool thread.
struct ErrorCarrier {
  halide_task_t task;
  uint8_t* closure;
  bool saturating;  // the loop has a task for every allowed thread
  std::mutex mutex;
  bool failed = false;
  HalideErrorText first_error;
};

int CarryErrors(void* user_context, int i, uint8_t* closure) {
  auto* carrier = reinterpret_cast<ErrorCarrier*>(closure);
  const bool outer = loops_stay_here;
  loops_stay_here = outer || carrier->saturating;
  const int code = carrier->task(user_context, i, carrier->closure);
  loops_stay_here = outer;
  if (code != 0) {
    HalideErrorText error;
    if (TakeHalideError(&error)) {
      std::lock_guard<std::mutex> lock(carrier->mutex);
      if (!carrier->failed) {
        carrier->first_error = error;
        carrier->failed = true;
      }
    }
  }
  return code;
}

// Halide's own pool: the fallback when ours is taken (a concurrent call) or
// more threads than cores were asked for.
int RunOnHalidePool(void* user_context, halide_task_t task, int min, int size, uint8_t* closure,
                    int limit) {
  if (limit <= 0 || size <= limit)
    return halide_default_do_par_for(user_context, task, min, size, closure);
  SlicedLoop loop{task, min, size, limit, closure};
  return halide_default_do_par_for(user_context, RunSlice, 0, limit,
                                   reinterpret_cast<uint8_t*>(&loop));
}

int LimitedParFor(void* user_context, halide_task_t task, int min, int size, uint8_t* closure) {
  const int limit = thread_limit.load(std::memory_order_relaxed);
  // On this thread alone: an error stays here.
  if (size <= 1 || limit == 1 || loops_stay_here) {
    return RunRange(user_context, task, min, min + size, closure);
  }
  const int allowed = limit > 0 ? limit : SpinningPoolMaxThreads();
  ErrorCarrier carrier{task, closure, /*saturating=*/size >= allowed};
  auto* carried = reinterpret_cast<uint8_t*>(&carrier);
  const int threads = std::min(size, allowed);
  int code;
  if (!RunOnSpinningPool(user_context, CarryErrors, min, size, carried, threads, &code)) {
    code = RunOnHalidePool(user_context, CarryErrors, min, size, carried, limit);
  }
  if (carrier.failed) SetHalideError(carrier.first_error);
  return code;
}

}  // namespace

void InstallParallelLoop() {
  static std::once_flag once;
  std::call_once(once, [] { halide_set_custom_do_par_for(&LimitedParFor); });
}

void SetThreadLimit(int n) {
  InstallParallelLoop();
  thread_limit.store(n > 0 ? n : 0, std::memory_order_relaxed);
  halide_set_num_threads(n > 0 ? n : 0);
}

LoopsOnThisThread::LoopsOnThisThread() : outer_(loops_stay_here) { loops_stay_here = true; }

LoopsOnThisThread::~LoopsOnThisThread() { loops_stay_here = outer_; }

int ThreadsPerLoop() {
  const int limit = thread_limit.load(std::memory_order_relaxed);
  return limit > 0 ? limit : SpinningPoolMaxThreads();
}

}  // namespace halnorm::internal
