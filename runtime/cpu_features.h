// What the host CPU can run, detected once.
#ifndef HALNORM_RUNTIME_CPU_FEATURES_H_
#define HALNORM_RUNTIME_CPU_FEATURES_H_

#include <string>
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

// The tuned tables that may hold picks for this CPU (cpu_tables in
// schedules/tuned/*.bzl; the same kernels rank differently across vendors and
// core generations), most specific first: "amd_family25_model1",
// "amd_family25", "amd" on Zen 3 Milan (AMD's CPUID display family and
// model: family 25 holds Zen 3 and Zen 4, which rank configs differently, so
// the model tells them apart; Zen 2 is 23, Zen 5 26); "intel_model143",
// "intel" on Sapphire Rapids (Intel's display model: its cores are all
// family 6); none on other CPUs.
const std::vector<std::string>& HostCpuTables();

// The tables `key` stands for, most specific first: the key, then each
// prefix of it ending before a '_': "amd_family25_model1" ->
// {"amd_family25_model1", "amd_family25", "amd"}, "amd" -> {"amd"}; "" or
// "none" -> {} (the default tables only).
std::vector<std::string> CpuTableChain(const std::string& key);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CPU_FEATURES_H_
