// Small CPU calls with several threads allowed: split across the pool, or
// run on the caller's thread alone, whichever has lately been faster.
//
// Splitting a call of a few microseconds pays only while the threads' cores
// do not share their L1/L2. The Zen 4 dev VM's two vCPUs spend phases of
// seconds on one physical core: a 256 KiB memcpy on both at once then ran
// at half speed on each (4000 copies: 19 ms -> 36-40 ms), and
// RMSNorm f32 forward 16x768 split in two took 3.2 us against 2.1 us on one
// thread, where between those phases the split took 1.65-1.8 us. No fixed
// choice is right in both phases, so each variant's small calls time the
// way they take (one call in 8), and every 512 calls try the other way for
// 8 calls in a row; whichever has lately been cheaper per byte is taken. A
// change of phase is followed within ~16 calls when the way taken turns
// dear, or ~1000 (a few ms) when the other turns cheap. Costs are per byte
// and per variant: a variant's calls of different shapes share them.
// Results do not change: they are the same for any thread count (README,
// "Deterministic").
#ifndef HALNORM_RUNTIME_SMALL_CALLS_H_
#define HALNORM_RUNTIME_SMALL_CALLS_H_

#include <atomic>
#include <cstdint>

#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Calls touching at most kSmallCallBytes (up to ~20 us) are small: a trial
// of the slower way costs them a few us at most, and timing one (two clock
// reads, ~50 ns) little next to the call. Larger calls always split. Calls
// under kTinyCallBytes (~1 us) run as their kernel says: the forward's
// tasks have 16 KiB or more (forward_tasks.h), and choosing would cost them
// 3% (RMSNorm f32 forward 16x128, 2 threads: 0.78 -> 0.81 us).
inline constexpr int64_t kTinyCallBytes = int64_t{32} << 10;
inline constexpr int64_t kSmallCallBytes = int64_t{1} << 20;

// One variant's record of its small calls (a class for the tests' sake).
class SmallCallChooser {
 public:
  struct Choice {
    bool split;  // false: the call's loops run on the caller's thread
    bool timed;  // the caller measures the call and reports it to Record
  };

  // Thread-safe: concurrent calls may share a chooser (a lost update only
  // drops one timing).
  Choice Next();
  // A timed call's cost, in ns per KiB. woke_workers: its loop had to wake
  // (or start) pool threads, so it measured the wake-up, not the split: it
  // is dropped. (Where calls come further apart than the pool's spin time,
  // every split call wakes a worker: the split's cost then stays as it was.)
  void Record(const Choice& choice, float ns_per_kib, bool woke_workers);

 private:
  std::atomic<uint32_t> calls_{0};
  // Smoothed costs, ns per KiB; 0 before the way's first timing, and
  // negative after it (it is dropped: it may have paid page faults).
  std::atomic<float> split_cost_{0.f}, serial_cost_{0.f};
  std::atomic<bool> trial_split_{false};  // the way the current trial takes
};

// Runs a CPU kernel (entry(args)) that reads and writes `bytes`: as is, or,
// when several threads are allowed and the call is small, with its parallel
// loops where the variant's chooser says. HALNORM_SPLIT_SMALL_CALLS=always
// or never fixes that choice (benchmarks, A/B runs). Returns the kernel's
// code.
int RunCpuKernel(const Variant& variant, int (*entry)(void** args), void** args, int64_t bytes);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_SMALL_CALLS_H_
