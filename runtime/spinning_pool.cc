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

// A participant's share of a job: indices [next, end), tagged with the
// job's generation so that a worker still holding an older job claims
// nothing. Each share has its own cache line: a participant working through
// its own share touches no line another core reads, and only the last few
// indices, taken by whoever runs out first, move lines between cores.
class Share {
 public:
  // Tasks fit in 16 bits (RunOnSpinningPool declines larger loops).
  static constexpr int kMaxTasks = 0xffff;

  void Post(uint32_t generation, int begin, int end) {
    word_.store(uint64_t{generation} << 32 | uint64_t(begin) << 16 | uint64_t(end),
                std::memory_order_relaxed);
  }

  // Takes the share's next index, if the share is still `generation`'s.
  bool Claim(uint32_t generation, int* index) {
    uint64_t word = word_.load(std::memory_order_acquire);
    for (;;) {
      const auto next = static_cast<int>(word >> 16 & 0xffff),
                 end = static_cast<int>(word & 0xffff);
      if (static_cast<uint32_t>(word >> 32) != generation || next >= end) return false;
      if (word_.compare_exchange_weak(word, word + (uint64_t{1} << 16),
                                      std::memory_order_acq_rel)) {
        *index = next;
        return true;
      }
    }
  }

 private:
  alignas(64) std::atomic<uint64_t> word_{0};
};

// Loops this thread ran that had to wake a sleeping worker or start one.
thread_local uint32_t loops_that_woke_workers = 0;

class SpinningPool {
 public:
  // Threads one loop may run on (the caller included).
  static constexpr int kMaxThreads = 64;

  bool Run(void* user_context, halide_task_t task, int min, int size, uint8_t* closure, int threads,
           int* code) {
    bool idle = false;
    if (!busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return false;
    const int started_before = started_;
    if (!GrowTo(threads - 1)) {
      busy_.store(false, std::memory_order_release);
      return false;
    }
    bool woke = started_ > started_before;
    // The job's fields are atomics only so that a worker reading them while
    // the next job is posted is not a data race; such a worker holds the
    // older generation, so its claims fail.
    task_.store(task, std::memory_order_relaxed);
    user_context_.store(user_context, std::memory_order_relaxed);
    closure_.store(closure, std::memory_order_relaxed);
    min_.store(min, std::memory_order_relaxed);
    threads_.store(threads, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    first_error_.store(0, std::memory_order_relaxed);
    const uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
    // Contiguous shares, so each thread's rows sit together.
    for (int p = 0; p < threads; p++) {
      shares_[p].Post(generation, static_cast<int>(int64_t{size} * p / threads),
                      static_cast<int>(int64_t{size} * (p + 1) / threads));
    }
    // seq_cst, paired with a worker's sleepers_ increment: either the worker
    // sees this generation before it sleeps, or we see it asleep and wake it.
    generation_.store(generation, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      // Taking the mutex orders this notify after a sleeper's wait began.
      { std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
      woke = true;
    }
    if (woke) ++loops_that_woke_workers;
    RunClaimedTasks(generation, 0, threads, user_context, task, min, closure);
    while (finished_.load(std::memory_order_acquire) < size) CpuRelax();
    *code = first_error_.load(std::memory_order_relaxed);
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  // Participant `self` (0: the caller; worker w: w + 1) runs its own share,
  // then takes what is left of the others'. A worker that arrives late finds
  // its share taken and runs nothing.
  void RunClaimedTasks(uint32_t generation, int self, int threads, void* user_context,
                       halide_task_t task, int min, uint8_t* closure) {
    int ran = 0, index;
    for (int k = 0; k < threads; k++) {
      Share& share = shares_[(self + k) % threads];
      while (share.Claim(generation, &index)) {
        // After a failure the rest are skipped, but still counted as finished.
        if (first_error_.load(std::memory_order_relaxed) == 0) {
          if (const int code = task(user_context, min + index, closure); code != 0) {
            int none = 0;
            first_error_.compare_exchange_strong(none, code, std::memory_order_relaxed);
          }
        }
        ran++;
      }
    }
    // Once per participant, not per task: the caller spins on this line.
    if (ran > 0) finished_.fetch_add(ran, std::memory_order_release);
  }

  // Spins, then sleeps, until a job newer than `seen` is posted.
  uint32_t WaitForJob(uint32_t seen) {
    const auto start = std::chrono::steady_clock::now();
    const auto spin = SpinningPoolSpinTime();
    for (unsigned checks = 1; spin.count() > 0; ++checks) {
      const uint32_t generation = generation_.load(std::memory_order_acquire);
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
      generation = generation_.load(std::memory_order_seq_cst);
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
      const int threads = threads_.load(std::memory_order_relaxed);
      if (worker + 1 >= threads) continue;
      RunClaimedTasks(generation, worker + 1, threads,
                      user_context_.load(std::memory_order_relaxed),
                      task_.load(std::memory_order_relaxed), min_.load(std::memory_order_relaxed),
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

  // Lines apart: the caller's, the posted job's, the finish count, and a
  // share per participant.
  alignas(64) std::atomic<bool> busy_{false};
  int started_ = 0;
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  alignas(64) std::atomic<uint32_t> generation_{0};
  std::atomic<halide_task_t> task_{nullptr};
  std::atomic<void*> user_context_{nullptr};
  std::atomic<uint8_t*> closure_{nullptr};
  std::atomic<int> min_{0}, threads_{0};
  alignas(64) std::atomic<int> finished_{0};
  std::atomic<int> first_error_{0};
  Share shares_[kMaxThreads];
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

uint32_t LoopsThatWokeWorkers() { return loops_that_woke_workers; }

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
  if (threads < 2 || threads > SpinningPoolMaxThreads() || threads > SpinningPool::kMaxThreads ||
      size > Share::kMaxTasks || SpinningPoolSpinTime().count() < 0) {
    return false;
  }
  return Pool().Run(user_context, task, min, size, closure, threads, code);
}

}  // namespace halnorm::internal
