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
  // Forward on CPU tensors: weight and bias (those given) are 16-bit, of
  // x's dtype, and go to the kernel as they are (row_norm_forward.cc).
  bool native_params = false;
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

// For a row-norm forward whose weight and bias (those given, one at least)
// have x's 16-bit dtype: whether dispatch runs it on a native-params
// variant, which reads them as they are, rather than converting them to f32
// on every call. At one row that conversion moved as many bytes as the
// kernel (LayerNorm bf16 1x4096, 1 thread: ~0.28 us of a 1.17 us call), but
// the native kernel converts both per element of every row, so it loses
// from a few rows on. Same config, 1 thread, plain / native time (Zen 4
// VM, x86_avx512(_bf16)):
//   LayerNorm bf16  1x1024 1.29  1x4096 1.41  2x2048 1.14  4x2048 1.03
//                   8x2048 0.95  16x4096 0.90  512x768 0.86  4096x1024 0.85
//   LayerNorm f16   1x4096 1.42  4x8192 1.20  16x8192 1.06  512x4096 1.02
//                   4096x1024 0.96
//   RMSNorm bf16    2x2048 1.06  4x2048 1.01  4x8192 0.99  8x8192 0.90
//   RMSNorm f16     4x2048 1.06  16x8192 0.94
// So: a call native-params variants can run (NativeParamsFit), of up to
// kNativeParamsMaxRows rows, that does not stream its stores (only the
// plain variants have streaming twins). Both ignore request.native_params.
inline constexpr int64_t kNativeParamsMaxRows = 4;
bool NativeParamsPay(const KernelRequest& request);
// What native-params variants compute: 16-bit row-norm forwards on CPU
// tensors without a fused residual (a forced one runs any such call).
bool NativeParamsFit(const KernelRequest& request);

// `forced` when given (after CheckForcedVariant), else PickVariant.
absl::StatusOr<const Variant*> ChooseVariant(const KernelRequest& request, const Variant* forced);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_DISPATCH_H_
