// The few CUDA driver API calls the runtime makes, loaded at run time with
// dlopen: the library has no link-time or header dependency on CUDA, so one
// build runs on machines with and without a GPU.
#ifndef HALNORM_RUNTIME_CUDA_DRIVER_H_
#define HALNORM_RUNTIME_CUDA_DRIVER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

// The driver's opaque handle types, with cuda.h's struct tags (Halide's CUDA
// runtime uses the same ones), so these handles are the driver's own types.
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace halnorm::internal {

// cuda.h's types, declared here instead of including it. Enums are plain int:
// same ABI, and no clash with cuda.h where a file includes both.
using CUresult = int;  // 0 = CUDA_SUCCESS
using CUdevice = int;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUdeviceptr = uint64_t;

// CUpointer_attribute values (stable driver ABI).
inline constexpr int kCuPointerAttributeContext = 1;
inline constexpr int kCuPointerAttributeMemoryType = 2;
inline constexpr int kCuPointerAttributeDevicePointer = 3;
inline constexpr int kCuPointerAttributeDeviceOrdinal = 9;

// CUmemorytype values.
inline constexpr unsigned int kCuMemoryTypeHost = 1;
inline constexpr unsigned int kCuMemoryTypeDevice = 2;
inline constexpr unsigned int kCuMemoryTypeUnified = 4;

// Entry points of libcuda. Members are named after the exported symbols
// (versioned where the driver versions them) so calls read like the driver
// API documentation.
struct CudaDriver {
  void* library = nullptr;  // the dlopen handle; never closed

  CUresult (*cuInit)(unsigned int flags) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext* context) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice* device) = nullptr;
  CUresult (*cuCtxPushCurrent_v2)(CUcontext context) = nullptr;
  CUresult (*cuCtxPopCurrent_v2)(CUcontext* context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuPointerGetAttribute)(void* data, int attribute, CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr* pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr pointer) = nullptr;
  // Stream-ordered (CUDA 11.2+): a call's scratch, freed without a sync.
  CUresult (*cuMemAllocAsync)(CUdeviceptr* pointer, size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr pointer, CUstream stream) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemsetD8_v2)(CUdeviceptr dst, unsigned char value, size_t count) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count,
                              CUstream stream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned int flags) = nullptr;
  CUresult (*cuStreamDestroy_v2)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent end) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent event) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;
  // The runtime's own small kernels (cuda_param_convert.h), from PTX text.
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module,
                                  const char* name) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void** params, void** extra) = nullptr;
};

// The driver, loaded and initialized (cuInit) on the first call; later calls
// return the same result, success or error. Thread-safe. Without a usable
// driver or device: FailedPrecondition("CUDA is not available: ...").
absl::StatusOr<const CudaDriver*> LoadCudaDriver();

// OK for CUDA_SUCCESS, else Internal("<what> failed: <driver's text> (CUDA error N)").
absl::Status CudaCheck(const CudaDriver& driver, CUresult result, absl::string_view what);

// `device`'s primary context: the one the CUDA runtime API (cudaMalloc,
// cudaStream) and therefore PyTorch use, so callers' allocations and streams
// are valid in it.
absl::StatusOr<CUcontext> PrimaryContext(const CudaDriver& driver, CUdevice device);

// The context to run on for data at `device_ptr`: the current context when it
// is on the data's device, else that device's primary context (retained once,
// never released). InvalidArgument("<argument>: data is not CUDA device
// memory") for host or unknown pointers.
absl::StatusOr<CUcontext> ContextForPointer(const CudaDriver& driver, const void* device_ptr,
                                            absl::string_view argument);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_DRIVER_H_
