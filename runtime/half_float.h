// f16/bf16 <-> f32 for the small per-feature tensors (weight, bias, dweight,
// dbias): the kernels take those in f32, so N values are converted per call.
// At decode shapes (a few rows) that is a good part of the call, hence the
// vectorized and hardware (F16C, AArch64) conversions.
#ifndef HALNORM_RUNTIME_HALF_FLOAT_H_
#define HALNORM_RUNTIME_HALF_FLOAT_H_

#include <cstdint>
#include <vector>

#include "runtime/halnorm_c.h"

namespace halnorm::internal {

float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);  // round to nearest even
float Bf16ToFloat(uint16_t bits);
uint16_t FloatToBf16(float value);  // round to nearest even

// The `count` contiguous values of a f32/f16/bf16 tensor, as f32.
void ToF32(const halnorm_tensor& t, int64_t count, float* out);
std::vector<float> ToF32(const halnorm_tensor& t, int64_t count);

// Stores `count` f32 values into a contiguous f32/f16/bf16 tensor.
void StoreFromF32(const float* values, int64_t count, const halnorm_tensor& t);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_HALF_FLOAT_H_
