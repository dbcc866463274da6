// Calls a kernel through Halide's _argv entry point, binding its arguments by
// the names its generator gave them, so the runtime never restates a
// kernel's signature (it differs by op, residual fusion, ...).
#ifndef HALNORM_RUNTIME_KERNEL_CALL_H_
#define HALNORM_RUNTIME_KERNEL_CALL_H_

#include <cstdint>

#include "HalideRuntime.h"
#include "absl/status/status.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

class KernelCall {
 public:
  explicit KernelCall(const Variant& variant);

  // Binding a name the kernel does not take is ignored: callers bind what
  // any variant of the op may take (e.g. bias, which RMSNorm lacks).
  KernelCall& Bind(const char* name, halide_buffer_t* buffer);
  KernelCall& Bind(const char* name, float value);
  KernelCall& Bind(const char* name, bool value);
  KernelCall& Bind(const char* name, int32_t value);

  // Runs the kernel; an error if an argument was left unbound or the kernel
  // failed (with Halide's message).
  absl::Status Run();

 private:
  union Scalar {
    float f32;
    bool boolean;
    int32_t i32;
  };
  int Find(const char* name) const;

  // Inline, so a call allocates nothing; every generator has fewer.
  static constexpr int kMaxArguments = 24;

  const Variant& variant_;
  const halide_filter_metadata_t& metadata_;
  void* args_[kMaxArguments] = {};
  Scalar scalars_[kMaxArguments] = {};  // args_ point into it
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_CALL_H_
