// What the host CPU can run, detected once.
#ifndef HALNORM_RUNTIME_CPU_FEATURES_H_
#define HALNORM_RUNTIME_CPU_FEATURES_H_

namespace halnorm::internal {

// Ordered: a higher level implies every lower one.
enum class Isa { kSse41 = 0, kAvx2 = 1, kAvx512 = 2 };

const char* IsaName(Isa isa);

// The widest ISA the CPU executes (HALNORM_MAX_ISA does not matter here).
Isa HostIsa();
bool HostSupports(Isa isa);

// The best ISA dispatch may use: the host's, capped by HALNORM_MAX_ISA
// (read once; an unknown value caps nothing).
Isa MaxDispatchIsa();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CPU_FEATURES_H_
