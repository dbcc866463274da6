#include "runtime/f32_param.h"

#include "runtime/half_float.h"

namespace halnorm::internal {

F32Param::F32Param(const halnorm_tensor* t, int64_t count, const void* placeholder)
    : present_(t != nullptr),
      values_(present_ ? ToF32(*t, count) : std::vector<float>{}),
      buffer_(present_ ? static_cast<const void*>(values_.data()) : placeholder,
              halide_type_t(halide_type_float, 32), {{count, 1}}) {}

}  // namespace halnorm::internal
