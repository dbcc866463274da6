// GPU benchmark: LayerNorm and RMSNorm, forward and backward, on
// HALNORM_CUDA tensors through the public C API (dispatch picks the CUDA
// variant), timed with CUDA events. Reports GB/s of logical bytes (forward
// 2*M*N*s, backward 3*M*N*s) against the device-to-device copy bandwidth
// measured in the same run and against the nominal HBM peak (memory clock x
// bus width from the driver).
//
//   bazel run //bench:gpu_bench            (needs a GPU; says so otherwise)
//   bazel run //bench:gpu_bench -- --rows=4096 --hidden=1024,4096
//   bazel run //bench:gpu_bench -- --all_configs   (every CUDA config, forced)
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
#include "runtime/device_call.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"

ABSL_FLAG(int64_t, rows, 4096, "rows M");
ABSL_FLAG(std::string, hidden, "768,1024,2048,4096,8192,16384", "hidden sizes N, comma-separated");
ABSL_FLAG(int, iterations, 50, "timed calls per measurement");
ABSL_FLAG(int, repeats, 5, "measurements per case (the median is reported)");
ABSL_FLAG(bool, all_configs, false,
          "also time every CUDA config of each case, forced (a row each), to tune the dispatch");
ABSL_FLAG(std::string, ops, "layer_norm,rms_norm", "ops to run, comma-separated");
ABSL_FLAG(std::string, dtypes, "bf16,f16,f32", "activation dtypes to run, comma-separated");

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

// The CUDA variants of (op, direction, dtype), without a fused residual.
std::vector<const internal::Variant*> CudaConfigs(bool rms, bool forward, halnorm_dtype dtype) {
  std::vector<const internal::Variant*> out;
  for (const internal::Variant& v : internal::AllVariants()) {
    if (v.device == internal::Device::kCuda && !v.fused_residual && v.dtype == dtype &&
        (v.op == internal::Op::kRmsNorm) == rms &&
        (v.direction == internal::Direction::kForward) == forward) {
      out.push_back(&v);
    }
  }
  return out;
}

halnorm_tensor Tensor(CUdeviceptr data, halnorm_dtype dtype, const std::vector<int64_t>& shape) {
  return internal::DenseTensor(reinterpret_cast<void*>(static_cast<uintptr_t>(data)), dtype,
                               HALNORM_CUDA, shape);
}

int Run() {
  std::vector<int64_t> hiddens;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_hidden), ',')) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(s, &n) || n <= 0) {
      std::fprintf(stderr, "--hidden: '%s' is not a positive integer\n", std::string(s).c_str());
      return 2;
    }
    hiddens.push_back(n);
  }
  const std::vector<std::string> ops = absl::StrSplit(absl::GetFlag(FLAGS_ops), ',');
  const std::vector<std::string> dtypes = absl::StrSplit(absl::GetFlag(FLAGS_dtypes), ',');
  for (const std::string& op : ops) {
    if (op != "layer_norm" && op != "rms_norm") {
      std::fprintf(stderr, "--ops: unknown op '%s' (layer_norm, rms_norm)\n", op.c_str());
      return 2;
    }
  }
  for (const std::string& dtype : dtypes) {
    if (dtype != "bf16" && dtype != "f16" && dtype != "f32") {
      std::fprintf(stderr, "--dtypes: unknown dtype '%s' (bf16, f16, f32)\n", dtype.c_str());
      return 2;
    }
  }
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
  std::printf("| op | dir | dtype | M | N | config | us | GB/s | of copy | of peak |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");

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

  for (const std::string& op : ops) {
    const bool rms = op == "rms_norm";
    for (const std::string& dtype_name : dtypes) {
      const halnorm_dtype dtype = dtype_name == "bf16"  ? HALNORM_BF16
                                  : dtype_name == "f16" ? HALNORM_F16
                                                        : HALNORM_F32;
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
        // `variant` nullptr: the public entry point (dispatch picks).
        auto call = [&](bool is_forward, const internal::Variant* variant) {
          absl::Status status;
          if (variant == nullptr) {
            const int rc =
                is_forward ? (rms ? halnorm_rms_norm_forward(&tx, &tw, &opt, &ty, &trstd)
                                  : halnorm_layer_norm_forward(&tx, &tw, &tb, &opt, &ty, &tmean,
                                                               &trstd))
                : rms ? halnorm_rms_norm_backward(&tdy, &tx, &trstd, &tw, &opt, &tdx, &tdw)
                      : halnorm_layer_norm_backward(&tdy, &tx, &tmean, &trstd, &tw, &opt, &tdx,
                                                    &tdw, &tdb);
            if (rc != HALNORM_OK) status = absl::InternalError(halnorm_last_error());
          } else if (is_forward) {
            status = rms ? internal::RmsNormForward(&tx, &tw, &opt, &ty, &trstd, variant)
                         : internal::LayerNormForward(&tx, &tw, &tb, &opt, &ty, &tmean, &trstd,
                                                      variant);
          } else {
            status = rms ? internal::RmsNormBackward(&tdy, &tx, &trstd, &tw, &opt, &tdx, &tdw,
                                                     variant)
                         : internal::LayerNormBackward(&tdy, &tx, &tmean, &trstd, &tw, &opt, &tdx,
                                                       &tdw, &tdb, variant);
          }
          if (!status.ok() && !(variant != nullptr && internal::IsConfigRefusal(status))) {
            std::fprintf(stderr, "%s: %s\n", variant ? variant->name : "dispatch",
                         std::string(status.message()).c_str());
            std::exit(1);
          }
          return status.ok();
        };
        const double element_bytes = dtype == HALNORM_F32 ? 4 : 2;
        const double elements = static_cast<double>(rows) * hidden;
        for (const bool is_forward : {true, false}) {
          std::vector<const internal::Variant*> runs = {nullptr};
          if (absl::GetFlag(FLAGS_all_configs)) {
            for (const internal::Variant* v : CudaConfigs(rms, is_forward, dtype)) {
              // Vectorized configs need rows of whole vectors.
              if (hidden % std::max(1, internal::ConfigKnob(*v, "vector_width")) == 0) {
                runs.push_back(v);
              }
            }
          }
          for (const internal::Variant* variant : runs) {
            if (!call(is_forward, variant)) continue;  // a config that cannot run this shape
            const double seconds =
                MedianSeconds(d, iterations, repeats, [&] { call(is_forward, variant); });
            const double bytes = (is_forward ? 2 : 3) * elements * element_bytes;
            const double rate = bytes / seconds;
            std::printf("| %s | %s | %s | %lld | %lld | %s | %.1f | %.0f | %.2f | %.2f |\n",
                        rms ? "rms_norm" : "layer_norm", is_forward ? "fwd" : "bwd",
                        dtype_name.c_str(), static_cast<long long>(rows),
                        static_cast<long long>(hidden), variant ? variant->config : "dispatch",
                        seconds * 1e6, rate / 1e9, rate / copy, rate / peak);
          }
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
