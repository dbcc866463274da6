// Chooses which compiled variant runs a call.
#ifndef HALNORM_RUNTIME_DISPATCH_H_
#define HALNORM_RUNTIME_DISPATCH_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// What a call needs; the shape picks among a target's configs.
struct KernelRequest {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  bool fused_residual;
  int64_t hidden;  // elements per row; C for LayerNorm2d's channel-norm kernels
  int64_t rows;    // rows of the whole call; N*H*W pixels for the channel-norm kernels
  halnorm_device device = HALNORM_CPU;  // where the tensors are
  // CUDA: the widest vector (elements: 1, 2, 4 or 8) every row tensor's
  // rows are made of, aligned to it (RowVectorAlignment); the GPU configs
  // with vector_width > 1 need it (device_call.h).
  int row_vector_alignment = 8;
};

// HALNORM_CUDA tensors: the CUDA variant for the shape (cuda_dispatch.h).
// CPU tensors: takes the widest target the CPU allows (capped by HALNORM_MAX_ISA) that
// computes the request, then its config from, in order: the runtime tuning
// file (dispatch_tuning.h), the built-in table (builtin_tuning.h), config 0.
// Tables key on the shape buckets of tuning_buckets.h. Past the first call it
// allocates nothing (verbose mode aside);
// HALNORM_VERBOSE=dispatch prints the choice and why to stderr.
absl::StatusOr<const Variant*> PickVariant(const KernelRequest& request);

// HALNORM_VERBOSE includes "dispatch" (read once).
bool VerboseDispatch();

// A variant the caller forced (tests, benchmarks) fits the request and runs
// here: on this CPU, or a GPU variant (on CPU tensors it runs through
// Halide's host<->device copies: device_call.h).
absl::Status CheckForcedVariant(const Variant& variant, const KernelRequest& request);

// `forced` when given (after CheckForcedVariant), else PickVariant.
absl::StatusOr<const Variant*> ChooseVariant(const KernelRequest& request, const Variant* forced);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_DISPATCH_H_
