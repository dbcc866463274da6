#include "tests/reference/layer_norm2d_reference.h"

#include <cstdlib>
#include <iostream>

#include "tests/reference/size_checks.h"

namespace halnorm::reference {
namespace {

int64_t NumElements(const Nchw& s) { return s.n * s.c * s.h * s.w; }

int64_t NchwIndex(const Nchw& s, int64_t n, int64_t c, int64_t h, int64_t w) {
  return ((n * s.c + c) * s.h + h) * s.w + w;
}

// The NCHW array's values in row order.
std::vector<double> ToRows(const RowLayout& layout, absl::Span<const double> nchw) {
  std::vector<double> rows(layout.nchw_index.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = nchw[layout.nchw_index[i]];
  return rows;
}

std::vector<double> FromRows(const RowLayout& layout, absl::Span<const double> rows) {
  std::vector<double> nchw(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) nchw[layout.nchw_index[i]] = rows[i];
  return nchw;
}

}  // namespace

RowLayout LayerNorm2dRows(Axes2d axes, const Nchw& s) {
  RowLayout layout;
  switch (axes) {
    case Axes2d::kC:  // rows (n, h, w), hidden c
      layout.rows = s.n * s.h * s.w;
      layout.hidden = s.c;
      for (int64_t n = 0; n < s.n; ++n) {
        for (int64_t h = 0; h < s.h; ++h) {
          for (int64_t w = 0; w < s.w; ++w) {
            for (int64_t c = 0; c < s.c; ++c) layout.nchw_index.push_back(NchwIndex(s, n, c, h, w));
          }
        }
      }
      break;
    case Axes2d::kChw:  // rows n, hidden (c, h, w): NCHW order already
    case Axes2d::kHw:   // rows (n, c), hidden (h, w): NCHW order already
      layout.rows = axes == Axes2d::kChw ? s.n : s.n * s.c;
      layout.hidden = axes == Axes2d::kChw ? s.c * s.h * s.w : s.h * s.w;
      for (int64_t i = 0; i < NumElements(s); ++i) layout.nchw_index.push_back(i);
      break;
  }
  layout.channel.reserve(layout.nchw_index.size());
  for (int64_t index : layout.nchw_index) layout.channel.push_back(index / (s.h * s.w) % s.c);
  return layout;
}

std::vector<int64_t> LayerNorm2dStatisticsShape(Axes2d axes, const Nchw& s) {
  switch (axes) {
    case Axes2d::kC:
      return {s.n, s.h, s.w};
    case Axes2d::kChw:
      return {s.n};
    case Axes2d::kHw:
      return {s.n, s.c};
  }
  return {};
}

ForwardResult LayerNorm2dForward(Axes2d axes, double eps, const LayerNorm2dForwardInputs& in) {
  CheckSizes(SizeIs(in.x, NumElements(in.shape)) && EmptyOrSize(in.weight, in.shape.c) &&
                 EmptyOrSize(in.bias, in.shape.c),
             "LayerNorm2dForward");
  const RowLayout layout = LayerNorm2dRows(axes, in.shape);
  Options options;
  options.eps = eps;
  const std::vector<double> x_rows = ToRows(layout, in.x);
  // Normalize without affine: the row reference's affine is per column, not per channel.
  ForwardResult result = Forward(options, {layout.rows, layout.hidden, x_rows, {}, {}, {}});
  for (size_t i = 0; i < result.y.size(); ++i) {
    const int64_t c = layout.channel[i];
    if (!in.weight.empty()) result.y[i] *= in.weight[c];
    if (!in.bias.empty()) result.y[i] += in.bias[c];
  }
  result.y = FromRows(layout, result.y);
  return result;
}

BackwardResult LayerNorm2dBackward(Axes2d axes, const LayerNorm2dBackwardInputs& in) {
  const int64_t size = NumElements(in.shape);
  const RowLayout layout = LayerNorm2dRows(axes, in.shape);
  CheckSizes(SizeIs(in.dy, size) && SizeIs(in.x, size) && SizeIs(in.mean, layout.rows) &&
                 SizeIs(in.rstd, layout.rows) && EmptyOrSize(in.weight, in.shape.c),
             "LayerNorm2dBackward");
  const std::vector<double> dy_rows = ToRows(layout, in.dy);
  const std::vector<double> x_rows = ToRows(layout, in.x);
  // With g = dy * w[c] as its dy and no weight, the row reference's dx is
  // rstd * (g - mean(g) - xhat * mean(g * xhat)): exactly LayerNorm2d's.
  std::vector<double> g_rows = dy_rows;
  if (!in.weight.empty()) {
    for (size_t i = 0; i < g_rows.size(); ++i) g_rows[i] *= in.weight[layout.channel[i]];
  }
  Options options;
  BackwardResult result =
      Backward(options, {layout.rows, layout.hidden, g_rows, x_rows, in.mean, in.rstd, {}, {}});
  result.dx = FromRows(layout, result.dx);
  // Its per-column sums are not per channel (and see g, not dy): redo them.
  result.dweight.assign(in.shape.c, 0.0);
  result.dbias.assign(in.shape.c, 0.0);
  for (int64_t r = 0; r < layout.rows; ++r) {
    for (int64_t i = r * layout.hidden; i < (r + 1) * layout.hidden; ++i) {
      const double xhat = (x_rows[i] - in.mean[r]) * in.rstd[r];
      result.dweight[layout.channel[i]] += dy_rows[i] * xhat;
      result.dbias[layout.channel[i]] += dy_rows[i];
    }
  }
  return result;
}

}  // namespace halnorm::reference
