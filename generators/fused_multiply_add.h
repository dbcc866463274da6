// a * b + c for the kernels' per-element maps. On CPUs that fuse it in
// hardware (x86 FMA3, every AArch64 core) it is one instruction with one
// rounding (generators/native_fma.ll); Halide 14 cannot emit one itself
// under strict_float. Fewer ops per element made the 16-bit kernels up to
// 1.5x faster on one core (schedules/row_norm_cpu.cc has the figures).
// Elsewhere (x86 SSE4.1, GPUs) it is a multiply and an add, rounded twice,
// so those targets' results differ from the fused ones in the last bits.
#ifndef HALNORM_GENERATORS_FUSED_MULTIPLY_ADD_H_
#define HALNORM_GENERATORS_FUSED_MULTIPLY_ADD_H_

#include "Halide.h"

namespace halnorm {

class FusedMultiplyAdd {
 public:
  // Adds native_fma.ll's bitcode to `externs` where the target fuses.
  FusedMultiplyAdd(const Halide::Target& target, Halide::GeneratorContext::ExternsMap& externs);

  // a * b + c, all f32.
  Halide::Expr operator()(const Halide::Expr& a, const Halide::Expr& b,
                          const Halide::Expr& c) const;

  // A running sum's next value: sum + factor * other_factor, fused, or
  // sum + factor when other_factor is undefined.
  Halide::Expr Accumulate(const Halide::Expr& sum, const Halide::Expr& factor,
                          const Halide::Expr& other_factor) const;

  // a * b rounded to f32 on its own, never fused into a later add. CUDA's
  // PTX backend contracts a * b + c into one fma (strict_float does not
  // stop it), which keeps the product's rounding error where an algorithm
  // subtracts the rounded product again. There it is libdevice's
  // __nv_fmul_rn, a mul.rn.ftz that PTX never fuses (LLVM turns the
  // non-flushing NVVM intrinsic back into a plain, fusable multiply; the
  // flush only zeroes products below 2^-126). CPUs build under strict_float.
  Halide::Expr RoundedProduct(const Halide::Expr& a, const Halide::Expr& b) const;

 private:
  bool native_ = false;
  bool cuda_ = false;
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_FUSED_MULTIPLY_ADD_H_
