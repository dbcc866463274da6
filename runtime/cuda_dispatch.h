// Chooses the CUDA variant for a call on HALNORM_CUDA tensors.
#ifndef HALNORM_RUNTIME_CUDA_DISPATCH_H_
#define HALNORM_RUNTIME_CUDA_DISPATCH_H_

#include <cstdint>
#include <initializer_list>

#include "absl/status/statusor.h"
#include "runtime/dispatch.h"

namespace halnorm::internal {

// By the GPU configs' knobs (schedules/configs.bzl), not their order: rows
// that are not whole aligned vectors of a config's vector_width take the
// vector_width=1 config; the others a warp per row up to 1024 elements, a block of 256
// threads (the forward's staged in shared memory) up to 4096, the widest
// block beyond. FailedPrecondition when this build has no CUDA kernel for
// the request.
absl::StatusOr<const Variant*> PickCudaVariant(const KernelRequest& request);

// The widest vector (1, 2, 4 or 8 elements) the rows of these tensors (null
// ones skipped) are made of: data aligned to it, hidden and the `leading` row
// dims' strides multiples of it (the test device_call.h applies to a forced
// variant's buffers).
int RowVectorAlignment(int64_t hidden, int leading,
                       std::initializer_list<const halnorm_tensor*> rows);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_DISPATCH_H_
