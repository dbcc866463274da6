#include "tests/layer_norm_forward_cases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace halnorm::testutil {
namespace {

// 1, odd, prime, below/at/above 8- and 16-wide vectors and 32-element tiles,
// a transformer width, a non-power-of-two, a large prime, and >= 65536.
constexpr int64_t kHiddenSizes[] = {1,  3,  7,  13,  15,  16,   17,   31,
                                    32, 33, 64, 127, 768, 1000, 4099, 65536};
constexpr int64_t kRowCounts[] = {0, 1, 5, 64};
// Keeps the O(rows * hidden) reference and fill cheap for the widest rows.
constexpr int64_t kMaxRowsOfLargeHidden = 5;
constexpr int64_t kLargeHidden = 65536;

ForwardCase Matrix(int64_t rows, int64_t hidden) {
  ForwardCase c;
  c.name = absl::StrCat("M", rows, "_N", hidden);
  c.shape = {rows, hidden};
  return c;
}

ForwardCase Tensor(std::vector<int64_t> shape, int32_t normalized_rank) {
  ForwardCase c;
  c.name = absl::StrCat("shape", absl::StrJoin(shape, "x"), "_nr", normalized_rank);
  c.shape = std::move(shape);
  c.normalized_rank = normalized_rank;
  return c;
}

ForwardCase With(ForwardCase c, const char* suffix) {
  absl::StrAppend(&c.name, "_", suffix);
  return c;
}

}  // namespace

void PrintTo(const ForwardCase& c, std::ostream* os) {
  *os << c.name << " {shape [" << absl::StrJoin(c.shape, ",") << "], normalized_rank "
      << c.normalized_rank << ", x_strides [" << absl::StrJoin(c.x_strides, ",") << "], y_strides ["
      << absl::StrJoin(c.y_strides, ",") << "], stats_strides ["
      << absl::StrJoin(c.stats_strides, ",") << "], data_offset " << c.data_offset
      << ", x = " << c.offset << " + " << c.scale << "*N(0,1), eps " << c.eps << ", weight "
      << c.weight << ", bias " << c.bias << ", mean " << c.mean << ", rstd " << c.rstd << "}";
}

std::vector<ForwardCase> LayerNormForwardCases() {
  std::vector<ForwardCase> cases;
  for (int64_t hidden : kHiddenSizes) {
    for (int64_t rows : kRowCounts) {
      if (hidden >= kLargeHidden && rows > kMaxRowsOfLargeHidden) continue;
      cases.push_back(Matrix(rows, hidden));
    }
  }
  // Many rows: uneven splits into parallel tasks. Wide rows: past L2 (4 MiB).
  cases.push_back(Matrix(1000, 7));
  cases.push_back(Matrix(257, 128));
  cases.push_back(Matrix(3, kLargeHidden + 1));
  cases.push_back(Matrix(1, 1 << 20));

  // Data one float past an allocation's alignment: no aligned-load assumptions.
  for (int64_t hidden : {16, 33, 768}) {
    ForwardCase c = With(Matrix(5, hidden), "misaligned");
    c.data_offset = 1;
    cases.push_back(c);
  }

  // Padded rows; x and y pad differently so mixing up their strides fails.
  constexpr std::pair<int64_t, int64_t> kPaddedMatrices[] = {{5, 1},   {5, 16},  {5, 17},
                                                             {64, 33}, {5, 768}, {5, 1000}};
  for (auto [rows, hidden] : kPaddedMatrices) {
    ForwardCase c = With(Matrix(rows, hidden), "padded");
    c.x_strides = {hidden + 3, 1};
    c.y_strides = {hidden + 8, 1};
    cases.push_back(c);
  }

  // An expanded (broadcast) x: every row reads the same memory, as after
  // PyTorch's expand(). Only outputs must not overlap.
  ForwardCase broadcast = With(Matrix(5, 33), "x_rows_broadcast");
  broadcast.x_strides = {0, 1};
  cases.push_back(broadcast);

  // Large common offset: naive sums cancel catastrophically.
  for (int64_t hidden : {7, 33, 768, 4099}) {
    ForwardCase c = With(Matrix(5, hidden), "offset1e4");
    c.offset = 1e4;
    cases.push_back(c);
  }
  // Mean 1e6 times the std: the accuracy contract's hardest case.
  for (int64_t hidden : {16, 768, 4099}) {
    ForwardCase c = With(Matrix(5, hidden), "offset1e6");
    c.offset = 1e6;
    cases.push_back(c);
  }

  // Affine parameters absent in every combination.
  for (int64_t hidden : {17, 768}) {
    ForwardCase plain = With(Matrix(5, hidden), "no_weight_no_bias");
    plain.weight = plain.bias = false;
    cases.push_back(plain);
    ForwardCase weight_only = With(Matrix(5, hidden), "weight_only");
    weight_only.bias = false;
    cases.push_back(weight_only);
    ForwardCase bias_only = With(Matrix(5, hidden), "bias_only");
    bias_only.weight = false;
    cases.push_back(bias_only);
  }

  // Statistics outputs are optional, independently.
  ForwardCase mean_only = With(Matrix(5, 33), "mean_only");
  mean_only.rstd = false;
  cases.push_back(mean_only);
  ForwardCase rstd_only = With(Matrix(5, 33), "rstd_only");
  rstd_only.mean = false;
  cases.push_back(rstd_only);
  ForwardCase no_stats = With(Matrix(5, 33), "no_stats");
  no_stats.mean = no_stats.rstd = false;
  cases.push_back(no_stats);

  // With var ~ 1, eps = 1e-5 is below the tolerance; make it matter.
  ForwardCase large_eps = With(Matrix(5, 64), "eps0p5");
  large_eps.eps = 0.5f;
  large_eps.scale = 0.5;
  cases.push_back(large_eps);
  // Zero variance: rstd = 1/sqrt(eps), y = bias.
  ForwardCase constant = With(Matrix(5, 33), "constant_rows");
  constant.offset = 3.0;
  constant.scale = 0.0;
  cases.push_back(constant);

  // Ranks 1..4, every normalized_rank; rank == normalized_rank gives stats [1].
  cases.push_back(Tensor({768}, 1));
  cases.push_back(Tensor({5, 33}, 2));
  for (int32_t normalized_rank = 1; normalized_rank <= 3; ++normalized_rank) {
    cases.push_back(Tensor({2, 3, 17}, normalized_rank));
  }
  for (int32_t normalized_rank = 1; normalized_rank <= 4; ++normalized_rank) {
    cases.push_back(Tensor({2, 3, 5, 7}, normalized_rank));
  }
  // Padding in every leading dim, so no two fold into one row dim.
  ForwardCase padded_leading = With(Tensor({2, 3, 17}, 1), "padded");
  padded_leading.x_strides = {3 * 24 + 5, 24, 1};
  padded_leading.y_strides = {3 * 20 + 1, 20, 1};
  cases.push_back(padded_leading);
  ForwardCase padded_rank4 = With(Tensor({2, 3, 4, 16}, 1), "padded");
  padded_rank4.x_strides = {3 * (4 * 20 + 3) + 7, 4 * 20 + 3, 20, 1};
  padded_rank4.y_strides = {3 * (4 * 17 + 1) + 2, 4 * 17 + 1, 17, 1};
  padded_rank4.stats_strides = {3 * 5 + 1, 5, 1};
  cases.push_back(padded_rank4);
  // Strided statistics outputs.
  ForwardCase strided_stats = With(Tensor({2, 3, 17}, 1), "strided_stats");
  strided_stats.stats_strides = {8, 2};
  cases.push_back(strided_stats);
  // Size-1 dims may carry any stride (PyTorch ignores them), normalized or not.
  ForwardCase unit_leading = With(Tensor({1, 5, 33}, 1), "odd_unit_stride");
  unit_leading.x_strides = {999, 40, 1};
  cases.push_back(unit_leading);
  ForwardCase unit_normalized = With(Tensor({5, 1, 33}, 2), "odd_unit_stride");
  unit_normalized.x_strides = {40, 7, 1};
  cases.push_back(unit_normalized);

  // Attention's [B,H,T,D] view of a [B,T,H,D] buffer: leading dims not in
  // memory order. mean/rstd stay contiguous [B,H,T].
  constexpr int64_t kB = 2, kT = 5, kH = 3, kD = 64;
  const std::vector<int64_t> bhtd_strides = {kT * kH * kD, kD, kH * kD, 1};
  ForwardCase bhtd = Tensor({kB, kH, kT, kD}, 1);
  bhtd.name = "bhtd_view_of_bthd";
  bhtd.x_strides = bhtd_strides;
  cases.push_back(bhtd);
  ForwardCase bhtd_both = With(bhtd, "y_too");
  bhtd_both.y_strides = bhtd_strides;
  cases.push_back(bhtd_both);
  return cases;
}

}  // namespace halnorm::testutil
