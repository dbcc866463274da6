#include "runtime/small_calls.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "runtime/env_choice.h"
#include "runtime/spinning_pool.h"
#include "runtime/thread_limit.h"

namespace halnorm::internal {
namespace {

// One call in kTimeEvery is timed. Every kTrialEvery calls, kTrialCalls in
// a row go the other way; only their second half is timed: the first ones
// move the rows between the threads' caches (one serial call among split
// ones pulls the worker's rows to the caller's L2), and a lone trial timed
// that move (LayerNorm bf16 backward 16x2048, ns/KiB: split 27 steady, 43
// when tried alone among serial calls, as dear as serial).
constexpr uint32_t kTimeEvery = 8, kTrialEvery = 512, kTrialCalls = 8;

// A way's cost after its first timing, which is dropped (page faults, or the
// rows still where the other way left them).
constexpr float kWarmedUp = -1.f;

// The chooser of each registered variant, by its place in AllVariants();
// nullptr for a variant from elsewhere (tests build their own).
SmallCallChooser* ChooserOf(const Variant& variant) {
  static SmallCallChooser* const choosers = new SmallCallChooser[AllVariants().size()];
  const absl::Span<const Variant> all = AllVariants();
  if (&variant < all.data() || &variant >= all.data() + all.size()) return nullptr;
  return &choosers[&variant - all.data()];
}

}  // namespace

SmallCallChooser::Choice SmallCallChooser::Next() {
  const uint32_t n = calls_.fetch_add(1, std::memory_order_relaxed);
  const float split = split_cost_.load(std::memory_order_relaxed);
  const float serial = serial_cost_.load(std::memory_order_relaxed);
  // A way not timed yet (cost <= 0) is preferred: the split first.
  const bool prefer_split = split <= serial;
  const uint32_t in_cycle = n % kTrialEvery;
  if (in_cycle == 0) trial_split_.store(!prefer_split, std::memory_order_relaxed);
  if (in_cycle < kTrialCalls && split > 0.f && serial > 0.f) {
    return {trial_split_.load(std::memory_order_relaxed), in_cycle >= kTrialCalls / 2};
  }
  return {prefer_split, n % kTimeEvery == 0};
}

void SmallCallChooser::Record(const Choice& choice, float ns_per_kib, bool woke_workers) {
  if (choice.split && woke_workers) return;
  std::atomic<float>& cost = choice.split ? split_cost_ : serial_cost_;
  const float old = cost.load(std::memory_order_relaxed);
  float now;
  if (old == 0.f) {
    now = kWarmedUp;  // a way's first call may have paid page faults
  } else if (old == kWarmedUp) {
    now = ns_per_kib;
  } else {
    // A quarter of the way to the new timing; one stalled call (an
    // interrupt) counts as at most 4x.
    now = old + (std::min(ns_per_kib, 4 * old) - old) / 4;
  }
  cost.store(now, std::memory_order_relaxed);
}

int RunCpuKernel(const Variant& variant, int (*entry)(void** args), void** args, int64_t bytes) {
  if (bytes < kTinyCallBytes || bytes > kSmallCallBytes || ThreadsPerLoop() < 2) {
    return entry(args);
  }
  static const EnvChoice forced = ReadEnvChoice("HALNORM_SPLIT_SMALL_CALLS");
  SmallCallChooser* chooser = forced == EnvChoice::kAuto ? ChooserOf(variant) : nullptr;
  // Without a chooser (a forced way, or an unregistered variant) nothing is timed.
  const SmallCallChooser::Choice choice =
      chooser != nullptr ? chooser->Next()
                         : SmallCallChooser::Choice{forced != EnvChoice::kNever, false};
  std::optional<LoopsOnThisThread> here;
  if (!choice.split) here.emplace();
  if (!choice.timed) return entry(args);
  const uint32_t woken_before = LoopsThatWokeWorkers();
  const auto start = std::chrono::steady_clock::now();
  const int code = entry(args);
  const std::chrono::duration<float, std::nano> took = std::chrono::steady_clock::now() - start;
  if (code == 0) {
    chooser->Record(choice, took.count() * 1024.f / static_cast<float>(bytes),
                    LoopsThatWokeWorkers() != woken_before);
  }
  return code;
}

}  // namespace halnorm::internal
