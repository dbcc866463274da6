#include "runtime/cpu_features.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#else
#include "runtime/x86_cpuid.h"
#endif

namespace halnorm::internal {
namespace {

#if defined(__aarch64__)
Isa DetectHostIsa() {
  // Halide's arm_fp16 needs FP16 scalar and vector arithmetic; arm_dot_prod
  // the SDOT/UDOT instructions. (AArch64 Linux always has ASIMD.)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long fp16 = HWCAP_FPHP | HWCAP_ASIMDHP;
  if ((hwcap & fp16) == fp16 && (hwcap & HWCAP_ASIMDDP) != 0) return Isa::kNeonFp16Dot;
  return Isa::kNeon;
}
#else
Isa DetectHostIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return CpuHasAvx512Bf16() ? Isa::kAvx512Bf16 : Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && CpuHasF16c()) {
    return Isa::kAvx2;
  }
  return Isa::kSse41;
}
#endif

Isa CappedIsa() {
  Isa isa = HostIsa();
  const char* cap = std::getenv("HALNORM_MAX_ISA");
  if (cap == nullptr) return isa;
  for (Isa level : IsaLevels()) {
    if (std::strcmp(cap, IsaName(level)) == 0 && level < isa) return level;
  }
  return isa;
}

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kSse41:
      return "sse41";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx512Bf16:
      return "avx512_bf16";
    case Isa::kNeon:
      return "neon";
    case Isa::kNeonFp16Dot:
      return "neon_fp16_dot";
  }
  return "?";
}

const std::vector<Isa>& IsaLevels() {
#if defined(__aarch64__)
  static const std::vector<Isa> levels = {Isa::kNeon, Isa::kNeonFp16Dot};
#else
  static const std::vector<Isa> levels = {Isa::kSse41, Isa::kAvx2, Isa::kAvx512,
                                                Isa::kAvx512Bf16};
#endif
  return levels;
}

Isa HostIsa() {
  static const Isa host = DetectHostIsa();
  return host;
}

bool HostSupports(Isa isa) { return isa >= IsaLevels().front() && isa <= HostIsa(); }

Isa MaxDispatchIsa() {
  static const Isa capped = CappedIsa();
  return capped;
}

std::vector<std::string> CpuTableChain(const std::string& key) {
  if (key.empty() || key == "none") return {};
  std::vector<std::string> chain = {key};
  for (size_t end = key.rfind('_'); end != std::string::npos && end > 0;
       end = key.rfind('_', end - 1)) {
    chain.push_back(key.substr(0, end));
  }
  return chain;
}

const std::vector<std::string>& HostCpuTables() {
  static const auto* tables = [] {
    std::string key;
#if defined(__x86_64__)
    if (CpuIsIntel()) {
      key = absl::StrCat("intel_model", CpuDisplayModel());
    } else if (CpuVendorIs("AuthenticAMD")) {
      key = absl::StrCat("amd_family", CpuFamily(), "_model", CpuDisplayModel());
    }
#endif
    return new std::vector<std::string>(CpuTableChain(key));
  }();
  return *tables;
}

}  // namespace halnorm::internal
