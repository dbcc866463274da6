#include "runtime/device_call.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "HalideRuntime.h"
#include "absl/strings/str_cat.h"
#include "runtime/cuda_call_context.h"
#include "runtime/cuda_driver.h"
#include "runtime/status.h"

namespace halnorm::internal {
namespace {

// Halide's OpenCL runtime loads libOpenCL.so itself; without a library or a
// platform its first call fails deep inside, so look first.
absl::Status LoadOpenCl() {
  void* library = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("OpenCL is not available: libOpenCL.so could not be loaded: ", dlerror()));
  }
  using GetPlatformIds = int32_t (*)(uint32_t, void**, uint32_t*);
  auto get_platform_ids = reinterpret_cast<GetPlatformIds>(dlsym(library, "clGetPlatformIDs"));
  uint32_t platforms = 0;
  if (get_platform_ids == nullptr || get_platform_ids(0, nullptr, &platforms) != 0 ||
      platforms == 0) {
    return absl::FailedPreconditionError(
        "OpenCL is not available: no OpenCL platform (tests use PoCL: pocl-opencl-icd)");
  }
  return absl::OkStatus();  // the library stays loaded: Halide's runtime uses it
}

// The CUDA context to run on: the one owning the first device-memory
// argument, else (host arguments only) device 0's primary context.
absl::StatusOr<CUcontext> CudaContextFor(const CudaDriver& driver, const Variant& variant,
                                         void** args) {
  const halide_filter_metadata_t& metadata = *variant.metadata;
  for (int i = 0; i < metadata.num_arguments; i++) {
    if (metadata.arguments[i].kind == halide_argument_kind_input_scalar) continue;
    const auto* buffer = static_cast<const halide_buffer_t*>(args[i]);
    if (buffer->host == nullptr && buffer->device != 0) {
      return ContextForPointer(driver, reinterpret_cast<const void*>(buffer->device),
                               metadata.arguments[i].name);
    }
  }
  return PrimaryContext(driver, 0);
}

// Optional inputs the kernel never reads when its flag is false: the runtime
// binds a placeholder over other memory (kernel_param.h), which may be smaller
// than the placeholder's extent, so it must not be copied to the device.
struct OptionalInput {
  KernelArg buffer;
  KernelArg present_flag;
};
constexpr OptionalInput kOptionalInputs[] = {{KernelArg::kWeight, KernelArg::kHasWeight},
                                             {KernelArg::kBias, KernelArg::kHasBias},
                                             {KernelArg::kDresidual, KernelArg::kHasDresidual}};

// The arguments the GPU schedules read and write a row at a time, in whole
// vectors when the config has vector_width > 1 (generators/gpu_rows.h).
constexpr KernelArg kRowArguments[] = {KernelArg::kX,  KernelArg::kY,  KernelArg::kResidual,
                                       KernelArg::kResidualOut, KernelArg::kDy, KernelArg::kDx,
                                       KernelArg::kDresidual};

constexpr char kConfigRefusal[] = " config does not fit this call: ";

int Slot(const Variant& variant, KernelArg arg) {
  return variant.slots[static_cast<int>(arg)];
}

bool IsUnreadPlaceholder(const Variant& variant, void** args, int i) {
  for (const OptionalInput& optional : kOptionalInputs) {
    if (Slot(variant, optional.buffer) != i) continue;
    const int flag = Slot(variant, optional.present_flag);
    return flag >= 0 && !*static_cast<const bool*>(args[flag]);
  }
  return false;
}

// For one call, f16/bf16 buffers passed as their bits where the kernel
// takes uint16 (OpenCL: generators/norm_types.h KernelActivationType).
class HalfBitsView {
 public:
  HalfBitsView(const halide_filter_metadata_t& metadata, void** args) {
    constexpr halide_type_t kBits(halide_type_uint, 16);
    for (int i = 0; i < metadata.num_arguments; i++) {
      if (metadata.arguments[i].kind == halide_argument_kind_input_scalar) continue;
      auto* buffer = static_cast<halide_buffer_t*>(args[i]);
      const bool half = buffer->type.bits == 16 && (buffer->type.code == halide_type_float ||
                                                    buffer->type.code == halide_type_bfloat);
      if (metadata.arguments[i].type == kBits && half) {
        viewed_[count_] = buffer;
        types_[count_++] = buffer->type;
        buffer->type = kBits;
      }
    }
  }
  ~HalfBitsView() {
    for (int i = 0; i < count_; i++) viewed_[i]->type = types_[i];
  }

 private:
  static constexpr int kMax = 16;  // more than any generator's activation buffers (7)
  halide_buffer_t* viewed_[kMax];
  halide_type_t types_[kMax];
  int count_ = 0;
};

}  // namespace

absl::Status CheckGpuConfigFits(const Variant& variant, void** args) {
  auto refuse = [&](auto... why) {
    return absl::FailedPreconditionError(absl::StrCat("variant ", variant.name, "'s",
                                                      kConfigRefusal, why...,
                                                      " (another config of its target runs it)"));
  };
  // The channel-norm kernels load one element a thread; their vector_width
  // is the partials walk's lanes (schedules/channel_norm_gpu.cc).
  if (variant.op == Op::kLayerNorm2d) return absl::OkStatus();
  const int vector = ConfigKnob(variant, "vector_width");
  for (KernelArg arg : kRowArguments) {
    const int i = Slot(variant, arg);
    if (i < 0 || IsUnreadPlaceholder(variant, args, i)) continue;
    const auto* buffer = static_cast<const halide_buffer_t*>(args[i]);
    if (vector <= 1) continue;
    const uint64_t address = buffer->host != nullptr
                                 ? reinterpret_cast<uintptr_t>(buffer->host)
                                 : buffer->device;
    bool aligned = address % (vector * buffer->type.bytes()) == 0 &&
                   buffer->dim[0].extent % vector == 0;
    for (int d = 1; d < buffer->dimensions; d++) aligned &= buffer->dim[d].stride % vector == 0;
    if (!aligned) {
      return refuse(KernelArgName(arg), "'s rows must be whole vectors of ", vector,
                    " elements, aligned to the vector");
    }
  }
  return absl::OkStatus();
}

bool IsConfigRefusal(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) &&
         status.message().find(kConfigRefusal) != absl::string_view::npos;
}

absl::Status DeviceAvailable(Device device) {
  switch (device) {
    case Device::kCpu:
      return absl::OkStatus();
    case Device::kCuda:
      return LoadCudaDriver().status();
    case Device::kOpenCL: {
      static const auto* const loaded = new absl::Status(LoadOpenCl());
      return *loaded;
    }
  }
  return absl::InternalError("unknown device");
}

absl::Status RunOnDevice(const Variant& variant, int (*entry)(void** args), void** args,
                         void* cuda_stream) {
  HALNORM_RETURN_IF_ERROR(DeviceAvailable(variant.device));
  HALNORM_RETURN_IF_ERROR(CheckGpuConfigFits(variant, args));
  // Calls on HALNORM_CUDA tensors already run inside their context and
  // stream (cuda_tensors.h CudaCall); host tensors (tests) need one here.
  std::optional<ScopedCudaCall> cuda_call;
  if (variant.device == Device::kCuda && !InScopedCudaCall()) {
    const CudaDriver& driver = **LoadCudaDriver();
    absl::StatusOr<CUcontext> context = CudaContextFor(driver, variant, args);
    if (!context.ok()) return context.status();
    cuda_call.emplace(driver, *context, cuda_stream);
    HALNORM_RETURN_IF_ERROR(cuda_call->status());
  }
  const halide_filter_metadata_t& metadata = *variant.metadata;
  auto host_buffer = [&](int i) -> halide_buffer_t* {
    if (metadata.arguments[i].kind == halide_argument_kind_input_scalar) return nullptr;
    auto* buffer = static_cast<halide_buffer_t*>(args[i]);
    return buffer->host != nullptr ? buffer : nullptr;
  };
  for (int i = 0; i < metadata.num_arguments; i++) {
    halide_buffer_t* buffer = host_buffer(i);
    if (buffer != nullptr && !IsUnreadPlaceholder(variant, args, i)) buffer->set_host_dirty(true);
  }
  const HalfBitsView half_bits(metadata, args);
  absl::Status status = KernelStatus(entry(args), variant.name);
  for (int i = 0; i < metadata.num_arguments; i++) {
    halide_buffer_t* buffer = host_buffer(i);
    if (buffer == nullptr) continue;
    if (status.ok() && buffer->device_dirty()) {
      status = KernelStatus(halide_copy_to_host(nullptr, buffer), variant.name);
    }
    halide_device_free(nullptr, buffer);  // also clears `device`
    buffer->set_host_dirty(false);
  }
  return status;
}

}  // namespace halnorm::internal
