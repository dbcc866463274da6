#include "runtime/f32_param.h"

#include "runtime/half_float.h"

namespace halnorm::internal {

namespace {

// Contiguous f32 is used in place; anything else is converted.
bool UsableInPlace(const halnorm_tensor* t) {
  return t != nullptr && t->dtype == HALNORM_F32 && t->strides[t->rank - 1] == 1;
}

}  // namespace

F32Param::F32Param(const halnorm_tensor* t, int64_t count, const void* placeholder)
    : present_(t != nullptr),
      values_(present_ && !UsableInPlace(t) ? ToF32(*t, count) : std::vector<float>{}),
      buffer_(!present_           ? placeholder
              : UsableInPlace(t) ? t->data
                                 : static_cast<const void*>(values_.data()),
              halide_type_t(halide_type_float, 32), {{count, 1}}) {}

}  // namespace halnorm::internal
