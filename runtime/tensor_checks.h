// halnorm_tensor descriptors: validation (every message starts with the
// argument's name, so the caller knows which one is wrong), and dense ones
// the runtime builds over its own memory.
#ifndef HALNORM_RUNTIME_TENSOR_CHECKS_H_
#define HALNORM_RUNTIME_TENSOR_CHECKS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

int64_t DtypeBytes(halnorm_dtype dtype);
int64_t NumElements(const halnorm_tensor& t);

// Non-null, a known device (CPU or CUDA: the op checks which it runs), a known dtype, rank 1..4, non-negative shape and
// strides, non-null data when non-empty, and a byte span the kernels can
// address (< 2^31 bytes).
absl::Status CheckTensor(const halnorm_tensor* t, const char* name);

const char* DeviceName(halnorm_device device);

// A contiguous (row-major) tensor of `shape` over `data`.
halnorm_tensor DenseTensor(void* data, halnorm_dtype dtype, halnorm_device device,
                           const std::vector<int64_t>& shape);

// `t` is on x's device.
absl::Status CheckSameDevice(const halnorm_tensor& t, const char* name, const halnorm_tensor& x);

// `t` has exactly `shape`.
absl::Status CheckShape(const halnorm_tensor& t, const char* name, absl::Span<const int64_t> shape);

// `t` has dtype `want`; `reason` says what it must match ("x", "f32 statistics").
absl::Status CheckDtype(const halnorm_tensor& t, const char* name, halnorm_dtype want,
                        const char* reason);

// Dims [first, rank) form one contiguous run (innermost stride 1).
absl::Status CheckContiguousFrom(const halnorm_tensor& t, const char* name, int first);

using NamedTensor = std::pair<const char*, const halnorm_tensor*>;

// No output shares a byte with any other tensor of the call (inputs or
// outputs), and no output dim of extent > 1 has stride 0. Null entries are
// skipped.
absl::Status CheckOutputsDisjoint(absl::Span<const NamedTensor> outputs,
                                  absl::Span<const NamedTensor> inputs);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TENSOR_CHECKS_H_
