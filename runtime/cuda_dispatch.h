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
// vector_width=1 config; the others the config whose threads per row are
// nearest (in powers of two; fewer on a tie) to those that give each thread
// 64-127 bytes of the row: 32 threads below 4 KiB rows, 64 below 8 KiB, ...,
// 512 from 32 KiB (up to 255 bytes a thread), 1024 from 128 KiB. That rule
// is the H100 sweep of `gpu_bench --all_configs` (schedules/row_norm_gpu.cc),
// less its 1024 threads for 64-127 KiB rows: on an H200 512 ran f32 N =
// 16384 1.04-1.38x faster (the rule against the best config of 88 cases, M =
// 4096, N = 768-16384: geomean 0.975, worst 0.80). LayerNorm2d (the
// channel-norm kernels, rows = pixels): the largest block of pixels that
// still gives each SM of a large GPU one, else the smallest.
// FailedPrecondition when this build has no CUDA kernel for the request.
absl::StatusOr<const Variant*> PickCudaVariant(const KernelRequest& request);

// The widest vector (1, 2, 4 or 8 elements) the rows of these tensors (null
// ones skipped) are made of: data aligned to it, hidden and the `leading` row
// dims' strides multiples of it (the test device_call.h applies to a forced
// variant's buffers).
int RowVectorAlignment(int64_t hidden, int leading,
                       std::initializer_list<const halnorm_tensor*> rows);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_DISPATCH_H_
