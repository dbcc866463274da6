#include "runtime/cpu_features.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace halnorm::internal {
namespace {

Isa DetectHostIsa() {
  __builtin_cpu_init();
  // avx512_skylake in Halide = F + CD + BW + DQ + VL.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl")) {
    return Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c")) {
    return Isa::kAvx2;
  }
  return Isa::kSse41;
}

Isa CappedIsa() {
  Isa isa = HostIsa();
  const char* cap = std::getenv("HALNORM_MAX_ISA");
  if (cap == nullptr) return isa;
  for (Isa level : {Isa::kSse41, Isa::kAvx2, Isa::kAvx512}) {
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
  }
  return "?";
}

Isa HostIsa() {
  static const Isa host = DetectHostIsa();
  return host;
}

bool HostSupports(Isa isa) { return isa <= HostIsa(); }

Isa MaxDispatchIsa() {
  static const Isa capped = CappedIsa();
  return capped;
}

}  // namespace halnorm::internal
