#include "tests/row_norm_cases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace halnorm::testutil {
namespace {

using internal::Direction;
using internal::Op;
using internal::Variant;

// 1, odd, prime, below/at/above 8- and 16-wide vectors and 32-element tiles,
// a transformer width, a non-power-of-two, the backward's prefetch of the
// next rows (from 2048, a whole number of vectors; row_norm_backward_test
// turns it on for every call, row_norm_backward_streaming_test off), a
// large prime, and >= 65536.
constexpr int64_t kHiddenSizes[] = {1,  3,  7,   13,  15,   16,   17,   31,   32,
                                    33, 64, 127, 768, 1000, 2048, 4099, 65536};
// 16-bit variants share the f32 code paths but the conversions: fewer sizes.
constexpr int64_t kHiddenSizes16Bit[] = {1, 3, 15, 16, 17, 33, 127, 768, 2048, 4099, 65536};
constexpr int64_t kRowCounts[] = {0, 1, 5, 64};
// Keeps the O(rows * hidden) reference and fill cheap for the widest rows.
constexpr int64_t kMaxRowsOfLargeHidden = 5;
constexpr int64_t kLargeHidden = 65536;
// DeepNorm's alpha for a 24-layer encoder-decoder, (2N)^(1/4) ~ 2.4.
constexpr float kDeepNormAlpha = 2.4f;

RowNormCase Tensor(RowNormCase c, std::vector<int64_t> shape, int32_t normalized_rank) {
  c.name = absl::StrCat("shape", absl::StrJoin(shape, "x"), "_nr", normalized_rank);
  c.shape = std::move(shape);
  c.normalized_rank = normalized_rank;
  return c;
}

RowNormCase With(RowNormCase c, const char* suffix) {
  absl::StrAppend(&c.name, "_", suffix);
  return c;
}

// Pads every activation differently: x by 3, y/dy by 8, dx by 5 per row.
RowNormCase Padded(RowNormCase c) {
  const int64_t hidden = c.shape.back();
  c.x_strides = {hidden + 3, 1};
  c.y_strides = {hidden + 8, 1};
  c.dx_strides = {hidden + 5, 1};
  return With(std::move(c), "padded");
}

// Hidden sizes x row counts, then shapes that stress the row folding: wide
// or many rows, misalignment, padding, broadcasts, ranks 1..4, attention.
std::vector<RowNormCase> ShapeCases(const Variant& variant) {
  const bool f32 = variant.dtype == HALNORM_F32;
  const absl::Span<const int64_t> hidden_sizes =
      f32 ? absl::Span<const int64_t>(kHiddenSizes) : absl::Span<const int64_t>(kHiddenSizes16Bit);
  std::vector<RowNormCase> cases;
  for (int64_t hidden : hidden_sizes) {
    for (int64_t rows : kRowCounts) {
      if (hidden >= kLargeHidden && rows > kMaxRowsOfLargeHidden) continue;
      cases.push_back(MatrixCase(variant, rows, hidden));
    }
  }
  // Many rows: uneven splits into parallel tasks. Wide rows: past L2 (4 MiB).
  cases.push_back(MatrixCase(variant, 1000, 7));
  cases.push_back(MatrixCase(variant, 257, 128));
  if (f32) {
    cases.push_back(MatrixCase(variant, 3, kLargeHidden + 1));
    cases.push_back(MatrixCase(variant, 1, 1 << 20));
  }

  // Data one element past an allocation's alignment: no aligned-load assumptions.
  for (int64_t hidden : {16, 33, 768}) {
    RowNormCase c = With(MatrixCase(variant, 5, hidden), "misaligned");
    c.data_offset = 1;
    cases.push_back(c);
  }
  constexpr std::pair<int64_t, int64_t> kPaddedMatrices[] = {
      {5, 1}, {5, 16}, {5, 17}, {64, 33}, {5, 768}, {5, 1000}, {64, 2048}};
  for (auto [rows, hidden] : kPaddedMatrices)
    cases.push_back(Padded(MatrixCase(variant, rows, hidden)));

  // An expanded (broadcast) x: every row reads the same memory, as after
  // PyTorch's expand(). Only outputs must not overlap.
  RowNormCase broadcast = With(MatrixCase(variant, 5, 33), "x_rows_broadcast");
  broadcast.x_strides = {0, 1};
  cases.push_back(broadcast);

  // Ranks 1..4, every normalized_rank; rank == normalized_rank gives stats [1].
  const RowNormCase base = MatrixCase(variant, 1, 1);
  cases.push_back(Tensor(base, {768}, 1));
  cases.push_back(Tensor(base, {5, 33}, 2));
  for (int32_t normalized_rank = 1; normalized_rank <= 3; ++normalized_rank) {
    cases.push_back(Tensor(base, {2, 3, 17}, normalized_rank));
  }
  for (int32_t normalized_rank = 1; normalized_rank <= 4; ++normalized_rank) {
    cases.push_back(Tensor(base, {2, 3, 5, 7}, normalized_rank));
  }
  // Padding in every leading dim, so no two fold into one row dim.
  RowNormCase padded_leading = With(Tensor(base, {2, 3, 17}, 1), "padded");
  padded_leading.x_strides = {3 * 24 + 5, 24, 1};
  padded_leading.y_strides = {3 * 20 + 1, 20, 1};
  padded_leading.dx_strides = {3 * 19 + 2, 19, 1};
  cases.push_back(padded_leading);
  RowNormCase padded_rank4 = With(Tensor(base, {2, 3, 4, 16}, 1), "padded");
  padded_rank4.x_strides = {3 * (4 * 20 + 3) + 7, 4 * 20 + 3, 20, 1};
  padded_rank4.y_strides = {3 * (4 * 17 + 1) + 2, 4 * 17 + 1, 17, 1};
  padded_rank4.dx_strides = {3 * (4 * 18 + 2) + 1, 4 * 18 + 2, 18, 1};
  padded_rank4.stats_strides = {3 * 5 + 1, 5, 1};
  cases.push_back(padded_rank4);
  // Strided statistics.
  RowNormCase strided_stats = With(Tensor(base, {2, 3, 17}, 1), "strided_stats");
  strided_stats.stats_strides = {8, 2};
  cases.push_back(strided_stats);
  // Size-1 dims may carry any stride (PyTorch ignores them), normalized or not.
  RowNormCase unit_leading = With(Tensor(base, {1, 5, 33}, 1), "odd_unit_stride");
  unit_leading.x_strides = {999, 40, 1};
  cases.push_back(unit_leading);
  RowNormCase unit_normalized = With(Tensor(base, {5, 1, 33}, 2), "odd_unit_stride");
  unit_normalized.x_strides = {40, 7, 1};
  cases.push_back(unit_normalized);

  // QK-norm: attention's [B,H,T,D] view of a [B,T,H,D] buffer, normalized
  // over head_dim. Leading dims are not in memory order; mean/rstd stay
  // contiguous [B,H,T].
  constexpr int64_t kB = 2, kT = 5, kH = 3, kD = 64;
  const std::vector<int64_t> bhtd_strides = {kT * kH * kD, kD, kH * kD, 1};
  RowNormCase bhtd = Tensor(base, {kB, kH, kT, kD}, 1);
  bhtd.name = "qk_norm_bhtd_view_of_bthd";
  bhtd.x_strides = bhtd_strides;
  cases.push_back(bhtd);
  RowNormCase bhtd_all = With(bhtd, "all_activations");
  bhtd_all.y_strides = bhtd_all.dx_strides = bhtd_strides;
  cases.push_back(bhtd_all);
  return cases;
}

// Options on a few shapes each; defaults everywhere else.
std::vector<RowNormCase> OptionCases(const Variant& variant) {
  const bool f32 = variant.dtype == HALNORM_F32;
  const bool forward = variant.direction == Direction::kForward;
  const bool layer_norm = variant.op == Op::kLayerNorm;
  std::vector<RowNormCase> cases;
  auto add = [&](int64_t rows, int64_t hidden, const char* suffix, auto&& edit) {
    RowNormCase c = With(MatrixCase(variant, rows, hidden), suffix);
    edit(c);
    cases.push_back(c);
  };

  // Large common offset: naive sums cancel catastrophically. Mean 1e6 times
  // the std is the accuracy contract's hardest case. A 16-bit dtype cannot
  // even hold such rows' noise (an f16 ulp at 1e4 is 8).
  if (f32) {
    for (int64_t hidden : {7, 33, 768, 4099}) {
      add(5, hidden, "offset1e4", [](RowNormCase& c) { c.offset = 1e4; });
    }
    for (int64_t hidden : {16, 768, 4099}) {
      add(5, hidden, "offset1e6", [](RowNormCase& c) { c.offset = 1e6; });
    }
  }

  // Affine parameters absent in every combination (backward: their
  // gradients not requested either).
  for (int64_t hidden : {17, 768}) {
    add(5, hidden, "no_weight", [&](RowNormCase& c) {
      c.weight = c.dweight = false;
      if (layer_norm) c.bias = c.dbias = false;
    });
    if (layer_norm) {
      add(5, hidden, "weight_only", [](RowNormCase& c) { c.bias = c.dbias = false; });
      add(5, hidden, "bias_only", [](RowNormCase& c) { c.weight = c.dweight = false; });
    }
  }
  // Gemma: y uses (weight + 1); the offset is ignored without a weight.
  for (int64_t hidden : {17, 768}) {
    add(5, hidden, "gemma_offset", [](RowNormCase& c) { c.weight_offset = 1.0f; });
  }
  add(5, 33, "gemma_offset_no_weight", [&](RowNormCase& c) {
    c.weight_offset = 1.0f;
    c.weight = c.dweight = false;
  });
  // Affine parameters (and their gradients) in the activation dtype.
  if (!f32) {
    for (int64_t hidden : {17, 768}) {
      add(5, hidden, "params_in_activation_dtype", [](RowNormCase& c) { c.params_f32 = false; });
    }
    add(64, 33, "params_in_activation_dtype_gemma", [](RowNormCase& c) {
      c.params_f32 = false;
      c.weight_offset = 1.0f;
    });
  }

  if (forward) {
    // DeepNorm: h = alpha * x + residual with alpha > 1.
    if (variant.fused_residual) {
      for (int64_t hidden : {1, 17, 768}) {
        add(5, hidden, "deepnorm_alpha", [](RowNormCase& c) { c.residual_alpha = kDeepNormAlpha; });
      }
      RowNormCase c = Padded(MatrixCase(variant, 5, 33));
      c.residual_alpha = kDeepNormAlpha;
      cases.push_back(With(c, "deepnorm_alpha"));
    }
    // Statistics outputs are optional, independently.
    if (layer_norm) {
      add(5, 33, "mean_only", [](RowNormCase& c) { c.rstd = false; });
      add(5, 33, "rstd_only", [](RowNormCase& c) { c.mean = false; });
    }
    add(5, 33, "no_stats", [](RowNormCase& c) { c.mean = c.rstd = false; });
    // With var ~ 1, eps = 1e-5 is below the tolerance; make it matter.
    add(5, 64, "eps0p5", [](RowNormCase& c) {
      c.eps = 0.5f;
      c.scale = 0.5;
    });
  } else {
    // The gradient arriving at residual_out adds to dx.
    for (int64_t hidden : {1, 17, 768}) {
      add(5, hidden, "residual_gradient", [](RowNormCase& c) { c.residual = true; });
    }
    RowNormCase c = Padded(MatrixCase(variant, 5, 33));
    c.residual = true;
    cases.push_back(With(c, "residual_gradient"));
    // Parameter gradients are optional, independently.
    add(5, 33, "no_dweight", [](RowNormCase& c) { c.dweight = false; });
    if (layer_norm) {
      add(5, 33, "no_dbias", [](RowNormCase& c) { c.dbias = false; });
      add(5, 33, "no_dweight_no_dbias", [](RowNormCase& c) { c.dweight = c.dbias = false; });
    }
  }

  // Constant rows (zero variance; LayerNorm: y = bias) and all-zero rows
  // (RMSNorm: rstd = 1/sqrt(eps), y = 0).
  add(5, 33, "constant_rows", [](RowNormCase& c) {
    c.offset = 3.0;
    c.scale = 0.0;
  });
  add(5, 33, "zero_rows", [](RowNormCase& c) { c.scale = 0.0; });
  return cases;
}

}  // namespace

void PrintTo(const RowNormCase& c, std::ostream* os) {
  *os << c.name << " {" << internal::OpName(c.op) << " " << internal::DtypeName(c.dtype)
      << ", shape [" << absl::StrJoin(c.shape, ",") << "], normalized_rank " << c.normalized_rank
      << ", x_strides [" << absl::StrJoin(c.x_strides, ",") << "], y_strides ["
      << absl::StrJoin(c.y_strides, ",") << "], dx_strides [" << absl::StrJoin(c.dx_strides, ",")
      << "], stats_strides [" << absl::StrJoin(c.stats_strides, ",") << "], data_offset "
      << c.data_offset << ", x = " << c.offset << " + " << c.scale << "*N(0,1), eps " << c.eps
      << ", weight " << c.weight << ", bias " << c.bias << ", params_f32 " << c.params_f32
      << ", weight_offset " << c.weight_offset << ", residual " << c.residual << " (alpha "
      << c.residual_alpha << "), mean " << c.mean << ", rstd " << c.rstd << ", dweight "
      << c.dweight << ", dbias " << c.dbias << "}";
}

RowNormCase MatrixCase(const Variant& variant, int64_t rows, int64_t hidden) {
  RowNormCase c;
  c.name = absl::StrCat("M", rows, "_N", hidden);
  c.op = variant.op;
  c.dtype = variant.dtype;
  c.shape = {rows, hidden};
  const bool layer_norm = variant.op == Op::kLayerNorm;
  c.bias = c.mean = c.dbias = layer_norm;
  c.residual = variant.direction == Direction::kForward && variant.fused_residual;
  c.params_f32 = !variant.native_params;
  return c;
}

std::vector<RowNormCase> RowNormCases(const Variant& variant) {
  std::vector<RowNormCase> cases = ShapeCases(variant);
  for (RowNormCase& c : OptionCases(variant)) {
    // A native-params variant runs calls that pass it a weight or bias.
    const bool has_params = c.weight || (c.op == Op::kLayerNorm && c.bias);
    if (variant.native_params && !has_params) continue;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<int64_t> NormalizedShape(const RowNormCase& c) {
  return {c.shape.end() - c.normalized_rank, c.shape.end()};
}

std::vector<int64_t> StatisticsShape(const RowNormCase& c) {
  std::vector<int64_t> shape(c.shape.begin(), c.shape.end() - c.normalized_rank);
  if (shape.empty()) shape = {1};
  return shape;
}

int64_t Rows(const RowNormCase& c) {
  int64_t rows = 1;
  for (size_t d = 0; d + c.normalized_rank < c.shape.size(); ++d) rows *= c.shape[d];
  return rows;
}

int64_t Hidden(const RowNormCase& c) {
  int64_t hidden = 1;
  for (int64_t extent : NormalizedShape(c)) hidden *= extent;
  return hidden;
}

halnorm_dtype ParamDtype(const RowNormCase& c) { return c.params_f32 ? HALNORM_F32 : c.dtype; }

}  // namespace halnorm::testutil
