#include "runtime/kernel_call.h"

#include "absl/strings/str_cat.h"
#include "runtime/device_call.h"
#include "runtime/small_calls.h"
#include "runtime/status.h"
#include "runtime/thread_limit.h"

namespace halnorm::internal {

KernelCall::KernelCall(const Variant& variant, bool streaming_stores)
    : variant_(variant),
      entry_(streaming_stores && variant.streaming_argv ? variant.streaming_argv : variant.argv),
      metadata_(*variant.metadata) {}

KernelCall& KernelCall::Bind(KernelArg arg, halide_buffer_t* buffer) {
  if (int i = Slot(arg); i >= 0) args_[i] = buffer;
  return *this;
}

KernelCall& KernelCall::Bind(KernelArg arg, float value) {
  if (int i = Slot(arg); i >= 0) {
    scalars_[i].f32 = value;
    args_[i] = &scalars_[i];
  }
  return *this;
}

KernelCall& KernelCall::Bind(KernelArg arg, bool value) {
  if (int i = Slot(arg); i >= 0) {
    scalars_[i].boolean = value;
    args_[i] = &scalars_[i];
  }
  return *this;
}

KernelCall& KernelCall::Bind(KernelArg arg, int32_t value) {
  if (int i = Slot(arg); i >= 0) {
    scalars_[i].i32 = value;
    args_[i] = &scalars_[i];
  }
  return *this;
}

absl::Status KernelCall::Run() {
  if (metadata_.num_arguments > kMaxArguments) {
    return absl::InternalError(absl::StrCat("kernel ", variant_.name, " takes ",
                                            metadata_.num_arguments, " arguments, more than ",
                                            kMaxArguments));
  }
  for (int i = 0; i < metadata_.num_arguments; i++) {
    if (args_[i] == nullptr) {
      return absl::InternalError(absl::StrCat("kernel ", variant_.name, ": argument ",
                                              metadata_.arguments[i].name, " was not bound"));
    }
  }
  InstallHalideErrorHandler();
  InstallParallelLoop();
  ClearHalideError();  // a message left by an earlier failure is not this call's
  if (variant_.device != Device::kCpu) return RunOnDevice(variant_, entry_, args_, cuda_stream_);
  return KernelStatus(RunCpuKernel(variant_, entry_, args_, bytes_), variant_.name);
}

}  // namespace halnorm::internal
