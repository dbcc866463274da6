// halnorm's tensors for one (op, dtype, shape) problem, in the layout its API
// takes, and one call in either direction. Shared by the report runner and
// the autotuner (which forces JIT-compiled or compiled-in variants).
#ifndef HALNORM_BENCH_NORM_PROBLEM_H_
#define HALNORM_BENCH_NORM_PROBLEM_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "bench/bench_support.h"
#include "runtime/variant_registry.h"

namespace halnorm::bench {

class NormProblem {
 public:
  // shape: {M, N} rows of a row norm, or NCHW for LayerNorm2d (over C).
  // The activations (x, y, dy, dx) start `offset_bytes` past a 64-byte
  // boundary, to time buffers that are not cache-line aligned.
  NormProblem(internal::Op op, halnorm_dtype dtype, const std::vector<int64_t>& shape,
              std::mt19937& rng, int offset_bytes = 0);

  // `variant` nullptr: dispatch picks one, as for an app.
  absl::Status Forward(const internal::Variant* variant = nullptr);
  absl::Status Backward(const internal::Variant* variant = nullptr);
  absl::Status Run(internal::Direction direction, const internal::Variant* variant = nullptr) {
    return direction == internal::Direction::kForward ? Forward(variant) : Backward(variant);
  }

  // The backward's incoming gradient.
  const halnorm_tensor& Dy() const { return dy_.t; }

  // What the last call of `direction` wrote: y, or dx.
  const halnorm_tensor& Output(internal::Direction direction) const {
    return direction == internal::Direction::kForward ? y_.t : dx_.t;
  }

 private:
  static std::vector<int64_t> StatsShape(internal::Op op, const std::vector<int64_t>& shape);

  internal::Op op_;
  OwnedTensor x_, y_, dy_, dx_, weight_, bias_, dweight_, dbias_, mean_, rstd_;
};

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_NORM_PROBLEM_H_
