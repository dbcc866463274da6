// GPU benchmark: LayerNorm and RMSNorm, forward and backward, on
// HALNORM_CUDA tensors through the public C API (dispatch picks the CUDA
// variant), timed with CUDA events. Reports GB/s of logical bytes (forward
// 2*M*N*s, backward 3*M*N*s) against the device-to-device copy bandwidth
// measured in the same run and against the nominal HBM peak (memory clock x
// bus width from the driver).
//
//   bazel run //bench:gpu_bench            (needs a GPU; says so otherwise)
//   bazel run //bench:gpu_bench -- --rows=4096 --hidden=1024,4096
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"
#include "runtime/tensor_checks.h"

ABSL_FLAG(int64_t, rows, 4096, "rows M");
ABSL_FLAG(std::string, hidden, "768,1024,2048,4096,8192,16384", "hidden sizes N, comma-separated");
ABSL_FLAG(int, iterations, 50, "timed calls per measurement");
ABSL_FLAG(int, repeats, 5, "measurements per case (the median is reported)");

namespace halnorm {
namespace {

using internal::CudaDriver;
using internal::CUdeviceptr;
using internal::CUevent;

constexpr int kMemoryClockKhz = 36;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
constexpr int kBusWidthBits = 37;    // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    if (int rc = (call); rc != 0) {                                               \
      std::fprintf(stderr, "%s failed: CUDA error %d\n", #call, rc);              \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// Median over `repeats` of the mean seconds per run of `body` (run
// `iterations` times between two events on the legacy default stream).
template <typename Body>
double MedianSeconds(const CudaDriver& d, int iterations, int repeats, Body body) {
  CUevent start, stop;
  CHECK_CUDA(d.cuEventCreate(&start, 0));
  CHECK_CUDA(d.cuEventCreate(&stop, 0));
  body();  // warm-up: module load, first-use allocations
  CHECK_CUDA(d.cuCtxSynchronize());
  std::vector<double> seconds;
  for (int r = 0; r < repeats; r++) {
    CHECK_CUDA(d.cuEventRecord(start, nullptr));
    for (int i = 0; i < iterations; i++) body();
    CHECK_CUDA(d.cuEventRecord(stop, nullptr));
    CHECK_CUDA(d.cuEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(d.cuEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3 / iterations);
  }
  d.cuEventDestroy_v2(start);
  d.cuEventDestroy_v2(stop);
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

halnorm_tensor Tensor(CUdeviceptr data, halnorm_dtype dtype, const std::vector<int64_t>& shape) {
  return internal::DenseTensor(reinterpret_cast<void*>(static_cast<uintptr_t>(data)), dtype,
                               HALNORM_CUDA, shape);
}

int Run() {
  absl::StatusOr<const CudaDriver*> loaded = internal::LoadCudaDriver();
  if (!loaded.ok()) {
    std::printf("gpu_bench: %s\n", std::string(loaded.status().message()).c_str());
    return 0;
  }
  const CudaDriver& d = **loaded;
  absl::StatusOr<internal::CUcontext> context = internal::PrimaryContext(d, 0);
  CHECK_CUDA(context.ok() ? 0 : -1);
  CHECK_CUDA(d.cuCtxSetCurrent(*context));
  char name[256] = {};
  CHECK_CUDA(d.cuDeviceGetName(name, sizeof(name), 0));
  int clock_khz = 0, bus_bits = 0;
  CHECK_CUDA(d.cuDeviceGetAttribute(&clock_khz, kMemoryClockKhz, 0));
  CHECK_CUDA(d.cuDeviceGetAttribute(&bus_bits, kBusWidthBits, 0));
  const double peak = 2.0 * clock_khz * 1e3 * bus_bits / 8;

  const int iterations = absl::GetFlag(FLAGS_iterations);
  const int repeats = absl::GetFlag(FLAGS_repeats);
  const int64_t rows = absl::GetFlag(FLAGS_rows);
  std::vector<int64_t> hiddens;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_hidden), ',')) {
    int64_t n = 0;
    if (absl::SimpleAtoi(s, &n)) hiddens.push_back(n);
  }
  const int64_t max_hidden = *std::max_element(hiddens.begin(), hiddens.end());

  // Device-to-device copy of 1 GiB: bytes read plus bytes written.
  constexpr size_t kCopyBytes = size_t{1} << 30;
  CUdeviceptr copy_src, copy_dst;
  CHECK_CUDA(d.cuMemAlloc_v2(&copy_src, kCopyBytes));
  CHECK_CUDA(d.cuMemAlloc_v2(&copy_dst, kCopyBytes));
  const double copy = 2.0 * kCopyBytes / MedianSeconds(d, 10, repeats, [&] {
                        CHECK_CUDA(d.cuMemcpyDtoD_v2(copy_dst, copy_src, kCopyBytes));
                      });
  d.cuMemFree_v2(copy_src);
  d.cuMemFree_v2(copy_dst);
  std::printf("%s: measured device-to-device copy %.0f GB/s, nominal HBM peak %.0f GB/s\n", name,
              copy / 1e9, peak / 1e9);
  std::printf("| op | dir | dtype | M | N | us | GB/s | of copy | of peak |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");

  // Activations (x, y, dy, dx), per-row statistics, f32 parameters and
  // their gradients, sized for the largest case. Contents: bytes 0x3c
  // (finite values in every dtype: 1.0-ish halves, ~0.01 floats).
  const size_t activation_bytes = static_cast<size_t>(rows * max_hidden) * 4;
  CUdeviceptr x, y, dy, dx, mean, rstd, weight, bias, dweight, dbias;
  for (CUdeviceptr* p : {&x, &y, &dy, &dx}) {
    CHECK_CUDA(d.cuMemAlloc_v2(p, activation_bytes));
    CHECK_CUDA(d.cuMemsetD8_v2(*p, 0x3c, activation_bytes));
  }
  for (CUdeviceptr* p : {&mean, &rstd}) CHECK_CUDA(d.cuMemAlloc_v2(p, rows * 4));
  for (CUdeviceptr* p : {&weight, &bias, &dweight, &dbias}) {
    CHECK_CUDA(d.cuMemAlloc_v2(p, max_hidden * 4));
    CHECK_CUDA(d.cuMemsetD8_v2(*p, 0x3c, max_hidden * 4));
  }

  for (const bool rms : {false, true}) {
    for (halnorm_dtype dtype : {HALNORM_BF16, HALNORM_F16, HALNORM_F32}) {
      const char* dtype_name = dtype == HALNORM_BF16 ? "bf16" : dtype == HALNORM_F16 ? "f16" : "f32";
      for (int64_t hidden : hiddens) {
        halnorm_tensor tx = Tensor(x, dtype, {rows, hidden}), ty = Tensor(y, dtype, {rows, hidden});
        halnorm_tensor tdy = Tensor(dy, dtype, {rows, hidden});
        halnorm_tensor tdx = Tensor(dx, dtype, {rows, hidden});
        halnorm_tensor tmean = Tensor(mean, HALNORM_F32, {rows});
        halnorm_tensor trstd = Tensor(rstd, HALNORM_F32, {rows});
        halnorm_tensor tw = Tensor(weight, HALNORM_F32, {hidden});
        halnorm_tensor tb = Tensor(bias, HALNORM_F32, {hidden});
        halnorm_tensor tdw = Tensor(dweight, HALNORM_F32, {hidden});
        halnorm_tensor tdb = Tensor(dbias, HALNORM_F32, {hidden});
        halnorm_norm_options opt;
        halnorm_norm_options_init(&opt);
        auto forward = [&] {
          const int rc = rms ? halnorm_rms_norm_forward(&tx, &tw, &opt, &ty, &trstd)
                             : halnorm_layer_norm_forward(&tx, &tw, &tb, &opt, &ty, &tmean, &trstd);
          if (rc != HALNORM_OK) {
            std::fprintf(stderr, "forward: %s\n", halnorm_last_error());
            std::exit(1);
          }
        };
        auto backward = [&] {
          const int rc =
              rms ? halnorm_rms_norm_backward(&tdy, &tx, &trstd, &tw, &opt, &tdx, &tdw)
                  : halnorm_layer_norm_backward(&tdy, &tx, &tmean, &trstd, &tw, &opt, &tdx, &tdw,
                                                &tdb);
          if (rc != HALNORM_OK) {
            std::fprintf(stderr, "backward: %s\n", halnorm_last_error());
            std::exit(1);
          }
        };
        const double element_bytes = dtype == HALNORM_F32 ? 4 : 2;
        const double elements = static_cast<double>(rows) * hidden;
        for (const bool is_forward : {true, false}) {
          const double seconds = is_forward ? MedianSeconds(d, iterations, repeats, forward)
                                            : MedianSeconds(d, iterations, repeats, backward);
          const double bytes = (is_forward ? 2 : 3) * elements * element_bytes;
          const double rate = bytes / seconds;
          std::printf("| %s | %s | %s | %lld | %lld | %.1f | %.0f | %.2f | %.2f |\n",
                      rms ? "rms_norm" : "layer_norm", is_forward ? "fwd" : "bwd", dtype_name,
                      static_cast<long long>(rows), static_cast<long long>(hidden), seconds * 1e6,
                      rate / 1e9, rate / copy, rate / peak);
        }
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace halnorm

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return halnorm::Run();
}
