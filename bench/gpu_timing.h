// What the GPU benchmarks share: the device, its measured device-to-device
// copy bandwidth and nominal HBM peak, and CUDA-event timing.
#ifndef HALNORM_BENCH_GPU_TIMING_H_
#define HALNORM_BENCH_GPU_TIMING_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"

namespace halnorm::bench {

// Exits with the failing call's text: a benchmark has nothing to fall back on.
#define HALNORM_CHECK_CUDA(call)                                     \
  do {                                                               \
    if (int rc = (call); rc != 0) {                                  \
      std::fprintf(stderr, "%s failed: CUDA error %d\n", #call, rc); \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

struct Gpu {
  const internal::CudaDriver* driver;
  std::string name;
  double copy_bytes_per_second;  // device-to-device copy: bytes read + written
  double peak_bytes_per_second;  // memory clock x bus width, both edges
};

// Device 0, its primary context made current, its copy bandwidth measured
// (median of `repeats`). The driver's error where there is no GPU.
absl::StatusOr<Gpu> OpenGpu(int repeats);

// Median over `repeats` of the mean seconds per run of `body` (run
// `iterations` times between two events on the legacy default stream).
template <typename Body>
double MedianSeconds(const internal::CudaDriver& d, int iterations, int repeats, Body body) {
  internal::CUevent start, stop;
  HALNORM_CHECK_CUDA(d.cuEventCreate(&start, 0));
  HALNORM_CHECK_CUDA(d.cuEventCreate(&stop, 0));
  body();  // warm-up: module load, first-use allocations
  HALNORM_CHECK_CUDA(d.cuCtxSynchronize());
  std::vector<double> seconds;
  for (int r = 0; r < repeats; r++) {
    HALNORM_CHECK_CUDA(d.cuEventRecord(start, nullptr));
    for (int i = 0; i < iterations; i++) body();
    HALNORM_CHECK_CUDA(d.cuEventRecord(stop, nullptr));
    HALNORM_CHECK_CUDA(d.cuEventSynchronize(stop));
    float ms = 0;
    HALNORM_CHECK_CUDA(d.cuEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3 / iterations);
  }
  d.cuEventDestroy_v2(start);
  d.cuEventDestroy_v2(stop);
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// `bytes` of device memory, every byte 0x3c (finite values in every dtype:
// 1.0-ish halves, ~0.01 floats), kept until the process exits.
internal::CUdeviceptr FilledDeviceMemory(const internal::CudaDriver& d, size_t bytes);

// A dense HALNORM_CUDA tensor over `data`.
halnorm_tensor DeviceTensor(internal::CUdeviceptr data, halnorm_dtype dtype,
                            const std::vector<int64_t>& shape);

// A --dtypes flag's comma-separated "bf16", "f16", "f32"; false, with the
// error printed, for anything else.
bool ParseDtypes(const std::string& list, std::vector<halnorm_dtype>* dtypes);

// "<name>: measured device-to-device copy ... GB/s, nominal HBM peak ... GB/s".
void PrintGpu(const Gpu& gpu);

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_GPU_TIMING_H_
