// Pieces the benchmark binaries share: owned tensors and the --summary table.
#ifndef HALNORM_BENCH_BENCH_SUPPORT_H_
#define HALNORM_BENCH_BENCH_SUPPORT_H_

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/cache_line_allocator.h"
#include "bench/stream.h"
#include "benchmark/benchmark.h"
#include "runtime/half_float.h"
#include "runtime/halnorm_c.h"
#include "runtime/tensor_checks.h"

namespace halnorm::bench {

// A contiguous tensor owning its storage, filled with N(mean, 1) noise: one
// 64 Ki-value block, tiled (drawing every value would dominate the run).
// Its data starts `offset_bytes` past a 64-byte boundary (16: where malloc's
// large blocks start).
struct OwnedTensor {
  AlignedVector<char> bytes;
  halnorm_tensor t;

  OwnedTensor(halnorm_dtype dtype, std::vector<int64_t> shape, float mean, std::mt19937& rng,
              int offset_bytes = 0) {
    int64_t count = 1;
    for (int64_t e : shape) count *= e;
    bytes.resize(count * internal::DtypeBytes(dtype) + offset_bytes);
    t = halnorm_tensor{bytes.data() + offset_bytes,
                       dtype,
                       HALNORM_CPU,
                       static_cast<int32_t>(shape.size()),
                       {},
                       {}};
    int64_t stride = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
      t.shape[d] = shape[d];
      t.strides[d] = stride;
      stride *= shape[d];
    }
    std::normal_distribution<float> noise(mean, 1.f);
    std::vector<float> block(std::min<int64_t>(count, 1 << 16));
    for (float& v : block) v = noise(rng);
    std::vector<float> values(count);
    for (int64_t i = 0; i < count; i++) values[i] = block[i % block.size()];
    internal::StoreFromF32(values.data(), count, t);
  }
};

// --summary output: one line per case, the medians only.
class MedianTableReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override {
    std::printf("%-62s %8s %8s %6s\n", "case (median of repetitions)", "GB/s", "STREAM", "frac");
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) {
        // Once per case, not once per repetition.
        if (run.run_name.function_name != last_skipped_) {
          std::printf("%-62s skipped: %s\n", run.run_name.function_name.c_str(),
                      run.error_message.c_str());
          last_skipped_ = run.run_name.function_name;
        }
        continue;
      }
      if (run.aggregate_name != "median") continue;
      auto counter = [&](const char* name) { return run.counters.at(name).value; };
      std::printf("%-62s %8.2f %8.2f %6.2f\n", run.run_name.function_name.c_str(),
                  counter("bytes_per_second") / 1e9, counter("stream_GBps"),
                  counter("stream_frac"));
      std::fflush(stdout);
    }
  }

 private:
  std::string last_skipped_;
};

// STREAM measured now at `threads`: copy for a forward pass, add for a
// backward one (their logical traffic: 2 vs 3 streams).
inline double PairedStream(bool forward, int threads) {
  return forward ? StreamCopyBytesPerSecond(kDramStreamElements, threads)
                 : StreamAddBytesPerSecond(kDramStreamElements, threads);
}

// bytes_per_second plus stream_GBps and stream_frac: a rate counter, which
// Google Benchmark divides by the elapsed time, so it reads (bytes/s)/STREAM.
inline void SetBandwidthCounters(benchmark::State& state, double bytes_per_iteration,
                                 double stream) {
  const double bytes = bytes_per_iteration * state.iterations();
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["stream_GBps"] = stream / 1e9;
  state.counters["stream_frac"] = benchmark::Counter(bytes / stream, benchmark::Counter::kIsRate);
}

// Registers one case with the options every suite uses: wall time,
// microseconds, medians of `repetitions`.
template <typename Fn, typename Case>
void RegisterCase(const std::string& name, Fn fn, const Case& c, int repetitions) {
  benchmark::RegisterBenchmark(name.c_str(), fn, c)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true);
}

// Removes `flag` from argv (so Google Benchmark does not see it); true if
// it was there.
inline bool TakeFlag(int& argc, char** argv, const char* flag) {
  bool found = false;
  int kept = 0;
  for (int i = 0; i < argc; i++) {
    if (std::strcmp(argv[i], flag) == 0) {
      found = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return found;
}

// Runs what is registered: the median table with --summary, else Google
// Benchmark's own console output.
inline void RunRegistered(bool summary) {
  if (summary) {
    MedianTableReporter table;
    benchmark::RunSpecifiedBenchmarks(&table);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
}

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_BENCH_SUPPORT_H_
