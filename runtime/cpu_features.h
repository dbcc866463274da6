// What the host CPU can run, detected once.
#ifndef HALNORM_RUNTIME_CPU_FEATURES_H_
#define HALNORM_RUNTIME_CPU_FEATURES_H_

#include <vector>

namespace halnorm::internal {

// Per architecture, ordered: a higher level implies every lower one of the
// same architecture. A build holds the variants of one architecture only.
enum class Isa {
  // x86-64
  kSse41 = 0,
  kAvx2 = 1,
  kAvx512 = 2,      // avx512_skylake: F, CD, BW, DQ, VL
  kAvx512Bf16 = 3,  // kAvx512 plus AVX512_BF16
  // AArch64
  kNeon = 10,         // ARMv8.0 Advanced SIMD
  kNeonFp16Dot = 11,  // ARMv8.2: half-precision arithmetic and dot product
};

const char* IsaName(Isa isa);

// This build's architecture's levels, lowest first (the HALNORM_MAX_ISA values).
const std::vector<Isa>& IsaLevels();

// The widest ISA the CPU executes (HALNORM_MAX_ISA does not matter here).
Isa HostIsa();
// `isa` is of this build's architecture and the CPU has it.
bool HostSupports(Isa isa);

// The best ISA dispatch may use: the host's, capped by HALNORM_MAX_ISA
// (read once; an unknown value caps nothing).
Isa MaxDispatchIsa();

// The CPU vendor a tuned table may hold picks of its own for (cpu_tables in
// schedules/tuned/*.bzl; the same kernels rank differently on Intel and AMD
// cores): "intel", "amd", or "" for any other CPU.
const char* HostCpuVendor();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CPU_FEATURES_H_
