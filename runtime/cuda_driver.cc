#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace halnorm::internal {
namespace {

constexpr char kNotAvailable[] = "CUDA is not available: ";

std::string DlError() {
  const char* text = dlerror();
  return text != nullptr ? text : "unknown error";
}

// Points `entry` at the driver's `name`; false if this driver lacks it.
template <typename Function>
bool Resolve(void* library, const char* name, Function* entry) {
  *entry = reinterpret_cast<Function>(dlsym(library, name));
  return *entry != nullptr;
}

const char* ErrorText(const CudaDriver& driver, CUresult result) {
  const char* text = nullptr;
  if (driver.cuGetErrorString(result, &text) != 0 || text == nullptr) return "unknown CUDA error";
  return text;
}

absl::StatusOr<const CudaDriver*> Load() {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const std::string error = DlError();
    library = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);  // only the dev symlink installed
    if (library == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          kNotAvailable, "no CUDA driver (libcuda.so.1 could not be loaded: ", error, ")"));
    }
  }
  // The library is never dlclose'd, even on the errors below: the driver may
  // have started threads or registered exit handlers by then.
  auto driver = std::make_unique<CudaDriver>();
  driver->library = library;

  // The string is the member's name, so the two cannot drift apart.
#define HALNORM_RESOLVE_CUDA(name)                                                         \
  if (!Resolve(library, #name, &driver->name)) {                                           \
    return absl::FailedPreconditionError(                                                  \
        absl::StrCat(kNotAvailable, "the CUDA driver lacks " #name " (driver too old?)")); \
  }
  HALNORM_RESOLVE_CUDA(cuInit)
  HALNORM_RESOLVE_CUDA(cuDeviceGetCount)
  HALNORM_RESOLVE_CUDA(cuDeviceGet)
  HALNORM_RESOLVE_CUDA(cuDeviceGetName)
  HALNORM_RESOLVE_CUDA(cuDeviceGetAttribute)
  HALNORM_RESOLVE_CUDA(cuDevicePrimaryCtxRetain)
  HALNORM_RESOLVE_CUDA(cuCtxGetCurrent)
  HALNORM_RESOLVE_CUDA(cuCtxSetCurrent)
  HALNORM_RESOLVE_CUDA(cuCtxGetDevice)
  HALNORM_RESOLVE_CUDA(cuCtxPushCurrent_v2)
  HALNORM_RESOLVE_CUDA(cuCtxPopCurrent_v2)
  HALNORM_RESOLVE_CUDA(cuCtxSynchronize)
  HALNORM_RESOLVE_CUDA(cuPointerGetAttribute)
  HALNORM_RESOLVE_CUDA(cuMemAlloc_v2)
  HALNORM_RESOLVE_CUDA(cuMemFree_v2)
  HALNORM_RESOLVE_CUDA(cuMemAllocAsync)
  HALNORM_RESOLVE_CUDA(cuMemFreeAsync)
  HALNORM_RESOLVE_CUDA(cuMemcpyHtoD_v2)
  HALNORM_RESOLVE_CUDA(cuMemcpyDtoH_v2)
  HALNORM_RESOLVE_CUDA(cuMemcpyDtoD_v2)
  HALNORM_RESOLVE_CUDA(cuMemsetD8_v2)
  HALNORM_RESOLVE_CUDA(cuMemsetD8Async)
  HALNORM_RESOLVE_CUDA(cuStreamCreate)
  HALNORM_RESOLVE_CUDA(cuStreamDestroy_v2)
  HALNORM_RESOLVE_CUDA(cuStreamSynchronize)
  HALNORM_RESOLVE_CUDA(cuEventCreate)
  HALNORM_RESOLVE_CUDA(cuEventRecord)
  HALNORM_RESOLVE_CUDA(cuEventSynchronize)
  HALNORM_RESOLVE_CUDA(cuEventElapsedTime)
  HALNORM_RESOLVE_CUDA(cuEventDestroy_v2)
  HALNORM_RESOLVE_CUDA(cuGetErrorString)
  HALNORM_RESOLVE_CUDA(cuModuleLoadData)
  HALNORM_RESOLVE_CUDA(cuModuleGetFunction)
  HALNORM_RESOLVE_CUDA(cuLaunchKernel)
#undef HALNORM_RESOLVE_CUDA

  if (CUresult result = driver->cuInit(0); result != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(kNotAvailable, "cuInit failed: ", ErrorText(*driver, result)));
  }
  int device_count = 0;
  if (CUresult result = driver->cuDeviceGetCount(&device_count); result != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(kNotAvailable, "cuDeviceGetCount failed: ", ErrorText(*driver, result)));
  }
  if (device_count <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(kNotAvailable, "no CUDA device found"));
  }
  return driver.release();
}

}  // namespace

absl::StatusOr<const CudaDriver*> LoadCudaDriver() {
  // Loaded once, even when it failed: a missing driver stays missing, and
  // retrying dlopen on every call would be slow. Never destroyed (see above).
  static const auto* const loaded = new absl::StatusOr<const CudaDriver*>(Load());
  return *loaded;
}

// Retained once per device and never released: releasing the last reference
// would destroy it under the caller, and one context per device costs
// nothing worth reclaiming.
absl::StatusOr<CUcontext> PrimaryContext(const CudaDriver& driver, CUdevice device) {
  // Heap-allocated: must outlive static destructors that may still run kernels.
  static auto* const mutex = new std::mutex;
  static auto* const contexts = new std::map<CUdevice, CUcontext>;
  std::lock_guard<std::mutex> lock(*mutex);
  if (auto it = contexts->find(device); it != contexts->end()) return it->second;
  CUcontext context = nullptr;
  absl::Status status = CudaCheck(driver, driver.cuDevicePrimaryCtxRetain(&context, device),
                                  "cuDevicePrimaryCtxRetain");
  if (!status.ok()) return status;
  contexts->emplace(device, context);
  return context;
}

absl::Status CudaCheck(const CudaDriver& driver, CUresult result, absl::string_view what) {
  if (result == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, " failed: ", ErrorText(driver, result), " (CUDA error ", result, ")"));
}

absl::StatusOr<CUcontext> ContextForPointer(const CudaDriver& driver, const void* device_ptr,
                                            absl::string_view argument) {
  const auto address = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device_ptr));
  // Host memory, and pointers the driver does not know, fail here (the
  // attribute query returns an error for the latter).
  unsigned int memory_type = 0;
  if (driver.cuPointerGetAttribute(&memory_type, kCuPointerAttributeMemoryType, address) != 0 ||
      (memory_type != kCuMemoryTypeDevice && memory_type != kCuMemoryTypeUnified)) {
    return absl::InvalidArgumentError(absl::StrCat(argument, ": data is not CUDA device memory"));
  }
  int ordinal = -1;
  absl::Status status = CudaCheck(
      driver, driver.cuPointerGetAttribute(&ordinal, kCuPointerAttributeDeviceOrdinal, address),
      "cuPointerGetAttribute(DEVICE_ORDINAL)");
  if (!status.ok()) return status;
  CUdevice device = -1;
  status = CudaCheck(driver, driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  if (!status.ok()) return status;

  // The caller's current context wins when it is on the data's device: it may
  // be a context of its own that the data was allocated in. On another device
  // (a PyTorch tensor on cuda:1 while cuda:0 is current), it would be wrong.
  CUcontext current = nullptr;
  status = CudaCheck(driver, driver.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!status.ok()) return status;
  if (current != nullptr) {
    CUdevice current_device = -1;
    status = CudaCheck(driver, driver.cuCtxGetDevice(&current_device), "cuCtxGetDevice");
    if (!status.ok()) return status;
    if (current_device == device) return current;
  }
  return PrimaryContext(driver, device);
}

}  // namespace halnorm::internal
