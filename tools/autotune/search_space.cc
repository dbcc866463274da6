#include "tools/autotune/search_space.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/dispatch.h"
#include "runtime/tuning_buckets.h"

namespace halnorm::autotune {

using internal::Direction;
using internal::Op;

Family FamilyOf(Op op) { return op == Op::kLayerNorm2d ? Family::kChannelNorm : Family::kRowNorm; }

const char* FamilyName(Family family) {
  return family == Family::kRowNorm ? "row_norm" : "channel_norm";
}

std::string GridPoint::Describe() const {
  return absl::StrCat(internal::OpName(op), " ", internal::DirectionName(direction), " ",
                      internal::DtypeName(dtype), " ", absl::StrJoin(shape, "x"),
                      threads <= 0       ? ""
                      : threads == 1     ? " on 1 thread"
                                         : absl::StrCat(" on ", threads, " threads"));
}

namespace {

// One representative per bucket of runtime/tuning_buckets.h, near the middle
// of the sizes real models use there.
constexpr int kMinReductionLanes = 16;

constexpr int64_t kRowHidden[internal::kHiddenBuckets] = {128, 768, 2048, 8192};
constexpr int64_t kRowRows[internal::kRowBuckets] = {16, 256, 4096, 16384};
// The last row bucket is the one whose rows come from DRAM. Its shapes hold
// at least 8 Mi elements (32 MiB of f32 x), twice the 16 MiB LLC of the dev
// VMs: at hidden 128, 16384 rows of f32 x and y are 16 MiB, and whether a
// process keeps them in that LLC depended on its pages (LayerNorm forward
// on the Zen 2 VM: 362 us in one process, 763-944 us in four others), so
// the best config flipped between processes. 65536 rows of 128 are also
// what per-head QK norms of 2048 tokens x 32 heads run.
constexpr int64_t kDramRowsElements = int64_t{8} << 20;
// The shortest rows' DRAM bucket is also timed at 256 columns: per-head QK
// norms run 128 (most models) and 256 (Gemma), and from DRAM their best
// configs differ. LayerNorm f32 forward, 1 thread, Zen 4 VM: c0 (16-row
// statistics groups) 33.3 GB/s at 16384x128 but 18.1 at 16384x256, where
// c1 (row by row) ran 32.3; timed at 128 alone, the table gave both c0.
constexpr int64_t kHeadDimHidden = 256;

int64_t RepresentativeRows(int row_bucket, int64_t hidden) {
  const int64_t rows = kRowRows[row_bucket];
  if (row_bucket != internal::kRowBuckets - 1) return rows;
  return std::max(rows, kDramRowsElements / hidden);
}

// 16-bit forwards of fewer rows read their weight and bias as they are
// (dispatch.h): the grid times the plain variants those calls share a table
// entry with, on as many rows as decode batches have.
static_assert(kRowRows[0] > internal::kNativeParamsMaxRows);

// LayerNorm2d: channels (hidden) x pixels (rows) of ConvNeXt / SAM stages;
// no model has C > 1024 or fewer than 17 pixels in a batch.
struct ImageShape {
  std::vector<int64_t> nchw;
};
const ImageShape kImageShapes[] = {
    {{8, 96, 56, 56}},    // C <= 128, many pixels (ConvNeXt-T stage 1)
    {{1, 64, 128, 128}},  // C <= 128, many pixels in one large image (64 KiB channel planes)
    {{8, 192, 28, 28}},   // C <= 256, many pixels (stage 2)
    {{1, 256, 64, 64}},   // C <= 256, <= 4096 pixels (SAM neck)
    {{8, 768, 7, 7}},     // C <= 1024, <= 512 pixels (ConvNeXt-T stage 4)
    {{8, 384, 14, 14}},   // C <= 1024, many pixels (stage 3)
};

}  // namespace

std::vector<GridPoint> ShapeGrid(const Scope& scope) {
  std::vector<GridPoint> grid;
  for (Op op : scope.ops) {
    for (halnorm_dtype dtype : scope.dtypes) {
      for (Direction direction : {Direction::kForward, Direction::kBackward}) {
        auto add = [&](const std::vector<int64_t>& shape, int64_t hidden, int64_t rows) {
          for (int threads : scope.threads) {
            grid.push_back({op, direction, dtype, shape, internal::HiddenBucket(op, hidden),
                            internal::RowBucket(rows), threads});
          }
        };
        if (op == Op::kLayerNorm2d) {
          for (const ImageShape& s : kImageShapes) {
            const std::vector<int64_t>& d = s.nchw;
            add(d, d[1], d[0] * d[2] * d[3]);
          }
          continue;
        }
        auto add_rows = [&](int64_t hidden, int row_bucket) {
          const int64_t rows = RepresentativeRows(row_bucket, hidden);
          // Quick mode: a quarter of the rows of the large problems, timed
          // for their own bucket.
          const int64_t timed = scope.quick && rows > 512 ? rows / 4 : rows;
          add({timed, hidden}, hidden, rows);
        };
        for (int64_t hidden : kRowHidden) {
          for (int row_bucket = 0; row_bucket < internal::kRowBuckets; row_bucket++) {
            add_rows(hidden, row_bucket);
          }
        }
        add_rows(kHeadDimHidden, internal::kRowBuckets - 1);
      }
    }
  }
  return grid;
}

std::map<BucketKey, std::vector<int>> GroupByBucket(const std::vector<GridPoint>& points) {
  std::map<BucketKey, std::vector<int>> buckets;
  for (int p = 0; p < static_cast<int>(points.size()); p++) {
    const GridPoint& g = points[p];
    buckets[{g.op, g.direction, g.dtype, g.hidden_bucket, g.row_bucket}].push_back(p);
  }
  return buckets;
}

std::vector<Config> KnobSpace(Family family, int native_vector_width, bool quick) {
  const int w = native_vector_width;
  std::vector<Config> space;
  if (family == Family::kRowNorm) {
    for (int vector_width : {w, 2 * w}) {
      for (int accumulators : {1, 2, 4}) {
        // The statistics are one-pass f32 sums per lane: with fewer than 16
        // lanes a 2^20-element row exceeds the 1e-5 accuracy bound
        // (tests/row_norm_forward_test, N=1048576).
        if (vector_width * accumulators < kMinReductionLanes) continue;
        for (int rows_per_task : {4, 16, 64}) {
          // Quick: 4 configs (native vectors, 2 or 4 accumulators,
          // stats_rows 1 or 16), to stay under 10 minutes on the 2-core VM.
          if (quick && (rows_per_task != 16 || vector_width != w || accumulators == 1)) continue;
          // Statistics row by row, or 4 or 16 (at most a task's) rows
          // together. 4 (full mode only) is the middle ground for short rows
          // from DRAM, where groups of 16 lose the overlap of the next rows'
          // reads with this row's outputs (ScheduleRowNormForwardCpu). JIT,
          // LayerNorm, 1 thread, Zen 4 VM, stats_rows 1 / 4 / 16 (GB/s):
          // f32 backward 65536x128 20.2 / 24.6 / 19.1, bf16 forward
          // 32768x256 12.1 / 14.5 / 13.2, f32 forward 4096x128 (cached)
          // 30.7 / 36.6 / 39.1.
          for (int stats_rows : {1, 4, 16}) {
            if (quick && stats_rows == 4) continue;
            space.push_back({{"vector_width", vector_width},
                             {"accumulators", accumulators},
                             {"rows_per_task", rows_per_task},
                             {"stats_rows", stats_rows}});
          }
        }
      }
    }
  } else {
    for (int vector_width : {w, 2 * w}) {
      for (int pixels_per_task : {32, 64, 128, 256}) {
        if (quick && (vector_width != w || pixels_per_task > 128)) continue;
        space.push_back({{"vector_width", vector_width}, {"pixels_per_task", pixels_per_task}});
      }
    }
  }
  return space;
}

std::vector<std::string> KnobsOf(Family family, Direction direction) {
  if (family == Family::kChannelNorm) return {"pixels_per_task", "vector_width"};
  if (direction == Direction::kBackward) return {"accumulators", "stats_rows", "vector_width"};
  return {"accumulators", "rows_per_task", "stats_rows", "vector_width"};
}

std::string ConfigText(const Config& config) {
  return absl::StrJoin(config, " ", absl::PairFormatter("="));
}

}  // namespace halnorm::autotune
