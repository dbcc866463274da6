// Side-by-side timing of a few kernels on a few shapes: the A/B behind a
// schedule change. A kernel is a compiled-in variant, or a JIT compile of a
// generator with given knobs (the host target's hand schedule), so that a
// change to a schedule or a copy of a generator can be timed against the
// build's kernels in one process, before the build compiles it.
#ifndef HALNORM_TOOLS_AUTOTUNE_KERNEL_AB_H_
#define HALNORM_TOOLS_AUTOTUNE_KERNEL_AB_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/variant_registry.h"

namespace halnorm::autotune {

// One kernel of the comparison, as written on the command line:
//   "variant:layer_norm_bwd_f32__x86_avx512_c4"   a compiled-in variant;
//   "vector_width=16,accumulators=4,stats_rows=1"  JIT, the problem's generator;
//   "generator=row_norm_backward_x,vector_width=16,..."  JIT, another
//       registered generator (an experiment's copy) with the same signature.
struct AbKernel {
  std::string text;     // as given: the column's label
  std::string variant;  // compiled-in variant name, or "" for a JIT kernel
  std::string generator;                      // JIT: "" = the problem's own
  std::map<std::string, std::string> params;  // JIT: GeneratorParams (knobs)
};

absl::StatusOr<AbKernel> ParseAbKernel(absl::string_view text);

struct AbOptions {
  internal::Op op = internal::Op::kLayerNorm;
  internal::Direction direction = internal::Direction::kForward;
  halnorm_dtype dtype = HALNORM_F32;
  // {M, N} of a row norm, NCHW for LayerNorm2d (over C).
  std::vector<std::vector<int64_t>> shapes;
  std::vector<AbKernel> kernels;
  int rounds = 7;  // side-by-side rounds per shape (measure.h)
};

struct AbRow {
  std::vector<int64_t> shape;
  double logical_bytes;          // forward 2*elements*s, backward 3*elements*s
  std::vector<double> seconds;   // per kernel: median seconds a call
};

// Compiles the JIT kernels, checks that every kernel computes the problem
// (op, direction, dtype), then times them side by side on each shape at the
// calling thread count (halnorm_set_num_threads; JIT kernels run on
// Halide's own pool, which HL_NUM_THREADS sizes before its first use). A
// kernel that fails is an error naming it and the shape.
absl::StatusOr<std::vector<AbRow>> RunKernelAb(const AbOptions& options);

// A markdown table: a row per shape, per kernel us a call, GB/s (logical
// bytes) and the time of the first kernel over its own.
std::string FormatAb(const AbOptions& options, const std::vector<AbRow>& rows);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_KERNEL_AB_H_
