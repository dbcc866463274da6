#include "generators/fused_multiply_add.h"

#include <cstddef>

#include "generators/native_code.h"

namespace halnorm {
namespace native_fma_bitcode {  // native_fma_bitcode.cc, generated
extern const unsigned char kX86_64[], kAarch64[];
extern const size_t kX86_64Size, kAarch64Size;
}  // namespace native_fma_bitcode

FusedMultiplyAdd::FusedMultiplyAdd(const Halide::Target& target,
                                   Halide::GeneratorContext::ExternsMap& externs)
    : cuda_(target.has_feature(Halide::Target::CUDA)) {
  if (target.bits != 64 || target.has_gpu_feature()) return;
  if (target.arch == Halide::Target::X86 && target.has_feature(Halide::Target::FMA)) {
    LinkBitcode(externs, target, "halnorm.native_fma", native_fma_bitcode::kX86_64,
                native_fma_bitcode::kX86_64Size);
    native_ = true;
  } else if (target.arch == Halide::Target::ARM) {
    LinkBitcode(externs, target, "halnorm.native_fma", native_fma_bitcode::kAarch64,
                native_fma_bitcode::kAarch64Size);
    native_ = true;
  }
}

Halide::Expr FusedMultiplyAdd::operator()(const Halide::Expr& a, const Halide::Expr& b,
                                          const Halide::Expr& c) const {
  return native_ ? CallNative(Halide::Float(32), "halnorm_fma", {a, b, c}) : a * b + c;
}

Halide::Expr FusedMultiplyAdd::Accumulate(const Halide::Expr& sum, const Halide::Expr& factor,
                                          const Halide::Expr& other_factor) const {
  return other_factor.defined() ? (*this)(factor, other_factor, sum) : sum + factor;
}

Halide::Expr FusedMultiplyAdd::RoundedProduct(const Halide::Expr& a, const Halide::Expr& b) const {
  return cuda_ ? CallNative(Halide::Float(32), "__nv_fmul_rn", {a, b}) : a * b;
}

}  // namespace halnorm
