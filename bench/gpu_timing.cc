#include "bench/gpu_timing.h"

#include "absl/strings/str_split.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"

namespace halnorm::bench {
namespace {

constexpr int kMemoryClockKhz = 36;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
constexpr int kBusWidthBits = 37;    // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH

}  // namespace

absl::StatusOr<Gpu> OpenGpu(int repeats) {
  absl::StatusOr<const internal::CudaDriver*> loaded = internal::LoadCudaDriver();
  if (!loaded.ok()) return loaded.status();
  const internal::CudaDriver& d = **loaded;
  absl::StatusOr<internal::CUcontext> context = internal::PrimaryContext(d, 0);
  if (!context.ok()) return context.status();
  HALNORM_CHECK_CUDA(d.cuCtxSetCurrent(*context));
  Gpu gpu{&d, "", 0, 0};
  char name[256] = {};
  HALNORM_CHECK_CUDA(d.cuDeviceGetName(name, sizeof(name), 0));
  gpu.name = name;
  int clock_khz = 0, bus_bits = 0;
  HALNORM_CHECK_CUDA(d.cuDeviceGetAttribute(&clock_khz, kMemoryClockKhz, 0));
  HALNORM_CHECK_CUDA(d.cuDeviceGetAttribute(&bus_bits, kBusWidthBits, 0));
  gpu.peak_bytes_per_second = 2.0 * clock_khz * 1e3 * bus_bits / 8;

  // Device-to-device copy of 1 GiB: bytes read plus bytes written.
  constexpr size_t kCopyBytes = size_t{1} << 30;
  internal::CUdeviceptr src, dst;
  HALNORM_CHECK_CUDA(d.cuMemAlloc_v2(&src, kCopyBytes));
  HALNORM_CHECK_CUDA(d.cuMemAlloc_v2(&dst, kCopyBytes));
  gpu.copy_bytes_per_second = 2.0 * kCopyBytes / MedianSeconds(d, 10, repeats, [&] {
                                HALNORM_CHECK_CUDA(d.cuMemcpyDtoD_v2(dst, src, kCopyBytes));
                              });
  d.cuMemFree_v2(src);
  d.cuMemFree_v2(dst);
  return gpu;
}

internal::CUdeviceptr FilledDeviceMemory(const internal::CudaDriver& d, size_t bytes) {
  internal::CUdeviceptr p = 0;
  HALNORM_CHECK_CUDA(d.cuMemAlloc_v2(&p, std::max<size_t>(bytes, 4)));
  HALNORM_CHECK_CUDA(d.cuMemsetD8_v2(p, 0x3c, std::max<size_t>(bytes, 4)));
  return p;
}

halnorm_tensor DeviceTensor(internal::CUdeviceptr data, halnorm_dtype dtype,
                            const std::vector<int64_t>& shape) {
  return internal::DenseTensor(reinterpret_cast<void*>(static_cast<uintptr_t>(data)), dtype,
                               HALNORM_CUDA, shape);
}

bool ParseDtypes(const std::string& list, std::vector<halnorm_dtype>* dtypes) {
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    bool known = false;
    for (halnorm_dtype d : {HALNORM_BF16, HALNORM_F16, HALNORM_F32}) {
      if (name != internal::DtypeName(d)) continue;
      dtypes->push_back(d);
      known = true;
    }
    if (!known) {
      std::fprintf(stderr, "--dtypes: unknown dtype '%s' (bf16, f16, f32)\n",
                   std::string(name).c_str());
      return false;
    }
  }
  return true;
}

void PrintGpu(const Gpu& gpu) {
  std::printf("%s: measured device-to-device copy %.0f GB/s, nominal HBM peak %.0f GB/s\n",
              gpu.name.c_str(), gpu.copy_bytes_per_second / 1e9, gpu.peak_bytes_per_second / 1e9);
}

}  // namespace halnorm::bench
