// LayerNorm forward: every compiled variant this CPU runs, M=4096 rows x
// N in {768, 1024, 4096, 8192}, 1 and 2 threads. Reports logical bytes/s
// (2*M*N*4: read x, write y) and stream_frac, the fraction of STREAM copy
// measured at the same thread count right before each repetition: the dev
// machine's bandwidth drifts by 2x within minutes, so only paired
// measurements give a meaningful ratio.
//
//   bazel run -c opt //bench:layer_norm_bench [-- --summary]
//
// --summary: only the variant dispatch picks, fewer repetitions (the README's
// main command prints this).
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/stream.h"
#include "benchmark/benchmark.h"
#include "runtime/cpu_features.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/variant_registry.h"

namespace halnorm::bench {
namespace {

using internal::Variant;

constexpr int64_t kRows = 4096;
constexpr int64_t kHiddenSizes[] = {768, 1024, 4096, 8192};
constexpr int kThreadCounts[] = {1, 2};

halnorm_tensor Tensor2d(float* data, int64_t rows, int64_t cols) {
  return halnorm_tensor{data, HALNORM_F32, HALNORM_CPU, 2, {rows, cols}, {cols, 1}};
}

halnorm_tensor Tensor1d(float* data, int64_t n) {
  return halnorm_tensor{data, HALNORM_F32, HALNORM_CPU, 1, {n}, {1}};
}

void LayerNormForward(benchmark::State& state, const Variant* variant, int64_t hidden,
                      int threads) {
  std::vector<float> x(kRows * hidden), y(x.size()), weight(hidden), bias(hidden);
  std::vector<float> mean(kRows), rstd(kRows);
  std::mt19937 rng(7);
  std::normal_distribution<float> noise;
  for (float& v : x) v = noise(rng);
  for (float& v : weight) v = 1.f + 0.1f * noise(rng);
  for (float& v : bias) v = noise(rng);
  halnorm_tensor xt = Tensor2d(x.data(), kRows, hidden), yt = Tensor2d(y.data(), kRows, hidden);
  halnorm_tensor wt = Tensor1d(weight.data(), hidden), bt = Tensor1d(bias.data(), hidden);
  halnorm_tensor mt = Tensor1d(mean.data(), kRows), rt = Tensor1d(rstd.data(), kRows);

  const double stream_copy = StreamCopyBytesPerSecond(kDramStreamElements, threads);
  halnorm_set_num_threads(threads);
  // Untimed: starts Halide's thread pool and warms the caches and TLB.
  (void)internal::LayerNormForward(&xt, &wt, &bt, nullptr, &yt, &mt, &rt, variant);
  for (auto _ : state) {
    absl::Status s = internal::LayerNormForward(&xt, &wt, &bt, nullptr, &yt, &mt, &rt, variant);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  const double bytes = 2.0 * kRows * hidden * sizeof(float);
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.counters["stream_GBps"] = stream_copy / 1e9;
  // A rate counter: divided by the elapsed time it becomes (bytes/s) / STREAM.
  state.counters["stream_frac"] = benchmark::Counter(
      bytes * state.iterations() / stream_copy,
      benchmark::Counter::kIsRate);
}

void Register(const Variant& v, int repetitions) {
  for (int64_t hidden : kHiddenSizes) {
    for (int threads : kThreadCounts) {
      benchmark::RegisterBenchmark(
          absl::StrCat(v.name, "/M:", kRows, "/N:", hidden, "/threads:", threads).c_str(),
          LayerNormForward, &v, hidden, threads)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond)
          ->Repetitions(repetitions)
          ->ReportAggregatesOnly(true);
    }
  }
}

// --summary output: one line per case, the medians only.
class MedianTableReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override {
    std::printf("%-58s %9s %9s %7s\n", "case (median of repetitions)", "GB/s", "STREAM", "frac");
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name != "median") continue;
      auto counter = [&](const char* name) { return run.counters.at(name).value; };
      std::printf("%-58s %9.2f %9.2f %7.2f\n", run.run_name.function_name.c_str(),
                  counter("bytes_per_second") / 1e9, counter("stream_GBps"),
                  counter("stream_frac"));
    }
  }
};

void RegisterDispatched() {
  auto picked = internal::PickVariant(
      {internal::Op::kLayerNorm, internal::Direction::kForward, HALNORM_F32, false, 1024, kRows});
  if (picked.ok()) Register(**picked, /*repetitions=*/3);
}

void RegisterAll() {
  for (const Variant& v : internal::AllVariants()) {
    if (v.op != internal::Op::kLayerNorm || v.direction != internal::Direction::kForward) continue;
    if (!internal::HostSupports(v.isa)) {
      std::printf("skipping %s: this CPU lacks %s\n", v.name, internal::IsaName(v.isa));
      continue;
    }
    Register(v, /*repetitions=*/5);
  }
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) {
  using namespace halnorm::bench;
  bool summary = false;
  int kept = 0;
  for (int i = 0; i < argc; i++) {
    if (std::strcmp(argv[i], "--summary") == 0) {
      summary = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (summary) {
    RegisterDispatched();
    MedianTableReporter table;
    benchmark::RunSpecifiedBenchmarks(&table);
  } else {
    RegisterAll();
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
