#include "runtime/f32_param.h"

#include "runtime/half_float.h"

namespace halnorm::internal {

namespace {

// Contiguous f32 with no offset is used in place; anything else is converted.
bool UsableInPlace(const halnorm_tensor* t, float offset) {
  return t != nullptr && t->dtype == HALNORM_F32 && t->strides[t->rank - 1] == 1 && offset == 0.f;
}

// Not zero-filled first: at decode shapes that memset is a visible cost.
std::unique_ptr<float[]> ConvertedWithOffset(const halnorm_tensor& t, int64_t count, float offset) {
  std::unique_ptr<float[]> values(new float[count]);
  ToF32(t, count, values.get());
  if (offset != 0.f) {
    for (int64_t i = 0; i < count; i++) values[i] += offset;
  }
  return values;
}

}  // namespace

F32Param::F32Param(const halnorm_tensor* t, int64_t count, const void* placeholder, float offset)
    : present_(t != nullptr),
      values_(present_ && !UsableInPlace(t, offset) ? ConvertedWithOffset(*t, count, offset)
                                                    : nullptr),
      buffer_(!present_                  ? placeholder
              : UsableInPlace(t, offset) ? t->data
                                         : static_cast<const void*>(values_.get()),
              halide_type_t(halide_type_float, 32), {{count, 1}}) {}

}  // namespace halnorm::internal
