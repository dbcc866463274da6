// Calls a kernel through Halide's _argv entry point, binding its arguments by
// the names its generator gave them (as KernelArg slots resolved once per
// variant), so the runtime never restates a kernel's signature (it differs
// by op, residual fusion, ...).
#ifndef HALNORM_RUNTIME_KERNEL_CALL_H_
#define HALNORM_RUNTIME_KERNEL_CALL_H_

#include <cstdint>

#include "HalideRuntime.h"
#include "absl/status/status.h"
#include "runtime/kernel_args.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

class KernelCall {
 public:
  // streaming_stores: run the variant's streaming twin (streaming_stores.h).
  explicit KernelCall(const Variant& variant, bool streaming_stores = false);

  // Binding an argument the kernel does not take is ignored: callers bind
  // what any variant of the op may take (e.g. bias, which RMSNorm lacks).
  KernelCall& Bind(KernelArg arg, halide_buffer_t* buffer);
  KernelCall& Bind(KernelArg arg, float value);
  KernelCall& Bind(KernelArg arg, bool value);
  KernelCall& Bind(KernelArg arg, int32_t value);

  // The bytes the call reads and writes (x and y, ...), which decide whether
  // a CPU call is small enough to run on one thread when that is faster
  // (small_calls.h). Not given: the call runs as its kernel says.
  KernelCall& Touching(int64_t bytes) {
    bytes_ = bytes;
    return *this;
  }

  // GPU variants: the CUstream to launch on (device_call.h).
  KernelCall& OnCudaStream(void* cuda_stream) {
    cuda_stream_ = cuda_stream;
    return *this;
  }

  // Runs the kernel; an error if an argument was left unbound or the kernel
  // failed (with Halide's message). GPU variants run through RunOnDevice.
  absl::Status Run();

 private:
  union Scalar {
    float f32;
    bool boolean;
    int32_t i32;
  };
  // Inline, so a call allocates nothing; every generator has fewer.
  static constexpr int kMaxArguments = 24;

  // -1 also past kMaxArguments, which Run() reports.
  int Slot(KernelArg arg) const {
    const int slot = variant_.slots[static_cast<int>(arg)];
    return slot < kMaxArguments ? slot : -1;
  }

  const Variant& variant_;
  int (*const entry_)(void** args);  // the variant's argv or its twin's
  const halide_filter_metadata_t& metadata_;
  void* args_[kMaxArguments] = {};
  void* cuda_stream_ = nullptr;
  int64_t bytes_ = 0;
  Scalar scalars_[kMaxArguments];  // args_ point into it
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_KERNEL_CALL_H_
