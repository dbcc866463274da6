// GeneratorParam vocabulary shared by the row-norm generators.
#ifndef HALNORM_GENERATORS_NORM_TYPES_H_
#define HALNORM_GENERATORS_NORM_TYPES_H_

#include <map>
#include <string>

#include "Halide.h"

namespace halnorm {

enum class NormKind { kLayer, kRms };

inline const std::map<std::string, NormKind> kNormKinds = {{"layer", NormKind::kLayer},
                                                           {"rms", NormKind::kRms}};

// Activation dtype names as in variant names. Halide's own Type parameter
// has no bfloat16, hence strings.
inline Halide::Type ActivationType(const std::string& dtype) {
  if (dtype == "f16") return Halide::Float(16);
  if (dtype == "bf16") return Halide::BFloat(16);
  if (dtype != "f32") throw std::invalid_argument("dtype must be f32, f16 or bf16: " + dtype);
  return Halide::Float(32);
}

// cast(act, v) for a kernel's stored outputs. Halide 14 lowers f32 -> f16
// in software (EmulateFloat16Math) and tests "too large: inf" before "NaN",
// so every NaN would be stored as +-inf; NaN gets the f16 quiet NaN instead.
inline Halide::Expr StoreAs(Halide::Type act, Halide::Expr v) {
  if (act != Halide::Float(16)) return Halide::cast(act, v);
  const Halide::Expr f16_nan = Halide::reinterpret(act, Halide::cast<uint16_t>(0x7e00));
  return Halide::select(Halide::is_nan(v), f16_nan, Halide::cast(act, v));
}

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_NORM_TYPES_H_
