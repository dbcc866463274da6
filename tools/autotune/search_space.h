// What the schedule search explores: the grid of shapes (one representative
// per tuning bucket) and, per generator family, the schedule knob values.
#ifndef HALNORM_TOOLS_AUTOTUNE_SEARCH_SPACE_H_
#define HALNORM_TOOLS_AUTOTUNE_SEARCH_SPACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::autotune {

enum class Family { kRowNorm, kChannelNorm };  // as in tools/bazel/variants.bzl
Family FamilyOf(internal::Op op);
const char* FamilyName(Family family);

// One shape the tuner times: a problem and the tuning bucket it stands for.
struct GridPoint {
  internal::Op op;
  internal::Direction direction;
  halnorm_dtype dtype;
  std::vector<int64_t> shape;  // {M, N}, or NCHW for LayerNorm2d
  int hidden_bucket, row_bucket;
  // The thread limit it is timed at (halnorm_set_num_threads); 0: none,
  // every core (and the only choice for JIT kernels, which run on Halide's
  // own pool).
  int threads = 0;
  // "layer_norm fwd f32 16x768", then " on 1 thread(s)" when threads > 0.
  std::string Describe() const;
};

struct Scope {
  std::vector<internal::Op> ops;
  std::vector<halnorm_dtype> dtypes;
  bool quick = false;  // fewer shapes and knob values: minutes, not an hour
  // Each shape is timed at each of these thread limits (GridPoint::threads).
  // A bucket has one entry for every thread count, so the runtime mode's
  // pick must serve both a 1-thread and an all-core caller.
  std::vector<int> threads = {0};
};

std::vector<GridPoint> ShapeGrid(const Scope& scope);

// What a tuning table keys on: (op, direction, dtype, hidden bucket, row bucket).
using BucketKey = std::tuple<internal::Op, internal::Direction, halnorm_dtype, int, int>;
// The indices of `points` in each bucket.
std::map<BucketKey, std::vector<int>> GroupByBucket(const std::vector<GridPoint>& points);

// A family's schedule knobs: GeneratorParams by name. A config holds the
// knobs of both directions (the backward ignores rows_per_task).
using Config = std::map<std::string, int>;
std::vector<Config> KnobSpace(Family family, int native_vector_width, bool quick);
// The knobs a direction's generator takes (the rest do not change its code).
std::vector<std::string> KnobsOf(Family family, internal::Direction direction);
std::string ConfigText(const Config& config);  // "accumulators=4 vector_width=8"

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_SEARCH_SPACE_H_
