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

bool HostIsIntel() {
#if defined(__x86_64__)
  static const bool intel = CpuIsIntel();
  return intel;
#else
  return false;
#endif
}

}  // namespace

bool PrefetchRowsByDefault(const KernelRequest& request, bool streams, bool intel_cpu) {
  if (intel_cpu) return false;
  if (request.dtype != HALNORM_F32) return true;
  return streams && request.hidden >= kF32MinHidden && request.hidden <= kF32MaxHidden;
}

bool PrefetchRows(const KernelRequest& request, bool streams) {
  static const EnvChoice choice = ReadEnvChoice("HALNORM_ROW_PREFETCH");
  const bool prefetch = choice == EnvChoice::kAuto
                            ? PrefetchRowsByDefault(request, streams, HostIsIntel())
                            : choice == EnvChoice::kAlways;
  if (VerboseDispatch()) {
    std::fprintf(stderr, "halnorm dispatch: %s rows ahead (%s)\n",
                 prefetch ? "prefetching" : "not prefetching",
                 choice != EnvChoice::kAuto ? "HALNORM_ROW_PREFETCH set"
                 : HostIsIntel()            ? "Intel CPU"
                                            : "by dtype and streaming");
  }
  return prefetch;
}

}  // namespace halnorm::internal
