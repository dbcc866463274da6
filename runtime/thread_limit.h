// halnorm_set_num_threads, made exact. Halide's own halide_set_num_threads
// only limits how many pool workers get woken: workers already spinning keep
// taking tasks, so after a 2-thread call a "1-thread" call still ran on 2
// cores (measured: CPU time = 2x wall time). We install a do_par_for that
// runs each parallel loop on at most n threads of our own spinning pool
// (spinning_pool.h), or, when that is taken, hands Halide's pool at most n
// tasks, each a contiguous slice. A loop nested in a task of a loop that
// already has a task for every thread runs on that task's thread.
#ifndef HALNORM_RUNTIME_THREAD_LIMIT_H_
#define HALNORM_RUNTIME_THREAD_LIMIT_H_

namespace halnorm::internal {

// At most n threads run any one parallel loop of the kernels; n <= 0 lifts
// the limit (the pool's default, one thread per core). Process-wide.
void SetThreadLimit(int n);

// The threads a parallel loop runs on now: the limit, or one per core.
int ThreadsPerLoop();

// While one lives, the parallel loops this thread starts run on it alone.
class LoopsOnThisThread {
 public:
  LoopsOnThisThread();
  ~LoopsOnThisThread();
  LoopsOnThisThread(const LoopsOnThisThread&) = delete;
  LoopsOnThisThread& operator=(const LoopsOnThisThread&) = delete;

 private:
  const bool outer_;
};

// Installs the kernels' do_par_for (idempotent; every kernel call does):
// besides the limit, it carries a Halide error a task reports on a pool
// thread back to the thread running the loop, so the call's status has
// Halide's message (status.h HalideErrorText).
void InstallParallelLoop();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_THREAD_LIMIT_H_
