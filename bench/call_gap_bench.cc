// Decode-shape calls with other work between them, as in a model: each call
// follows a busy gap (standing for the layer's other ops) of 0, 50 or 500 us,
// on 2 threads. Times the call alone (the gap excluded), median of
// repetitions, for:
//   - dispatch (the tuned table's variant) and the fastest compiled variant,
//     on halnorm's spinning pool (runtime/spinning_pool.h) and on Halide's
//     own pool (the spinning pool off), whose workers sleep soon after a loop;
//   - oneDNN 2.6 (LayerNorm only), whose OpenMP threads spin for 200 ms.
// Prints a markdown table (us per call).
//
//   bazel run -c opt //bench:call_gap_bench
//   bazel run -c opt //bench:call_gap_bench -- --rows=16 --threads=2
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/norm_problem.h"
#include "bench/onednn_peer.h"
#include "bench/timing.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/spinning_pool.h"
#include "runtime/variant_index.h"

namespace halnorm::bench {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;

constexpr int kGapsUs[] = {0, 50, 500};
constexpr int kRepetitions = 7;

// The compiled variants dispatch chooses among for this call on this CPU
// (NormProblem's weight and bias have x's dtype: native params where they pay).
std::vector<const Variant*> Candidates(Op op, Direction direction, halnorm_dtype dtype,
                                       int64_t rows, int64_t hidden) {
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  const internal::VariantKind kind{
      op, direction, dtype, false,
      internal::NativeParamsPay({op, direction, dtype, false, hidden, rows})};
  return index.Configs(kind, index.DispatchTarget(kind));
}

struct HalnormTimes {
  double dispatch, best;
  std::string best_name;
};

HalnormTimes TimeHalnorm(NormProblem& problem, Direction direction,
                         const std::vector<const Variant*>& candidates,
                         std::chrono::microseconds gap) {
  HalnormTimes t;
  t.dispatch = MedianSecondsPerCall([&] { (void)problem.Run(direction); }, kRepetitions, gap);
  t.best = 1e30;
  for (const Variant* v : candidates) {
    const double s =
        MedianSecondsPerCall([&] { (void)problem.Run(direction, v); }, kRepetitions, gap);
    if (s < t.best) t.best = s, t.best_name = v->name;
  }
  return t;
}

int Main(int argc, char** argv) {
  int64_t rows = 16;
  int threads = 2;
  for (int i = 1; i < argc; i++) {
    if (std::sscanf(argv[i], "--rows=%ld", &rows) == 1) continue;
    if (std::sscanf(argv[i], "--threads=%d", &threads) == 1) continue;
    std::fprintf(stderr, "call_gap_bench: unknown argument %s (--rows=, --threads=)\n", argv[i]);
    return 2;
  }
  halnorm_set_num_threads(threads);
  OneDnnLayerNorm::SetThreads(threads);
  const auto spin = internal::SpinningPoolSpinTime();
  std::printf("%ld rows, %d threads; us per call (gap excluded); spin = %ld us\n\n", rows, threads,
              static_cast<long>(spin.count()));
  std::printf(
      "| case | gap us | dispatch | dispatch, Halide's pool | best | best, Halide's pool "
      "| oneDNN | best variant |\n|---|---|---|---|---|---|---|---|\n");
  std::mt19937 rng(1);
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_BF16}) {
      for (int64_t hidden : {2048, 8192}) {
        NormProblem problem(op, dtype, {rows, hidden}, rng);
        for (Direction direction : {Direction::kForward, Direction::kBackward}) {
          const auto candidates = Candidates(op, direction, dtype, rows, hidden);
          std::unique_ptr<OneDnnLayerNorm> onednn;
          if (op == Op::kLayerNorm) {
            (void)OneDnnLayerNorm::Create(dtype, rows, hidden, direction == Direction::kBackward,
                                          &onednn);
          }
          for (int gap_us : kGapsUs) {
            const std::chrono::microseconds gap(gap_us);
            const HalnormTimes spinning = TimeHalnorm(problem, direction, candidates, gap);
            internal::SetSpinningPoolSpinTime(std::chrono::microseconds(-1));
            const HalnormTimes halide_pool = TimeHalnorm(problem, direction, candidates, gap);
            internal::SetSpinningPoolSpinTime(spin);
            std::string peer = "-";
            if (onednn) {
              char text[32];
              std::snprintf(text, sizeof(text), "%.2f",
                            MedianSecondsPerCall([&] { onednn->Run(); }, kRepetitions, gap) * 1e6);
              peer = text;
            }
            std::printf("| %s %s %s %ldx%ld | %d | %.2f | %.2f | %.2f | %.2f | %s | %s |\n",
                        internal::OpName(op), internal::DirectionName(direction),
                        internal::DtypeName(dtype), rows, hidden, gap_us, spinning.dispatch * 1e6,
                        halide_pool.dispatch * 1e6, spinning.best * 1e6, halide_pool.best * 1e6,
                        peer.c_str(), spinning.best_name.c_str());
            std::fflush(stdout);
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) { return halnorm::bench::Main(argc, argv); }
