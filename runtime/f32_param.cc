#include "runtime/f32_param.h"

#include "runtime/half_float.h"

namespace halnorm::internal {

namespace {

// Contiguous f32 with no offset is used in place; anything else is converted.
bool UsableInPlace(const halnorm_tensor* t, float offset) {
  return t != nullptr && t->dtype == HALNORM_F32 && t->strides[t->rank - 1] == 1 && offset == 0.f;
}

std::vector<float> ConvertedWithOffset(const halnorm_tensor& t, int64_t count, float offset) {
  std::vector<float> values = ToF32(t, count);
  if (offset != 0.f) {
    for (float& v : values) v += offset;
  }
  return values;
}

}  // namespace

F32Param::F32Param(const halnorm_tensor* t, int64_t count, const void* placeholder, float offset)
    : present_(t != nullptr),
      values_(present_ && !UsableInPlace(t, offset) ? ConvertedWithOffset(*t, count, offset)
                                                    : std::vector<float>{}),
      buffer_(!present_                   ? placeholder
              : UsableInPlace(t, offset) ? t->data
                                          : static_cast<const void*>(values_.data()),
              halide_type_t(halide_type_float, 32), {{count, 1}}) {}

}  // namespace halnorm::internal
