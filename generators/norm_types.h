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

// The type activation buffers have in a kernel for `target`: the dtype's,
// except 16-bit floats on OpenCL, which are their bits (uint16): Halide 14
// declares both as `half` in OpenCL C, which needs cl_khr_fp16 (PoCL on CPUs
// has none), and the kernels convert them with integer ops there anyway.
// The runtime passes those buffers as uint16 (runtime/device_call.cc).
inline Halide::Type KernelActivationType(const std::string& dtype, const Halide::Target& target) {
  const Halide::Type type = ActivationType(dtype);
  if (type.bits() == 16 && target.has_feature(Halide::Target::OpenCL)) return Halide::UInt(16);
  return type;
}

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_NORM_TYPES_H_
