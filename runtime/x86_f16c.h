// Whether this x86-64 CPU and OS can run F16C (and so AVX) instructions.
// GCC's __builtin_cpu_supports("f16c") says the same, but clang 14 (used by
// --config=fuzz) has no "f16c" key, so ask CPUID and XGETBV directly.
#ifndef HALNORM_RUNTIME_X86_F16C_H_
#define HALNORM_RUNTIME_X86_F16C_H_

#if defined(__x86_64__)
#include <cpuid.h>

namespace halnorm::internal {

inline bool CpuHasF16c() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX) || !(ecx & bit_F16C)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 6) == 6;  // the OS saves XMM and YMM state
}

}  // namespace halnorm::internal

#endif  // __x86_64__
#endif  // HALNORM_RUNTIME_X86_F16C_H_
