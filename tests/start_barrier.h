// A reusable barrier for tests that race threads (std::barrier is C++20).
#ifndef HALNORM_TESTS_START_BARRIER_H_
#define HALNORM_TESTS_START_BARRIER_H_

#include <condition_variable>
#include <mutex>

namespace halnorm::testutil {

class StartBarrier {
 public:
  explicit StartBarrier(int threads) : threads_(threads) {}

  // Blocks until `threads` callers have arrived, then releases them all.
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int generation = generation_;
    if (++arrived_ == threads_) {
      arrived_ = 0;
      generation_++;
      released_.notify_all();
      return;
    }
    released_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  const int threads_;
  std::mutex mutex_;
  std::condition_variable released_;
  int arrived_ = 0;
  int generation_ = 0;
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_START_BARRIER_H_
