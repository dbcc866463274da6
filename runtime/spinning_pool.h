// The kernels' own worker threads, which spin for a while between calls.
//
// Halide's pool puts its workers to sleep a few yields after their last task,
// so a call that comes after other work (a model's matmuls between two
// norms) pays a futex wake per worker, ~13 us on the dev VM. For decode
// shapes (16 rows, 5-20 us of work) that doubles or triples the call, and a
// one-task variant wins over a parallel one. oneDNN's OpenMP threads spin
// (KMP_BLOCKTIME) and do not pay it.
//
// Here a worker spins after its last job before it sleeps (for the spin time
// below), so calls made between other work find it awake; a call after a
// longer pause still wakes it. Each thread, the caller included, works
// through a contiguous share of the tasks, claimed one at a time from a
// counter on a cache line of its own, then takes what is left of the
// others' shares, so a late worker costs nothing but its share. (One
// counter shared by all moved its cache line between cores on every task:
// ~0.35 us a task on the dev VM.)
//
// Measured on the 2-core dev VM (LayerNorm bf16 16x8192 with 4-row tasks, 2
// threads, a busy gap between calls standing for the model's other ops):
// back to back 7.0 us a call with Halide's pool and 6.7 us here; with a
// 20-100 us gap 19.3-20.5 us there and 6.9-7.6 us here; with a 1 ms gap,
// past the spin time, 21 and 20 us.
#ifndef HALNORM_RUNTIME_SPINNING_POOL_H_
#define HALNORM_RUNTIME_SPINNING_POOL_H_

#include <chrono>
#include <cstdint>

#include "HalideRuntime.h"

namespace halnorm::internal {

// The default spin time: long enough to span the other ops of a model's
// layer, short enough that a worker idles for at most 1 ms past an app's
// last call (OpenMP's default is 200 ms). After the first kPureSpin it
// yields the core between checks, so runnable threads of the app go first.
// HALNORM_SPIN_US (0..1000000) overrides it: 0 sleeps at once, and -1 turns
// the pool off (loops run on Halide's pool, as before it).
inline constexpr std::chrono::microseconds kDefaultSpinTime{1000};
inline constexpr std::chrono::microseconds kPureSpin{50};

// Runs task(user_context, i, closure) for every i in [min, min + size) on
// `threads` threads: the caller and threads - 1 pool workers. Returns false,
// running nothing, when the pool cannot take the loop: another loop holds it
// (a concurrent call, or a task's own nested loop), threads is below 2 or
// above the cores (or 64), size is above 65535, or the pool is off (spin
// time -1). Otherwise returns true with *code = 0, or the
// first nonzero code a task returned (the tasks not yet started are then skipped).
bool RunOnSpinningPool(void* user_context, halide_task_t task, int min, int size, uint8_t* closure,
                       int threads, int* code);

// How many loops this thread has run on the pool that had to wake a sleeping
// worker or start one: a timing of such a loop measures the wake-up.
uint32_t LoopsThatWokeWorkers();

// The threads the pool can run a loop on: the cores this process may use.
int SpinningPoolMaxThreads();

// How long idle workers spin from now on, or -1: the pool is off (tests and
// benchmarks set it).
void SetSpinningPoolSpinTime(std::chrono::microseconds spin);
std::chrono::microseconds SpinningPoolSpinTime();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_SPINNING_POOL_H_
