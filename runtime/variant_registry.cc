#include "runtime/variant_registry.h"

#include <cstdlib>
#include <cstring>

#include "runtime/kernels.h"

namespace halnorm::internal {

absl::Span<const Variant> AllVariants() {
  // Function-local: the metadata pointers come from calls, and other static
  // initializers may dispatch.
  static const Variant variants[] = {
#define HALNORM_VARIANT(name, op, direction, dtype, residual, native_params, target, isa,   \
                        device, config, index, streaming)                                     \
  {#name,         Op::op,         Direction::direction, dtype,  residual,     native_params, \
   target,        Isa::isa,       Device::device,       config, index,        &name##_argv,  \
   streaming,     name##_metadata(), SlotsOf(*name##_metadata())},
#include "runtime/variants.inc"
#undef HALNORM_VARIANT
  };
  return variants;
}

bool BuildHasDevice(Device device) {
  for (const Variant& v : AllVariants()) {
    if (v.device == device) return true;
  }
  return false;
}

int ConfigKnob(const Variant& variant, const char* key) {
  const size_t length = std::strlen(key);
  for (const char* at = std::strstr(variant.config, key); at != nullptr;
       at = std::strstr(at + 1, key)) {
    const bool starts_word = at == variant.config || at[-1] == ' ';
    if (!starts_word || at[length] != '=') continue;
    const char* value = at + length + 1;
    if (std::strncmp(value, "true", 4) == 0) return 1;
    return std::strncmp(value, "false", 5) == 0 ? 0 : std::atoi(value);
  }
  return -1;
}

const Variant* FindVariant(absl::string_view name) {
  for (const Variant& v : AllVariants()) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kLayerNorm:
      return "layer_norm";
    case Op::kRmsNorm:
      return "rms_norm";
    case Op::kLayerNorm2d:
      return "layer_norm2d";
  }
  return "?";
}

const char* DirectionName(Direction direction) {
  return direction == Direction::kForward ? "fwd" : "bwd";
}

const char* DtypeName(halnorm_dtype dtype) {
  switch (dtype) {
    case HALNORM_F32:
      return "f32";
    case HALNORM_F16:
      return "f16";
    case HALNORM_BF16:
      return "bf16";
  }
  return "unknown";
}

const char* DeviceName(Device device) {
  switch (device) {
    case Device::kCpu:
      return "cpu";
    case Device::kCuda:
      return "cuda";
    case Device::kOpenCL:
      return "opencl";
  }
  return "?";
}

}  // namespace halnorm::internal
