// halnorm_set_num_threads caps how many threads run a kernel's parallel loop,
// even after the pool has grown (Halide's own setting does not), nested loops
// included.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "HalideRuntime.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/thread_limit.h"

namespace {

// A parallel loop body that records how many bodies run at once.
struct Probe {
  std::atomic<int> active{0}, max_active{0};
  std::vector<std::atomic<int>> visits;
  explicit Probe(int n) : visits(n) {}
};

int ProbeTask(void*, int i, uint8_t* closure) {
  auto* probe = reinterpret_cast<Probe*>(closure);
  int now = ++probe->active;
  int seen = probe->max_active.load();
  while (now > seen && !probe->max_active.compare_exchange_weak(seen, now)) {
  }
  // Long enough that a second worker, if allowed, overlaps with this one.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  probe->visits[i]++;
  probe->active--;
  return 0;
}

int MaxConcurrency(int threads, int iterations) {
  halnorm_set_num_threads(threads);
  Probe probe(iterations);
  EXPECT_EQ(
      halide_do_par_for(nullptr, ProbeTask, 0, iterations, reinterpret_cast<uint8_t*>(&probe)), 0);
  for (int i = 0; i < iterations; i++) EXPECT_EQ(probe.visits[i].load(), 1) << "index " << i;
  return probe.max_active.load();
}

TEST(ThreadLimitTest, OneThreadAfterThePoolGrew) {
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  EXPECT_LE(MaxConcurrency(cores, 64), cores);
  EXPECT_EQ(MaxConcurrency(1, 64), 1);
}

TEST(ThreadLimitTest, TwoThreadsNeverMore) {
  EXPECT_LE(MaxConcurrency(2, 65), 2);
  EXPECT_LE(MaxConcurrency(2, 1), 1);
}

// A loop nested in the task of a loop with a task for every thread
// (LayerNorm2d's pixel tiles within its samples) adds no threads: it runs on
// the thread of its outer task.
constexpr int kOuter = 4, kInner = 6;

struct InnerLoop {
  Probe* probe;
  int first;  // the probe index of its task 0: every (outer, inner) pair has one
};

int InnerTask(void*, int i, uint8_t* closure) {
  auto* inner = reinterpret_cast<InnerLoop*>(closure);
  return ProbeTask(nullptr, inner->first + i, reinterpret_cast<uint8_t*>(inner->probe));
}

int OuterTask(void*, int o, uint8_t* closure) {
  InnerLoop inner{reinterpret_cast<Probe*>(closure), o * kInner};
  return halide_do_par_for(nullptr, InnerTask, 0, kInner, reinterpret_cast<uint8_t*>(&inner));
}

TEST(ThreadLimitTest, NestedLoopsStayWithinTheLimit) {
  halnorm_set_num_threads(2);
  Probe probe(kOuter * kInner);
  EXPECT_EQ(halide_do_par_for(nullptr, OuterTask, 0, kOuter, reinterpret_cast<uint8_t*>(&probe)),
            0);
  for (int i = 0; i < kOuter * kInner; i++) EXPECT_EQ(probe.visits[i].load(), 1) << "index " << i;
  EXPECT_LE(probe.max_active.load(), 2);
}

TEST(ThreadLimitTest, ZeroMeansDefaultAndRunsEverything) { EXPECT_GE(MaxConcurrency(0, 16), 1); }

// What a small call the chooser runs serially gets (small_calls.h).
TEST(ThreadLimitTest, LoopsOnThisThreadRunOnOne) {
  {
    halnorm::internal::LoopsOnThisThread here;
    EXPECT_EQ(MaxConcurrency(2, 8), 1);
  }
}

}  // namespace
