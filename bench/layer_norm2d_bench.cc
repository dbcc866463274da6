// LayerNorm2d on the ConvNeXt-T stage shapes (8,96,56,56), (8,192,28,28),
// (8,384,14,14), (8,768,7,7) and the SAM neck (1,256,64,64), 1 and 2 threads:
// AXES_C forward and backward on NCHW (the channel-norm kernels), f32 and
// bf16; AXES_CHW and AXES_HW forward and backward, f32; and the path
// AXES_C replaces, NCHW -> NHWC copy, LayerNorm over C, NHWC -> NCHW copy,
// with halnorm's own row kernel in the middle. Logical bytes: forward 2*numel*s, backward
// 3*numel*s; stream_frac as in row_norm_bench.
//
//   bazel run //bench:layer_norm2d_bench [-- --summary]
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_support.h"
#include "benchmark/benchmark.h"
#include "runtime/layer_norm2d.h"
#include "runtime/row_norm.h"

namespace halnorm::bench {
namespace {

struct Shape {
  int64_t n, c, h, w;
};
constexpr Shape kShapes[] = {
    {8, 96, 56, 56}, {8, 192, 28, 28}, {8, 384, 14, 14}, {8, 768, 7, 7}, {1, 256, 64, 64}};
constexpr int kThreadCounts[] = {1, 2};

enum class Path { kForward, kBackward, kPermuteBaseline };

struct Case {
  Path path;
  halnorm_axes axes;
  halnorm_dtype dtype;
  Shape shape;
  int threads;
};

// dst[s][c][r] = src[s][r][c] for each of n samples (NCHW <-> NHWC with
// rows/cols = C/HW or HW/C), in 32x32 blocks, samples split over threads.
void Transpose(const float* src, float* dst, int64_t n, int64_t rows, int64_t cols, int threads) {
  constexpr int64_t kBlock = 32;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) {
    pool.emplace_back([=] {
      for (int64_t s = t; s < n; s += threads) {
        const float* in = src + s * rows * cols;
        float* out = dst + s * rows * cols;
        for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
          for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
            for (int64_t r = r0; r < std::min(rows, r0 + kBlock); r++) {
              for (int64_t c = c0; c < std::min(cols, c0 + kBlock); c++) {
                out[c * rows + r] = in[r * cols + c];
              }
            }
          }
        }
      }
    });
  }
  for (auto& th : pool) th.join();
}

halnorm_tensor StatsTensor(OwnedTensor& storage, const Shape& s, halnorm_axes axes) {
  halnorm_tensor t = storage.t;
  if (axes == HALNORM_AXES_C)
    t = {t.data, HALNORM_F32, HALNORM_CPU, 3, {s.n, s.h, s.w}, {s.h * s.w, s.w, 1}};
  if (axes == HALNORM_AXES_CHW) t = {t.data, HALNORM_F32, HALNORM_CPU, 1, {s.n}, {1}};
  if (axes == HALNORM_AXES_HW) t = {t.data, HALNORM_F32, HALNORM_CPU, 2, {s.n, s.c}, {s.c, 1}};
  return t;
}

void LayerNorm2d(benchmark::State& state, Case c) {
  const Shape& s = c.shape;
  std::mt19937 rng(7);
  OwnedTensor x(c.dtype, {s.n, s.c, s.h, s.w}, 0.f, rng),
      y(c.dtype, {s.n, s.c, s.h, s.w}, 0.f, rng);
  OwnedTensor dy(c.dtype, {s.n, s.c, s.h, s.w}, 0.f, rng),
      dx(c.dtype, {s.n, s.c, s.h, s.w}, 0.f, rng);
  OwnedTensor weight(HALNORM_F32, {s.c}, 1.f, rng), bias(HALNORM_F32, {s.c}, 0.f, rng);
  OwnedTensor dweight(HALNORM_F32, {s.c}, 0.f, rng), dbias(HALNORM_F32, {s.c}, 0.f, rng);
  OwnedTensor mean_storage(HALNORM_F32, {s.n * s.c * s.h * s.w}, 0.f, rng),
      rstd_storage = mean_storage;
  rstd_storage.t.data = rstd_storage.bytes.data();
  halnorm_tensor mean = StatsTensor(mean_storage, s, c.axes),
                 rstd = StatsTensor(rstd_storage, s, c.axes);
  // The baseline's NHWC copies.
  OwnedTensor x_nhwc(c.dtype, {s.n, s.h, s.w, s.c}, 0.f, rng), y_nhwc = x_nhwc;
  y_nhwc.t.data = y_nhwc.bytes.data();

  const bool backward = c.path == Path::kBackward;
  const double stream = PairedStream(!backward, c.threads);
  halnorm_set_num_threads(c.threads);
  auto forward = [&] {
    return internal::LayerNorm2dForward(&x.t, &weight.t, &bias.t, c.axes, 1e-6f, &y.t, &mean,
                                        &rstd);
  };
  auto run = [&]() -> absl::Status {
    switch (c.path) {
      case Path::kForward:
        return forward();
      case Path::kBackward:
        return internal::LayerNorm2dBackward(&dy.t, &x.t, &mean, &rstd, &weight.t, c.axes, &dx.t,
                                             &dweight.t, &dbias.t);
      case Path::kPermuteBaseline: {
        const int64_t hw = s.h * s.w;
        Transpose(reinterpret_cast<float*>(x.bytes.data()),
                  reinterpret_cast<float*>(x_nhwc.bytes.data()), s.n, s.c, hw, c.threads);
        halnorm_norm_options opt;
        halnorm_norm_options_init(&opt);
        opt.eps = 1e-6f;
        absl::Status st = internal::LayerNormForward(&x_nhwc.t, &weight.t, &bias.t, &opt, &y_nhwc.t,
                                                     &mean, &rstd);
        Transpose(reinterpret_cast<float*>(y_nhwc.bytes.data()),
                  reinterpret_cast<float*>(y.bytes.data()), s.n, hw, s.c, c.threads);
        return st;
      }
    }
    return absl::OkStatus();
  };
  (void)forward();  // untimed: statistics for the backward, thread pool, caches
  for (auto _ : state) {
    absl::Status st = run();
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  const double bytes =
      (backward ? 3.0 : 2.0) * s.n * s.c * s.h * s.w * internal::DtypeBytes(c.dtype);
  SetBandwidthCounters(state, bytes, stream);
}

const char* AxesName(halnorm_axes axes) {
  return axes == HALNORM_AXES_C ? "C" : axes == HALNORM_AXES_CHW ? "CHW" : "HW";
}

void RegisterCases(int repetitions) {
  std::vector<Case> cases;
  for (const Shape& s : kShapes) {
    for (int threads : kThreadCounts) {
      for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_BF16}) {
        cases.push_back({Path::kForward, HALNORM_AXES_C, dtype, s, threads});
        cases.push_back({Path::kBackward, HALNORM_AXES_C, dtype, s, threads});
      }
      cases.push_back({Path::kPermuteBaseline, HALNORM_AXES_C, HALNORM_F32, s, threads});
      for (halnorm_axes axes : {HALNORM_AXES_CHW, HALNORM_AXES_HW}) {
        cases.push_back({Path::kForward, axes, HALNORM_F32, s, threads});
        cases.push_back({Path::kBackward, axes, HALNORM_F32, s, threads});
      }
    }
  }
  for (const Case& c : cases) {
    const char* path = c.path == Path::kForward    ? "fwd"
                       : c.path == Path::kBackward ? "bwd"
                                                   : "permute_ln_permute";
    const std::string name = absl::StrCat(
        "layer_norm2d_", AxesName(c.axes), "_", path, "_", internal::DtypeName(c.dtype), "/",
        c.shape.n, "x", c.shape.c, "x", c.shape.h, "x", c.shape.w, "/threads:", c.threads);
    RegisterCase(name, LayerNorm2d, c, repetitions);
  }
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) {
  using namespace halnorm::bench;
  const bool summary = TakeFlag(argc, argv, "--summary");
  benchmark::Initialize(&argc, argv);
  RegisterCases(summary ? 3 : 5);
  RunRegistered(summary);
  return 0;
}
