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

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_NORM_TYPES_H_
