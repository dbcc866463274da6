// Runtime flags (has_weight, has_bias, ...) as specializations.
#ifndef HALNORM_SCHEDULES_FLAG_CASES_H_
#define HALNORM_SCHEDULES_FLAG_CASES_H_

#include <functional>
#include <vector>

#include "Halide.h"

namespace halnorm {

// Specializes `stage` on every combination of `flags`, each a bare bool
// parameter, nested one flag a level, and calls `schedule` on each of the
// 2^n cases (the unspecialized stage last). Halide 14 substitutes a
// specialization's condition into its branches only when it is a bare bool
// (SimplifySpecializations), so the flat list of conditions this replaced,
// {w && b, w, b}, left the selects on the flags unresolved in the loops. In
// the backward's "w" case (a weight, no dresidual: the common call) LLVM
// kept a test of has_dresidual in every vector step of dx, and the register
// pressure reloaded dx's base pointer from the stack: LayerNorm bf16
// backward on x86_avx2, 55 instructions per 16 elements of dx, 49 nested.
// JIT A/B, flat -> nested (Zen 3 VM, x86_avx2, vw16 acc2, 1 thread, medians
// of 41 side-by-side rounds, each kernel twice): backward bf16 RMSNorm
// 256x2048 and 64x4096 1.05-1.06x, LayerNorm 256x2048 1.02-1.04x, 64x4096
// 1.00x; f32 LayerNorm 0.99-1.01x; forwards 0.97-1.03x (LLVM had unswitched
// their common case).
void ForEachFlagCase(Halide::Stage stage, const std::vector<Halide::Expr>& flags,
                     const std::function<void(Halide::Stage)>& schedule);

}  // namespace halnorm

#endif  // HALNORM_SCHEDULES_FLAG_CASES_H_
