// The shape grid: one point per tuning bucket, thread count and kind (two
// for the shortest rows from DRAM), each inside the bucket it stands for,
// and the DRAM bucket's shapes past the LLC; and the knob space.
#include "tools/autotune/search_space.h"

#include <map>
#include <set>
#include <tuple>

#include "gtest/gtest.h"
#include "runtime/tuning_buckets.h"

namespace halnorm::autotune {
namespace {

using internal::Op;

Scope EveryKind(bool quick) {
  Scope scope;
  scope.ops = {Op::kLayerNorm, Op::kRmsNorm, Op::kLayerNorm2d};
  scope.dtypes = {HALNORM_F32, HALNORM_F16, HALNORM_BF16};
  scope.quick = quick;
  scope.threads = {1, 2};
  return scope;
}

int64_t Rows(const GridPoint& g) {
  const std::vector<int64_t>& s = g.shape;
  return g.op == Op::kLayerNorm2d ? s[0] * s[2] * s[3] : s[0];
}
int64_t Hidden(const GridPoint& g) { return g.shape[1]; }

TEST(ShapeGridTest, EachPointLiesInTheBucketItStandsFor) {
  const std::vector<GridPoint> grid = ShapeGrid(EveryKind(/*quick=*/false));
  ASSERT_FALSE(grid.empty());
  for (const GridPoint& g : grid) {
    SCOPED_TRACE(g.Describe());
    EXPECT_EQ(g.hidden_bucket, internal::HiddenBucket(g.op, Hidden(g)));
    EXPECT_EQ(g.row_bucket, internal::RowBucket(Rows(g)));
  }
}

// One point per bucket and thread count, except the DRAM bucket of the
// shortest rows (128 and 256 columns) and LayerNorm2d's of the fewest
// channels and most pixels (ConvNeXt's 96 channels, a large image's 64).
TEST(ShapeGridTest, OnePointPerBucketAndThreadCountButTheShortDramRows) {
  for (bool quick : {false, true}) {
    const std::vector<GridPoint> grid = ShapeGrid(EveryKind(quick));
    using BucketAndThreads = std::tuple<BucketKey, int>;
    std::map<BucketAndThreads, std::set<int64_t>> hidden_sizes;
    for (const GridPoint& g : grid) {
      const BucketKey key{g.op, g.direction, g.dtype, g.hidden_bucket, g.row_bucket};
      const bool added = hidden_sizes[BucketAndThreads(key, g.threads)].insert(Hidden(g)).second;
      EXPECT_TRUE(added) << g.Describe();
    }
    const std::set<int64_t> head_dims = {128, 256}, image_channels = {64, 96};
    for (const auto& [key, sizes] : hidden_sizes) {
      const auto& [op, direction, dtype, hidden_bucket, row_bucket] = std::get<0>(key);
      if (hidden_bucket == 0 && row_bucket == internal::kRowBuckets - 1) {
        EXPECT_EQ(sizes, op == Op::kLayerNorm2d ? image_channels : head_dims);
      } else {
        EXPECT_EQ(sizes.size(), 1u);
      }
    }
    // Row norms: every (hidden, row) bucket pair plus the second short DRAM
    // size; LayerNorm2d: its 6 shapes.
    const size_t kinds = 3 * 2;  // dtypes x directions
    const size_t per_kind_and_threads =
        2 * (internal::kHiddenBuckets * internal::kRowBuckets + 1) + 6;
    EXPECT_EQ(grid.size(), kinds * per_kind_and_threads * 2);
  }
}

// The last row bucket stands for rows from DRAM: its shapes hold at least
// 8 Mi elements, twice a 16 MiB LLC in f32, at every hidden size.
TEST(ShapeGridTest, TheLastRowBucketsShapesArePastTheLlc) {
  int checked = 0;
  for (const GridPoint& g : ShapeGrid(EveryKind(/*quick=*/false))) {
    if (g.op == Op::kLayerNorm2d || g.row_bucket != internal::kRowBuckets - 1) continue;
    EXPECT_GE(Rows(g) * Hidden(g), int64_t{8} << 20) << g.Describe();
    checked++;
  }
  EXPECT_GT(checked, 0);
}

// Full mode: every row-norm knob combination with at least 16 reduction
// lanes, statistics in groups of 1, 4 or 16 rows; quick mode: 4 of them,
// groups of 1 or 16.
TEST(KnobSpaceTest, RowNormConfigs) {
  for (bool quick : {false, true}) {
    std::map<int, int> by_stats_rows;
    const std::vector<Config> space = KnobSpace(Family::kRowNorm, 16, quick);
    for (const Config& c : space) {
      EXPECT_GE(c.at("vector_width") * c.at("accumulators"), 16);
      by_stats_rows[c.at("stats_rows")]++;
    }
    if (quick) {
      EXPECT_EQ(space.size(), 4u);
      EXPECT_EQ(by_stats_rows, (std::map<int, int>{{1, 2}, {16, 2}}));
    } else {
      EXPECT_EQ(space.size(), 54u);
      EXPECT_EQ(by_stats_rows, (std::map<int, int>{{1, 18}, {4, 18}, {16, 18}}));
    }
  }
}

}  // namespace
}  // namespace halnorm::autotune
