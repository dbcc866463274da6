// GPU benchmark of LayerNorm2d: the ConvNeXt-T stage shapes and the SAM
// neck at a GPU-sized batch, every axes and layout, forward and backward,
// on HALNORM_CUDA tensors through the public C API (dispatch picks), timed
// with CUDA events. GB/s of logical bytes (forward 2*N*C*H*W*s, backward
// 3*N*C*H*W*s) against the device-to-device copy measured in the same run
// and the nominal HBM peak, as //bench:gpu_bench reports the row norms.
//
//   bazel run //bench:gpu_layer_norm2d_bench            (needs a GPU; says so otherwise)
//   bazel run //bench:gpu_layer_norm2d_bench -- --batch=64 --dtypes=bf16
//   bazel run //bench:gpu_layer_norm2d_bench -- --all_configs   (AXES_C NCHW: every
//       channel-norm CUDA config, forced, a row each: to tune the dispatch)
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/gpu_timing.h"
#include "runtime/halnorm_c.h"
#include "runtime/layer_norm2d.h"
#include "runtime/variant_registry.h"

ABSL_FLAG(int64_t, batch, 32, "samples N of every shape");
ABSL_FLAG(std::string, dtypes, "bf16,f16,f32", "activation dtypes to run, comma-separated");
ABSL_FLAG(std::string, layouts, "c_nchw,c_nhwc,chw_nchw,hw_nchw",
          "axes and layouts to run, comma-separated (<axes>_<layout>)");
ABSL_FLAG(int, iterations, 50, "timed calls per measurement");
ABSL_FLAG(int, repeats, 5, "measurements per case (the median is reported)");
ABSL_FLAG(bool, all_configs, false,
          "also time every channel-norm CUDA config on c_nchw, forced (a row each)");

namespace halnorm::bench {
namespace {

using internal::CUdeviceptr;
using internal::Variant;

struct Chw {
  int64_t c, h, w;
};
// ConvNeXt-T's four stages, then SAM's image-encoder neck.
constexpr Chw kShapes[] = {{96, 56, 56}, {192, 28, 28}, {384, 14, 14}, {768, 7, 7}, {256, 64, 64}};

struct Layout {
  const char* name;
  halnorm_axes axes;
  bool channels_last;
};
constexpr Layout kLayouts[] = {{"c_nchw", HALNORM_AXES_C, false},
                               {"c_nhwc", HALNORM_AXES_C, true},
                               {"chw_nchw", HALNORM_AXES_CHW, false},
                               {"hw_nchw", HALNORM_AXES_HW, false}};

// The channel-norm CUDA variants of `direction` and `dtype`.
std::vector<const Variant*> ChannelNormConfigs(internal::Direction direction, halnorm_dtype dtype) {
  std::vector<const Variant*> out;
  for (const Variant& v : internal::AllVariants()) {
    if (v.device == internal::Device::kCuda && v.op == internal::Op::kLayerNorm2d &&
        v.direction == direction && v.dtype == dtype) {
      out.push_back(&v);
    }
  }
  return out;
}

// One case's tensors over the shared buffers.
struct Tensors {
  halnorm_tensor x, y, dy, dx, mean, rstd, weight, bias, dweight, dbias;
};

struct Buffers {
  CUdeviceptr x, y, dy, dx, mean, rstd, weight, bias, dweight, dbias;
};

Tensors MakeTensors(const Buffers& b, const Layout& layout, halnorm_dtype dtype, int64_t n,
                    const Chw& s) {
  const std::vector<int64_t> shape = {n, s.c, s.h, s.w};
  auto activation = [&](CUdeviceptr data) {
    halnorm_tensor t = DeviceTensor(data, dtype, shape);
    if (layout.channels_last) {
      const int64_t strides[] = {s.h * s.w * s.c, 1, s.w * s.c, s.c};
      for (int d = 0; d < 4; d++) t.strides[d] = strides[d];
    }
    return t;
  };
  const std::vector<int64_t> stats = layout.axes == HALNORM_AXES_C     ? std::vector{n, s.h, s.w}
                                     : layout.axes == HALNORM_AXES_CHW ? std::vector{n}
                                                                       : std::vector{n, s.c};
  auto param = [&](CUdeviceptr data) { return DeviceTensor(data, HALNORM_F32, {s.c}); };
  return {activation(b.x),
          activation(b.y),
          activation(b.dy),
          activation(b.dx),
          DeviceTensor(b.mean, HALNORM_F32, stats),
          DeviceTensor(b.rstd, HALNORM_F32, stats),
          param(b.weight),
          param(b.bias),
          param(b.dweight),
          param(b.dbias)};
}

// One call; `variant` nullptr: the public entry point (dispatch picks).
absl::Status Call(Tensors& t, halnorm_axes axes, bool forward, const Variant* variant) {
  constexpr float kEps = 1e-6f;
  if (variant != nullptr) {
    return forward ? internal::LayerNorm2dForward(&t.x, &t.weight, &t.bias, axes, kEps, &t.y,
                                                  &t.mean, &t.rstd, variant)
                   : internal::LayerNorm2dBackward(&t.dy, &t.x, &t.mean, &t.rstd, &t.weight, axes,
                                                   &t.dx, &t.dweight, &t.dbias, variant);
  }
  const int rc = forward ? halnorm_layer_norm2d_forward(&t.x, &t.weight, &t.bias, axes, kEps, &t.y,
                                                        &t.mean, &t.rstd)
                         : halnorm_layer_norm2d_backward(&t.dy, &t.x, &t.mean, &t.rstd, &t.weight,
                                                         axes, &t.dx, &t.dweight, &t.dbias);
  return rc == HALNORM_OK ? absl::OkStatus() : absl::InternalError(halnorm_last_error());
}

int Run() {
  const int64_t n = absl::GetFlag(FLAGS_batch);
  if (n <= 0) {
    std::fprintf(stderr, "--batch: must be positive, got %lld\n", static_cast<long long>(n));
    return 2;
  }
  std::vector<halnorm_dtype> dtypes;
  if (!ParseDtypes(absl::GetFlag(FLAGS_dtypes), &dtypes)) return 2;
  std::vector<const Layout*> layouts;
  const std::vector<std::string> layout_names = absl::StrSplit(absl::GetFlag(FLAGS_layouts), ',');
  for (const std::string& name : layout_names) {
    const Layout* found = nullptr;
    for (const Layout& l : kLayouts) {
      if (name == l.name) found = &l;
    }
    if (found == nullptr) {
      std::fprintf(stderr, "--layouts: unknown '%s' (c_nchw, c_nhwc, chw_nchw, hw_nchw)\n",
                   name.c_str());
      return 2;
    }
    layouts.push_back(found);
  }
  const int iterations = absl::GetFlag(FLAGS_iterations);
  const int repeats = absl::GetFlag(FLAGS_repeats);
  absl::StatusOr<Gpu> gpu = OpenGpu(repeats);
  if (!gpu.ok()) {
    std::printf("gpu_layer_norm2d_bench: %s\n", std::string(gpu.status().message()).c_str());
    return 0;
  }
  const internal::CudaDriver& d = *gpu->driver;
  PrintGpu(*gpu);
  std::printf("| axes_layout | dir | dtype | NxCxHxW | config | us | GB/s | of copy | of peak |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");

  // Buffers for the largest shape, in f32.
  int64_t max_elements = 0, max_c = 0, max_pixels = 0;
  for (const Chw& s : kShapes) {
    max_elements = std::max(max_elements, n * s.c * s.h * s.w);
    max_c = std::max(max_c, s.c);
    max_pixels = std::max(max_pixels, n * std::max(s.h * s.w, s.c));
  }
  const size_t activation_bytes = static_cast<size_t>(max_elements) * 4;
  Buffers b{};
  for (CUdeviceptr* p : {&b.x, &b.y, &b.dy, &b.dx}) *p = FilledDeviceMemory(d, activation_bytes);
  for (CUdeviceptr* p : {&b.mean, &b.rstd}) *p = FilledDeviceMemory(d, max_pixels * 4);
  for (CUdeviceptr* p : {&b.weight, &b.bias, &b.dweight, &b.dbias}) {
    *p = FilledDeviceMemory(d, max_c * 4);
  }

  for (halnorm_dtype dtype : dtypes) {
    for (const Layout* layout : layouts) {
      for (const Chw& s : kShapes) {
        Tensors t = MakeTensors(b, *layout, dtype, n, s);
        const double bytes_per_pass =
            static_cast<double>(n * s.c * s.h * s.w) * (dtype == HALNORM_F32 ? 4 : 2);
        for (const bool forward : {true, false}) {
          std::vector<const Variant*> runs = {nullptr};
          if (absl::GetFlag(FLAGS_all_configs) && layout->axes == HALNORM_AXES_C &&
              !layout->channels_last) {
            for (const Variant* v : ChannelNormConfigs(
                     forward ? internal::Direction::kForward : internal::Direction::kBackward,
                     dtype)) {
              runs.push_back(v);
            }
          }
          for (const Variant* variant : runs) {
            const absl::Status status = Call(t, layout->axes, forward, variant);
            if (!status.ok()) {
              std::fprintf(stderr, "%s: %s\n", variant ? variant->name : "dispatch",
                           std::string(status.message()).c_str());
              return 1;
            }
            const double seconds = MedianSeconds(d, iterations, repeats, [&] {
              if (!Call(t, layout->axes, forward, variant).ok()) std::exit(1);
            });
            const double rate = (forward ? 2 : 3) * bytes_per_pass / seconds;
            std::printf("| %s | %s | %s | %lldx%lldx%lldx%lld | %s | %.1f | %.0f | %.2f | %.2f |\n",
                        layout->name, forward ? "fwd" : "bwd", internal::DtypeName(dtype),
                        static_cast<long long>(n), static_cast<long long>(s.c),
                        static_cast<long long>(s.h), static_cast<long long>(s.w),
                        variant ? variant->config : "dispatch", seconds * 1e6, rate / 1e9,
                        rate / gpu->copy_bytes_per_second, rate / gpu->peak_bytes_per_second);
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
