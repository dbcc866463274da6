// LayerNorm and RMSNorm, forward and backward, f32, bf16 and f16, M=4096 rows x
// N in {768, 1024, 4096, 8192, 16384}, 1 and 2 threads; and oneDNN 2.6's
// layer normalization on the same LayerNorm problems (it has no RMSNorm),
// and a naive C++ loop (f32) on both ops.
//
// Reports logical bytes/s (forward 2*M*N*s: read x, write y; backward
// 3*M*N*s: read dy and x, write dx) and stream_frac: that rate over STREAM
// copy (forward) or STREAM add (backward) measured at the same thread count
// right before each repetition. The dev machine's bandwidth drifts by 2x
// within minutes, so only paired measurements give a meaningful ratio.
//
//   bazel run //bench:row_norm_bench                     # dispatched variants
//   bazel run //bench:row_norm_bench -- --all_variants   # every variant this CPU runs
//   bazel run //bench:row_norm_bench -- --summary        # medians as one table
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_support.h"
#include "bench/naive_peer.h"
#include "bench/onednn_peer.h"
#include "benchmark/benchmark.h"
#include "runtime/cpu_features.h"
#include "runtime/dispatch.h"
#include "runtime/half_float.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"

namespace halnorm::bench {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;

constexpr int64_t kRows = 4096;
constexpr int64_t kHiddenSizes[] = {768, 1024, 4096, 8192, 16384};
constexpr int kThreadCounts[] = {1, 2};
constexpr halnorm_dtype kDtypes[] = {HALNORM_F32, HALNORM_BF16, HALNORM_F16};

struct Case {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  int64_t hidden;
  int threads;
  const Variant* variant;
};

absl::Status RunOnce(const Case& c, OwnedTensor& x, OwnedTensor& y, OwnedTensor& weight,
                     OwnedTensor& bias, OwnedTensor& mean, OwnedTensor& rstd, OwnedTensor& dy,
                     OwnedTensor& dx, OwnedTensor& dweight, OwnedTensor& dbias,
                     const Variant* variant) {
  const bool layer = c.op == Op::kLayerNorm;
  if (c.direction == Direction::kForward) {
    return layer ? internal::LayerNormForward(&x.t, &weight.t, &bias.t, nullptr, &y.t, &mean.t,
                                              &rstd.t, variant)
                 : internal::RmsNormForward(&x.t, &weight.t, nullptr, &y.t, &rstd.t, variant);
  }
  return layer ? internal::LayerNormBackward(&dy.t, &x.t, &mean.t, &rstd.t, &weight.t, nullptr,
                                             &dx.t, &dweight.t, &dbias.t, variant)
               : internal::RmsNormBackward(&dy.t, &x.t, &rstd.t, &weight.t, nullptr, &dx.t,
                                           &dweight.t, variant);
}

void RowNorm(benchmark::State& state, Case c) {
  std::mt19937 rng(7);
  OwnedTensor x(c.dtype, {kRows, c.hidden}, 0.f, rng), y(c.dtype, {kRows, c.hidden}, 0.f, rng);
  OwnedTensor dy(c.dtype, {kRows, c.hidden}, 0.f, rng), dx(c.dtype, {kRows, c.hidden}, 0.f, rng);
  OwnedTensor weight(HALNORM_F32, {c.hidden}, 1.f, rng), bias(HALNORM_F32, {c.hidden}, 0.f, rng);
  OwnedTensor dweight(HALNORM_F32, {c.hidden}, 0.f, rng), dbias(HALNORM_F32, {c.hidden}, 0.f, rng);
  OwnedTensor mean(HALNORM_F32, {kRows}, 0.f, rng), rstd(HALNORM_F32, {kRows}, 0.f, rng);

  const bool forward = c.direction == Direction::kForward;
  const double stream = PairedStream(forward, c.threads);
  halnorm_set_num_threads(c.threads);
  // Untimed: the backward's mean/rstd, Halide's thread pool, warm caches.
  Case fwd = c;
  fwd.direction = Direction::kForward;
  (void)RunOnce(fwd, x, y, weight, bias, mean, rstd, dy, dx, dweight, dbias, nullptr);
  for (auto _ : state) {
    absl::Status s = RunOnce(c, x, y, weight, bias, mean, rstd, dy, dx, dweight, dbias, c.variant);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  const double bytes = (forward ? 2.0 : 3.0) * kRows * c.hidden * internal::DtypeBytes(c.dtype);
  SetBandwidthCounters(state, bytes, stream);
}

// The same LayerNorm problem on oneDNN (scale and shift, training forward).
void OneDnn(benchmark::State& state, Case c) {
  const bool forward = c.direction == Direction::kForward;
  std::unique_ptr<OneDnnLayerNorm> peer;
  if (absl::Status s = OneDnnLayerNorm::Create(c.dtype, kRows, c.hidden, !forward, &peer);
      !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  const double stream = PairedStream(forward, c.threads);
  OneDnnLayerNorm::SetThreads(c.threads);
  peer->Run();  // untimed warm-up
  for (auto _ : state) peer->Run();
  const double bytes = (forward ? 2.0 : 3.0) * kRows * c.hidden * internal::DtypeBytes(c.dtype);
  SetBandwidthCounters(state, bytes, stream);
}

void RegisterOneDnn(int repetitions) {
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    for (halnorm_dtype dtype : kDtypes) {
      for (int64_t hidden : kHiddenSizes) {
        for (int threads : kThreadCounts) {
          const std::string name = absl::StrCat(
              "onednn_layer_norm_", internal::DirectionName(direction), "_",
              internal::DtypeName(dtype), "/M:", kRows, "/N:", hidden, "/threads:", threads);
          RegisterCase(name, OneDnn,
                       Case{Op::kLayerNorm, direction, dtype, hidden, threads, nullptr},
                       repetitions);
        }
      }
    }
  }
}

// The naive C++ loop on the same f32 problem.
void Naive(benchmark::State& state, Case c) {
  const bool forward = c.direction == Direction::kForward;
  NaiveRowNorm peer(c.op == Op::kRmsNorm, kRows, c.hidden);
  const double stream = PairedStream(forward, c.threads);
  peer.Forward(c.threads);  // untimed: statistics for the backward, warm pages
  for (auto _ : state) forward ? peer.Forward(c.threads) : peer.Backward(c.threads);
  const double bytes = (forward ? 2.0 : 3.0) * kRows * c.hidden * sizeof(float);
  SetBandwidthCounters(state, bytes, stream);
}

void RegisterNaive(int repetitions) {
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (Direction direction : {Direction::kForward, Direction::kBackward}) {
      for (int64_t hidden : kHiddenSizes) {
        for (int threads : kThreadCounts) {
          const std::string name =
              absl::StrCat("naive_", internal::OpName(op), "_", internal::DirectionName(direction),
                           "_f32/M:", kRows, "/N:", hidden, "/threads:", threads);
          RegisterCase(name, Naive, Case{op, direction, HALNORM_F32, hidden, threads, nullptr},
                       repetitions);
        }
      }
    }
  }
}

void Register(const Case& c, int repetitions) {
  const std::string name =
      absl::StrCat(c.variant->name, "/M:", kRows, "/N:", c.hidden, "/threads:", c.threads);
  RegisterCase(name, RowNorm, c, repetitions);
}

// Dispatched variants, or with `all` every CPU variant of the benchmarked
// (op, direction, dtype) this CPU runs (GPU ones: //bench:gpu_bench; not
// the native-params ones, which need 16-bit weights: these are f32).
void RegisterCases(bool all, int repetitions) {
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (Direction direction : {Direction::kForward, Direction::kBackward}) {
      for (halnorm_dtype dtype : kDtypes) {
        std::vector<const Variant*> variants;
        if (all) {
          for (const Variant& v : internal::AllVariants()) {
            if (v.op == op && v.direction == direction && v.dtype == dtype && !v.fused_residual &&
                !v.native_params && v.device == internal::Device::kCpu &&
                internal::HostSupports(v.isa)) {
              variants.push_back(&v);
            }
          }
        } else if (auto picked = internal::PickVariant({op, direction, dtype, false, 0, kRows});
                   picked.ok()) {
          variants.push_back(*picked);
        }
        for (const Variant* v : variants) {
          for (int64_t hidden : kHiddenSizes) {
            for (int threads : kThreadCounts) {
              Register({op, direction, dtype, hidden, threads, v}, repetitions);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) {
  using namespace halnorm::bench;
  const bool summary = TakeFlag(argc, argv, "--summary");
  const bool all = TakeFlag(argc, argv, "--all_variants");
  benchmark::Initialize(&argc, argv);
  RegisterCases(all, summary ? 3 : 5);
  RegisterOneDnn(summary ? 3 : 5);
  RegisterNaive(summary ? 3 : 5);
  RunRegistered(summary);
  return 0;
}
