// Small CPU calls with several threads allowed: split across the pool, or
// run on the caller's thread alone, whichever has lately been faster.
//
// Splitting a call of a few microseconds pays only while the threads' cores
// do not share their L1/L2. The Zen 4 dev VM's two vCPUs spend phases of
// seconds on the two hyperthreads of one core: a 256 KiB memcpy on both at
// once then ran at half speed on each (4000 copies: 19 ms -> 36-40 ms), and
// RMSNorm f32 forward 16x768 split in two took 3.2 us against 2.1 us on one
// thread, where between those phases the split took 1.65-1.8 us. No fixed
// choice is right in both phases, so each variant's small calls time both
// ways as they run (a few calls in 8) and take the faster; one call in 32
// tries the other way, so a change of phase is seen within ~100 calls.
// Results do not change: they are the same for any thread count (README,
// "Deterministic").
#ifndef HALNORM_RUNTIME_SMALL_CALLS_H_
#define HALNORM_RUNTIME_SMALL_CALLS_H_

#include <atomic>
#include <cstdint>

#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Calls touching at most this many bytes are small: their split's gain is a
// few microseconds at most, and timing one costs ~50 ns.
inline constexpr int64_t kSmallCallBytes = int64_t{1} << 20;

// One variant's record of its small calls (a class for the tests' sake).
class SmallCallChooser {
 public:
  struct Choice {
    bool split;  // false: the call's loops run on the caller's thread
    bool timed;  // the caller measures the call and reports it to Record
    // A scheduled trial of the split: if its loop wakes the pool's threads,
    // the next call tries the split again.
    bool retry_if_woken;
  };

  // Thread-safe: concurrent calls may share a chooser (a lost update only
  // drops one timing).
  Choice Next();
  // A timed call's cost, in ns per KiB. woke_workers: its loop had to wake
  // (or start) pool threads, so it measured the wake-up, not the split: it
  // is dropped (see retry_if_woken).
  void Record(const Choice& choice, float ns_per_kib, bool woke_workers);

 private:
  std::atomic<uint32_t> calls_{0};
  // Smoothed costs, ns per KiB; 0 before the way's first timing, and
  // negative after it (it is dropped: it may have paid page faults).
  std::atomic<float> split_cost_{0.f}, serial_cost_{0.f};
  std::atomic<bool> retry_trial_{false};
};

// Runs a CPU kernel (entry(args)) that touches `bytes`: as is, or, when it is
// small and several threads are allowed, with its parallel loops where the
// variant's chooser says. HALNORM_SPLIT_SMALL_CALLS=always or never fixes
// the choice (benchmarks, A/B runs). Returns the kernel's code.
int RunCpuKernel(const Variant& variant, int (*entry)(void** args), void** args, int64_t bytes);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_SMALL_CALLS_H_
