#include "runtime/row_prefetch.h"

#include <cstdio>

#include "runtime/env_choice.h"

#if defined(__x86_64__)
#include "runtime/x86_cpuid.h"
#endif

namespace halnorm::internal {
namespace {

// f32 rows shorter or longer than these lost with the prefetch (row_norm_cpu.cc).
constexpr int64_t kF32MinHidden = 2048, kF32MaxHidden = 4096;

// Zen 3 and later (row_prefetch.h).
constexpr unsigned kFirstPrefetchingAmdFamily = 0x19;

bool HostGainsFromPrefetch() {
#if defined(__x86_64__)
  static const bool gains =
      CpuVendorIs("AuthenticAMD") && CpuFamily() >= kFirstPrefetchingAmdFamily;
  return gains;
#else
  return true;
#endif
}

}  // namespace

bool PrefetchRowsByDefault(const KernelRequest& request, bool streams, bool cpu_gains) {
  if (!cpu_gains) return false;
  if (request.dtype != HALNORM_F32) return true;
  return streams && request.hidden >= kF32MinHidden && request.hidden <= kF32MaxHidden;
}

bool PrefetchRows(const KernelRequest& request, bool streams) {
  static const EnvChoice choice = ReadEnvChoice("HALNORM_ROW_PREFETCH");
  const bool prefetch = choice == EnvChoice::kAuto
                            ? PrefetchRowsByDefault(request, streams, HostGainsFromPrefetch())
                            : choice == EnvChoice::kAlways;
  if (VerboseDispatch()) {
    std::fprintf(stderr, "halnorm dispatch: %s rows ahead (%s)\n",
                 prefetch ? "prefetching" : "not prefetching",
                 choice != EnvChoice::kAuto ? "HALNORM_ROW_PREFETCH set"
                 : HostGainsFromPrefetch()  ? "by dtype and streaming"
                                            : "a CPU it slows: Intel, AMD before Zen 3");
  }
  return prefetch;
}

}  // namespace halnorm::internal
