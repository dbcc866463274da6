#include "runtime/kernel_call.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/status.h"

namespace halnorm::internal {

KernelCall::KernelCall(const Variant& variant)
    : variant_(variant), metadata_(*variant.metadata) {}

int KernelCall::Find(const char* name) const {
  for (int i = 0; i < std::min(metadata_.num_arguments, kMaxArguments); i++) {
    // The first-character test skips most strcmp calls (per call, on the
    // small-tensor path, they were the runtime's largest cost).
    const char* arg = metadata_.arguments[i].name;
    if (arg[0] == name[0] && std::strcmp(arg, name) == 0) return i;
  }
  return -1;
}

KernelCall& KernelCall::Bind(const char* name, halide_buffer_t* buffer) {
  if (int i = Find(name); i >= 0) args_[i] = buffer;
  return *this;
}

KernelCall& KernelCall::Bind(const char* name, float value) {
  if (int i = Find(name); i >= 0) {
    scalars_[i].f32 = value;
    args_[i] = &scalars_[i];
  }
  return *this;
}

KernelCall& KernelCall::Bind(const char* name, bool value) {
  if (int i = Find(name); i >= 0) {
    scalars_[i].boolean = value;
    args_[i] = &scalars_[i];
  }
  return *this;
}

KernelCall& KernelCall::Bind(const char* name, int32_t value) {
  if (int i = Find(name); i >= 0) {
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
  return KernelStatus(variant_.argv(args_), variant_.name);
}

}  // namespace halnorm::internal
