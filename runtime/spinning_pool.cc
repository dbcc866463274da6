#include "runtime/spinning_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

namespace halnorm::internal {
namespace {

// A hint to the core that this thread is busy-waiting (frees the sibling
// hyperthread's resources, saves power).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class SpinningPool {
 public:
  bool Run(void* user_context, halide_task_t task, int min, int size, uint8_t* closure, int threads,
           int* code) {
    bool idle = false;
    if (!busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return false;
    if (!GrowTo(threads - 1)) {
      busy_.store(false, std::memory_order_release);
      return false;
    }
    // The job's fields are atomics only so that a worker reading them while
    // the next job is posted is not a data race; such a worker's Claim fails.
    task_.store(task, std::memory_order_relaxed);
    user_context_.store(user_context, std::memory_order_relaxed);
    closure_.store(closure, std::memory_order_relaxed);
    min_.store(min, std::memory_order_relaxed);
    size_.store(size, std::memory_order_relaxed);
    workers_.store(threads - 1, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    first_error_.store(0, std::memory_order_relaxed);
    const uint32_t generation = Generation(state_.load(std::memory_order_relaxed)) + 1;
    // seq_cst, paired with a worker's sleepers_ increment: either the worker
    // sees this generation before it sleeps, or we see it asleep and wake it.
    state_.store(uint64_t{generation} << 32, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      // Taking the mutex orders this notify after a sleeper's wait began.
      { std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
    }
    RunClaimedTasks(generation, user_context, task, min, size, closure);
    while (finished_.load(std::memory_order_acquire) < size) CpuRelax();
    // Closed: a worker still holding this generation, and the next job's
    // fields, must not claim an index (the fields are rewritten before the
    // next generation is posted).
    state_.store(uint64_t{generation} << 32 | kClosed, std::memory_order_release);
    *code = first_error_.load(std::memory_order_relaxed);
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  static constexpr uint64_t kClosed = 0x7fffffff;  // past any size

  static uint32_t Generation(uint64_t state) { return static_cast<uint32_t>(state >> 32); }

  // Takes the job's next unclaimed index, if the job is still `generation`.
  bool Claim(uint32_t generation, int size, int* index) {
    uint64_t state = state_.load(std::memory_order_acquire);
    for (;;) {
      const auto next = static_cast<int>(state & 0xffffffffu);
      if (Generation(state) != generation || next >= size) return false;
      if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel)) {
        *index = next;
        return true;
      }
    }
  }

  void RunClaimedTasks(uint32_t generation, void* user_context, halide_task_t task, int min,
                       int size, uint8_t* closure) {
    int index;
    while (Claim(generation, size, &index)) {
      // After a failure the rest are skipped, but still counted as finished.
      if (first_error_.load(std::memory_order_relaxed) == 0) {
        if (const int code = task(user_context, min + index, closure); code != 0) {
          int none = 0;
          first_error_.compare_exchange_strong(none, code, std::memory_order_relaxed);
        }
      }
      finished_.fetch_add(1, std::memory_order_release);
    }
  }

  // Spins, then sleeps, until a job newer than `seen` is posted.
  uint32_t WaitForJob(uint32_t seen) {
    const auto start = std::chrono::steady_clock::now();
    const auto spin = SpinningPoolSpinTime();
    for (unsigned checks = 1; spin.count() > 0; ++checks) {
      const uint32_t generation = Generation(state_.load(std::memory_order_acquire));
      if (generation != seen) return generation;
      if (checks % 64 != 0) {
        CpuRelax();
        continue;
      }
      const auto spun = std::chrono::steady_clock::now() - start;
      if (spun > spin) break;
      if (spun > kPureSpin) std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(sleep_mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    uint32_t generation;
    wake_.wait(lock, [&] {
      generation = Generation(state_.load(std::memory_order_seq_cst));
      return generation != seen;
    });
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return generation;
  }

  void WorkerLoop(int worker) {
    uint32_t seen = 0;
    for (;;) {
      const uint32_t generation = WaitForJob(seen);
      seen = generation;
      if (worker >= workers_.load(std::memory_order_relaxed)) continue;
      RunClaimedTasks(generation, user_context_.load(std::memory_order_relaxed),
                      task_.load(std::memory_order_relaxed), min_.load(std::memory_order_relaxed),
                      size_.load(std::memory_order_relaxed),
                      closure_.load(std::memory_order_relaxed));
    }
  }

  // Starts workers until there are `count` (only the busy_ holder calls it).
  // The workers live as long as the process: they are never joined, so no
  // exit-time destructor can race a kernel call from another static's.
  bool GrowTo(int count) {
    while (started_ < count) {
      try {
        std::thread([this, worker = started_] { WorkerLoop(worker); }).detach();
      } catch (const std::system_error&) {
        return false;
      }
      ++started_;
    }
    return true;
  }

  std::atomic<bool> busy_{false};
  int started_ = 0;
  // Generation of the current job (high 32 bits) and its next unclaimed index.
  std::atomic<uint64_t> state_{0};
  std::atomic<halide_task_t> task_{nullptr};
  std::atomic<void*> user_context_{nullptr};
  std::atomic<uint8_t*> closure_{nullptr};
  std::atomic<int> min_{0}, size_{0}, workers_{0};
  std::atomic<int> finished_{0}, first_error_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
};

std::chrono::microseconds SpinTimeFromEnvironment() {
  const char* text = std::getenv("HALNORM_SPIN_US");
  char* end = nullptr;
  const long us = text == nullptr ? -1 : std::strtol(text, &end, 10);
  if (text == nullptr || end == text || *end != '\0' || us < -1 || us > 1000000) {
    return kDefaultSpinTime;  // unset or not a number in range: as documented
  }
  return std::chrono::microseconds(us);
}

std::atomic<int64_t>& SpinTimeUs() {
  static std::atomic<int64_t> us{SpinTimeFromEnvironment().count()};
  return us;
}

// The process's pool. Never destroyed: its workers outlive every static (see
// GrowTo). A forked child gets a fresh one: the workers did not come along,
// and one of them may have held sleep_mutex_ at the fork. The parent's stays
// referenced so that leak checkers do not report it.
std::atomic<SpinningPool*> current_pool{nullptr};
SpinningPool* pool_before_fork = nullptr;

SpinningPool& Pool() {
  static std::once_flag once;
  std::call_once(once, [] {
    current_pool.store(new SpinningPool, std::memory_order_release);
    pthread_atfork(nullptr, nullptr, [] {
      pool_before_fork = current_pool.load(std::memory_order_relaxed);
      current_pool.store(new SpinningPool, std::memory_order_relaxed);
    });
  });
  return *current_pool.load(std::memory_order_acquire);
}

}  // namespace

void SetSpinningPoolSpinTime(std::chrono::microseconds spin) {
  SpinTimeUs().store(spin.count(), std::memory_order_relaxed);
}

std::chrono::microseconds SpinningPoolSpinTime() {
  return std::chrono::microseconds(SpinTimeUs().load(std::memory_order_relaxed));
}

int SpinningPoolMaxThreads() {
  static const int cores = [] {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) return CPU_COUNT(&allowed);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return cores;
}

bool RunOnSpinningPool(void* user_context, halide_task_t task, int min, int size, uint8_t* closure,
                       int threads, int* code) {
  if (threads < 2 || threads > SpinningPoolMaxThreads() || SpinningPoolSpinTime().count() < 0) {
    return false;
  }
  return Pool().Run(user_context, task, min, size, closure, threads, code);
}

}  // namespace halnorm::internal
