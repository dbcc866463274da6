// x86-64 CPU features that GCC's __builtin_cpu_supports knows but clang 14
// (used by --config=fuzz) does not ("f16c", "avx512bf16"): asked of CPUID
// (and XGETBV) directly.
#ifndef HALNORM_RUNTIME_X86_CPUID_H_
#define HALNORM_RUNTIME_X86_CPUID_H_

#if defined(__x86_64__)
#include <cpuid.h>

#include <cstring>

namespace halnorm::internal {

// Whether this CPU and OS can run F16C (and so AVX) instructions.
inline bool CpuHasF16c() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX) || !(ecx & bit_F16C)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 6) == 6;  // the OS saves XMM and YMM state
}

// AVX512_BF16 (CPUID.(EAX=7,ECX=1):EAX bit 5); the caller checks AVX-512 itself.
inline bool CpuHasAvx512Bf16() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  return (eax & (1u << 5)) != 0;
}

// Whether CPUID names `vendor` ("GenuineIntel", "AuthenticAMD": 12 chars).
inline bool CpuVendorIs(const char* vendor) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
  char id[12];  // EBX, EDX, ECX, in that order
  std::memcpy(id, &ebx, 4);
  std::memcpy(id + 4, &edx, 4);
  std::memcpy(id + 8, &ecx, 4);
  return std::memcmp(id, vendor, 12) == 0;
}

inline bool CpuIsIntel() { return CpuVendorIs("GenuineIntel"); }

// CPUID's display family: the base family, plus the extended family when the
// base is 0xf (AMD Zen and Zen 2: 0x17; Zen 3 and Zen 4: 0x19).
inline unsigned CpuFamily() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const unsigned base = (eax >> 8) & 0xf;
  return base == 0xf ? base + ((eax >> 20) & 0xff) : base;
}

// CPUID's display model: the base model, plus the extended model above it
// when the base family is 6 or 0xf (Intel Sapphire Rapids: 143; Zen 2 Rome: 49).
inline unsigned CpuDisplayModel() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const unsigned base_family = (eax >> 8) & 0xf, base = (eax >> 4) & 0xf;
  return base_family == 6 || base_family == 0xf ? base + (((eax >> 16) & 0xf) << 4) : base;
}

}  // namespace halnorm::internal

#endif  // __x86_64__
#endif  // HALNORM_RUNTIME_X86_CPUID_H_
