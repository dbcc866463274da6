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
#include "bench/gpu_timing.h"
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

namespace halnorm::bench {
namespace {

using internal::CUdeviceptr;

// The CUDA variants of (op, direction, dtype), without a fused residual.
std::vector<const internal::Variant*> CudaConfigs(bool rms, bool forward, halnorm_dtype dtype) {
  std::vector<const internal::Variant*> out;
  for (const internal::Variant& v : internal::AllVariants()) {
    if (v.device == internal::Device::kCuda && !v.fused_residual && v.dtype == dtype &&
        v.op == (rms ? internal::Op::kRmsNorm : internal::Op::kLayerNorm) &&
        (v.direction == internal::Direction::kForward) == forward) {
      out.push_back(&v);
    }
  }
  return out;
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
  std::vector<halnorm_dtype> dtypes;
  if (!ParseDtypes(absl::GetFlag(FLAGS_dtypes), &dtypes)) return 2;
  for (const std::string& op : ops) {
    if (op != "layer_norm" && op != "rms_norm") {
      std::fprintf(stderr, "--ops: unknown op '%s' (layer_norm, rms_norm)\n", op.c_str());
      return 2;
    }
  }
  const int repeats = absl::GetFlag(FLAGS_repeats);
  absl::StatusOr<Gpu> gpu = OpenGpu(repeats);
  if (!gpu.ok()) {
    std::printf("gpu_bench: %s\n", std::string(gpu.status().message()).c_str());
    return 0;
  }
  const internal::CudaDriver& d = *gpu->driver;
  const double copy = gpu->copy_bytes_per_second, peak = gpu->peak_bytes_per_second;

  const int iterations = absl::GetFlag(FLAGS_iterations);
  const int64_t rows = absl::GetFlag(FLAGS_rows);
  const int64_t max_hidden = *std::max_element(hiddens.begin(), hiddens.end());
  PrintGpu(*gpu);
  std::printf("| op | dir | dtype | M | N | config | us | GB/s | of copy | of peak |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");

  // Activations (x, y, dy, dx), per-row statistics, f32 parameters and
  // their gradients, sized for the largest case.
  const size_t activation_bytes = static_cast<size_t>(rows * max_hidden) * 4;
  const CUdeviceptr x = FilledDeviceMemory(d, activation_bytes);
  const CUdeviceptr y = FilledDeviceMemory(d, activation_bytes);
  const CUdeviceptr dy = FilledDeviceMemory(d, activation_bytes);
  const CUdeviceptr dx = FilledDeviceMemory(d, activation_bytes);
  const CUdeviceptr mean = FilledDeviceMemory(d, rows * 4);
  const CUdeviceptr rstd = FilledDeviceMemory(d, rows * 4);
  const CUdeviceptr weight = FilledDeviceMemory(d, max_hidden * 4);
  const CUdeviceptr bias = FilledDeviceMemory(d, max_hidden * 4);
  const CUdeviceptr dweight = FilledDeviceMemory(d, max_hidden * 4);
  const CUdeviceptr dbias = FilledDeviceMemory(d, max_hidden * 4);

  for (const std::string& op : ops) {
    const bool rms = op == "rms_norm";
    for (const halnorm_dtype dtype : dtypes) {
      const char* dtype_name = internal::DtypeName(dtype);
      for (int64_t hidden : hiddens) {
        halnorm_tensor tx = DeviceTensor(x, dtype, {rows, hidden}),
                       ty = DeviceTensor(y, dtype, {rows, hidden});
        halnorm_tensor tdy = DeviceTensor(dy, dtype, {rows, hidden});
        halnorm_tensor tdx = DeviceTensor(dx, dtype, {rows, hidden});
        halnorm_tensor tmean = DeviceTensor(mean, HALNORM_F32, {rows});
        halnorm_tensor trstd = DeviceTensor(rstd, HALNORM_F32, {rows});
        halnorm_tensor tw = DeviceTensor(weight, HALNORM_F32, {hidden});
        halnorm_tensor tb = DeviceTensor(bias, HALNORM_F32, {hidden});
        halnorm_tensor tdw = DeviceTensor(dweight, HALNORM_F32, {hidden});
        halnorm_tensor tdb = DeviceTensor(dbias, HALNORM_F32, {hidden});
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
                        rms ? "rms_norm" : "layer_norm", is_forward ? "fwd" : "bwd", dtype_name,
                        static_cast<long long>(rows), static_cast<long long>(hidden),
                        variant ? variant->config : "dispatch", seconds * 1e6, rate / 1e9,
                        rate / copy, rate / peak);
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return halnorm::bench::Run();
}
