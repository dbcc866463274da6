#include "runtime/variant_registry.h"

#include "runtime/kernels.h"

namespace halnorm::internal {
namespace {

constexpr Variant kVariants[] = {
#define HALNORM_VARIANT(name, op, direction, dtype, residual, target, isa, config) \
  {#name,    Op::op, Direction::direction, dtype,           residual, target,      \
   Isa::isa, config, &name##_argv,         &name##_metadata},
#include "runtime/variants.inc"
#undef HALNORM_VARIANT
};

}  // namespace

absl::Span<const Variant> AllVariants() { return kVariants; }

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

}  // namespace halnorm::internal
