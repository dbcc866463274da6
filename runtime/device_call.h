// Runs a GPU variant's kernel (Variant::device kCuda or kOpenCL).
//
// Arguments in device memory (a halide_buffer_t with `device` set and no
// `host`: HALNORM_CUDA tensors) are used in place, on the CUDA context that
// owns them and the caller's stream. Arguments in host memory go through
// Halide's own copies: marked host-dirty so the kernel copies them in,
// outputs copied back afterwards, and every device allocation Halide made
// for them freed before returning. That is how tests run the GPU schedules
// on host tensors (OpenCL on the CPU through PoCL; CUDA where a GPU is).
#ifndef HALNORM_RUNTIME_DEVICE_CALL_H_
#define HALNORM_RUNTIME_DEVICE_CALL_H_

#include "absl/status/status.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// OK when `device`'s driver is there: the CPU always; CUDA with libcuda and
// a GPU; OpenCL with libOpenCL and a platform. FailedPrecondition otherwise,
// saying what is missing. Checked once, then cached.
absl::Status DeviceAvailable(Device device);

// FailedPrecondition ("... config does not fit this call ...") when the
// variant's config cannot run `args`: with vector_width > 1, a row-norm
// argument not laid out in whole aligned vectors (data aligned to the
// vector, hidden and row strides multiples of it). Dispatch never picks such
// a config (cuda_dispatch.h).
absl::Status CheckGpuConfigFits(const Variant& variant, void** args);

// `status` is such a refusal: another config of the variant's target runs
// the call (tests forcing every variant skip those cases).
bool IsConfigRefusal(const absl::Status& status);

// `args` as for `entry` (the variant's argv entry point); cuda_stream: the
// CUstream to launch on (null: the legacy default stream), CUDA only.
absl::Status RunOnDevice(const Variant& variant, int (*entry)(void** args), void** args,
                         void* cuda_stream);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_DEVICE_CALL_H_
