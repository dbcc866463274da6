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
  // dtype: f32, f16 or bf16. Where the target converts f16 in hardware (x86
  // F16C, every AArch64 core), f16 goes through those instructions: the
  // conversions' bitcode (native_half.ll) is added to `externs`, the
  // generator's externs map, which Halide links into the kernel. Elsewhere
  // (and for bf16) the conversions are integer and float vector ops.
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
  bool native_half_ = false;
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_ACTIVATIONS_H_
