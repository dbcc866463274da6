// Per-feature parameters (weight, bias, dweight, dbias) in f16/bf16 on
// CUDA: the row-norm kernels read and write them in f32, so a call converts
// them on the device, in stream order, with small kernels of the runtime's
// own (PTX text, loaded once per context). Rounding as on CPU: to nearest,
// ties to even.
#ifndef HALNORM_RUNTIME_CUDA_PARAM_CONVERT_H_
#define HALNORM_RUNTIME_CUDA_PARAM_CONVERT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// Which way a conversion goes, between f32 and the 16-bit `dtype`.
enum class ParamConversion { kToF32, kFromF32 };

// dst = src converted, `count` contiguous elements of device memory, queued
// on `stream` in `context` (current). InvalidArgument for a dtype that is
// not f16 or bf16.
absl::Status ConvertParamOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                                halnorm_dtype dtype, ParamConversion conversion, const void* src,
                                void* dst, int64_t count);

// The kernels' PTX (tests assemble it with ptxas).
const std::string& ParamConvertPtx();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_PARAM_CONVERT_H_
