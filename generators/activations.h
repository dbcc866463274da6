// How a kernel loads and stores its activations. All arithmetic is f32
// (ARCHITECTURE.md); f16 and bf16 are storage formats, converted on load and
// rounded to nearest even on store.
#ifndef HALNORM_GENERATORS_ACTIVATIONS_H_
#define HALNORM_GENERATORS_ACTIVATIONS_H_

#include <string>

#include "Halide.h"

namespace halnorm {

class Activations {
 public:
  // dtype: f32, f16 or bf16. Where the target converts in hardware (f16: x86
  // F16C, every AArch64 core; f32 -> bf16: x86 AVX512_BF16), the conversions
  // go through those instructions: their bitcode (native_half.ll,
  // native_bf16.ll) is added to `externs`, the generator's externs map,
  // which Halide links into the kernel. Elsewhere the conversions are
  // integer and float vector ops: on other x86 CPU targets, f32 -> bf16 is
  // vector_bf16.ll's (the same rounding, a branch per vector for NaNs).
  Activations(const std::string& dtype, const Halide::Target& target,
              Halide::GeneratorContext::ExternsMap& externs);

  // The buffers' type (KernelActivationType).
  Halide::Type type() const { return storage_; }

  // An activation value as f32.
  Halide::Expr ToF32(const Halide::Expr& v) const;

  // An f32 value as the activation type.
  Halide::Expr Store(const Halide::Expr& f32) const;

 private:
  Halide::Type type_;     // the dtype
  Halide::Type storage_;  // how the kernel's buffers hold it
  bool native_cast_;      // Halide's own casts (f16 on CUDA)
  bool native_half_ = false;    // f16 <-> f32 through native_half.ll
  bool bf16_store_ir_ = false;  // f32 -> bf16 through native_bf16.ll or vector_bf16.ll
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_ACTIVATIONS_H_
