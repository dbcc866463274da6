// The compiled kernel variants, from the generated variants.inc X-macro.
#ifndef HALNORM_RUNTIME_VARIANT_REGISTRY_H_
#define HALNORM_RUNTIME_VARIANT_REGISTRY_H_

#include "HalideRuntime.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/cpu_features.h"
#include "runtime/halnorm_c.h"
#include "runtime/kernel_args.h"

namespace halnorm::internal {

// kLayerNorm2d: LayerNorm2d over C of NCHW (the channel-norm kernels); its other
// axes and layouts run on the kLayerNorm kernels.
enum class Op { kLayerNorm, kRmsNorm, kLayerNorm2d };
enum class Direction { kForward, kBackward };
// Where a variant's kernels run. CPU dispatch takes kCpu variants only;
// kCuda variants run a call on HALNORM_CUDA tensors; kOpenCL variants (the
// GPU schedules as OpenCL C) are for tests, which run them through PoCL.
enum class Device { kCpu, kCuda, kOpenCL };

struct Variant {
  const char* name;  // what, then how: layer_norm_fwd_f32__x86_avx512_c0
  Op op;
  Direction direction;
  halnorm_dtype dtype;  // of the activations
  bool fused_residual;  // forward with h = alpha*x + residual
  bool native_params;   // forward taking 16-bit weight and bias as they are
  const char* target;   // TARGETS key in tools/bazel/halide.bzl
  Isa isa;              // what the CPU must have to run it (or to call it, for a GPU)
  Device device;
  const char* config;   // schedule knobs, "k=v k=v"
  int config_index;     // the config's index in its target's list (the name's _c<k>)
  // Halide's generic entry point and its argument list: kernels of
  // different ops take different arguments, bound by name (kernel_call.h).
  int (*argv)(void** args);
  // The same kernel storing its large outputs non-temporally
  // (streaming_stores.h); nullptr where the target has none.
  int (*streaming_argv)(void** args);
  const halide_filter_metadata_t* metadata;  // argument names, in argv order
  ArgumentSlots slots;                       // where each KernelArg goes in argv
};

absl::Span<const Variant> AllVariants();

// This build has kernels for `device` (CUDA: x86-64 builds).
bool BuildHasDevice(Device device);

// The value of knob `key` in a variant's config ("threads=32 rows_per_block=4"),
// booleans as 1/0; -1 when the config has no such knob.
int ConfigKnob(const Variant& variant, const char* key);

// The variant named `name`, or nullptr (a linear scan: not for per-call use).
const Variant* FindVariant(absl::string_view name);

const char* OpName(Op op);
const char* DirectionName(Direction direction);
const char* DtypeName(halnorm_dtype dtype);
const char* DeviceName(Device device);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_VARIANT_REGISTRY_H_
