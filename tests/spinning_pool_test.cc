// The kernels' spinning worker pool: every index runs once per loop, back to
// back and after the workers fell asleep; errors come back; a busy pool
// (concurrent callers, nested loops), one turned off, or a loop of more
// tasks than a share holds declines, and the caller's fallback runs.
#include "runtime/spinning_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "HalideRuntime.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {
namespace {

struct Visits {
  std::vector<std::atomic<int>> count;
  explicit Visits(int n) : count(n) {}
};

int CountVisit(void*, int i, uint8_t* closure) {
  reinterpret_cast<Visits*>(closure)->count[i]++;
  return 0;
}

// Runs a loop of `size` over [min, min + size) on the pool; expects it taken.
void ExpectEveryIndexOnce(int min, int size, int threads) {
  Visits visits(min + size);
  int code = -1;
  ASSERT_TRUE(RunOnSpinningPool(nullptr, CountVisit, min, size, reinterpret_cast<uint8_t*>(&visits),
                                threads, &code));
  EXPECT_EQ(code, 0);
  for (int i = 0; i < min + size; i++) {
    ASSERT_EQ(visits.count[i].load(), i < min ? 0 : 1) << "index " << i << " of " << size;
  }
}

class SpinningPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (SpinningPoolMaxThreads() < 2) GTEST_SKIP() << "one core: the pool never runs";
  }
};

TEST_F(SpinningPoolTest, EveryIndexOnceBackToBack) {
  // Thousands of short loops in a row: the workers stay awake between them,
  // which is where a late worker could claim a task of the next loop.
  for (int round = 0; round < 3000; round++) {
    ExpectEveryIndexOnce(round % 3, 1 + round % 17, 2);
  }
}

TEST_F(SpinningPoolTest, EveryIndexOnceAfterTheWorkersSlept) {
  const auto spin = SpinningPoolSpinTime();
  for (auto setting : {std::chrono::microseconds(0), std::chrono::microseconds(200)}) {
    SetSpinningPoolSpinTime(setting);
    for (int round = 0; round < 5; round++) {
      ExpectEveryIndexOnce(0, 64, SpinningPoolMaxThreads());
      std::this_thread::sleep_for(setting + std::chrono::milliseconds(2));
    }
  }
  SetSpinningPoolSpinTime(spin);
}

TEST_F(SpinningPoolTest, DeclinesOneThreadMoreThanTheCoresAndWhenOff) {
  Visits visits(4);
  auto* closure = reinterpret_cast<uint8_t*>(&visits);
  int code = 0;
  EXPECT_FALSE(
      RunOnSpinningPool(nullptr, CountVisit, 0, 4, closure, SpinningPoolMaxThreads() + 1, &code));
  EXPECT_FALSE(RunOnSpinningPool(nullptr, CountVisit, 0, 4, closure, 1, &code));
  const auto spin = SpinningPoolSpinTime();
  SetSpinningPoolSpinTime(std::chrono::microseconds(-1));
  EXPECT_FALSE(RunOnSpinningPool(nullptr, CountVisit, 0, 4, closure, 2, &code));
  SetSpinningPoolSpinTime(spin);
  for (auto& count : visits.count) EXPECT_EQ(count.load(), 0);
  EXPECT_TRUE(RunOnSpinningPool(nullptr, CountVisit, 0, 4, closure, 2, &code));
}

TEST_F(SpinningPoolTest, TakesLoopsUpTo65535TasksAndDeclinesLarger) {
  // A participant's share packs its next and end indices in 16 bits each.
  ExpectEveryIndexOnce(3, 65535, 2);
  Visits visits(65536);
  int code = 0;
  EXPECT_FALSE(RunOnSpinningPool(nullptr, CountVisit, 0, 65536, reinterpret_cast<uint8_t*>(&visits),
                                 2, &code));
  for (auto& count : visits.count) ASSERT_EQ(count.load(), 0);
}

int FailAtSeven(void*, int i, uint8_t*) { return i == 7 ? -42 : 0; }

TEST_F(SpinningPoolTest, ReturnsTheFailingTasksCode) {
  int code = 0;
  ASSERT_TRUE(RunOnSpinningPool(nullptr, FailAtSeven, 0, 32, nullptr, 2, &code));
  EXPECT_EQ(code, -42);
  // And the pool is usable afterwards.
  ExpectEveryIndexOnce(0, 32, 2);
}

// A task that runs a loop of its own through the kernels' do_par_for: the
// pool is held by the outer loop, so the inner one must fall back.
int NestedLoop(void*, int, uint8_t* closure) {
  return halide_do_par_for(nullptr, CountVisit, 0, 8, closure);
}

TEST_F(SpinningPoolTest, NestedLoopFallsBack) {
  halnorm_set_num_threads(2);  // installs the kernels' do_par_for
  Visits inner(8);
  EXPECT_EQ(halide_do_par_for(nullptr, NestedLoop, 0, 4, reinterpret_cast<uint8_t*>(&inner)), 0);
  for (auto& count : inner.count) EXPECT_EQ(count.load(), 4);
  halnorm_set_num_threads(0);
}

TEST_F(SpinningPoolTest, ConcurrentCallersAllComplete) {
  halnorm_set_num_threads(2);
  constexpr int kCallers = 4, kLoops = 500, kSize = 9;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < kCallers; c++) {
    callers.emplace_back([&] {
      for (int loop = 0; loop < kLoops; loop++) {
        Visits visits(kSize);
        if (halide_do_par_for(nullptr, CountVisit, 0, kSize, reinterpret_cast<uint8_t*>(&visits)))
          wrong++;
        for (auto& count : visits.count) wrong += count.load() != 1;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(wrong.load(), 0);
  halnorm_set_num_threads(0);
}

// A forked child has none of the parent's workers; its loops still run all
// their tasks (on a fresh pool), instead of waiting for workers that are gone.
TEST_F(SpinningPoolTest, ForkedChildRunsItsLoops) {
  if (std::getenv("HALNORM_TEST_UNDER_QEMU") != nullptr) {
    GTEST_SKIP() << "qemu-user aborts in a child forked from a process with threads";
  }
  ExpectEveryIndexOnce(0, 16, 2);  // the parent's workers exist
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Visits visits(16);
    int code = -1;
    const bool ran = RunOnSpinningPool(nullptr, CountVisit, 0, 16,
                                       reinterpret_cast<uint8_t*>(&visits), 2, &code);
    int once = 0;
    for (auto& count : visits.count) once += count.load() == 1;
    _exit(ran && code == 0 && once == 16 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

}  // namespace
}  // namespace halnorm::internal
