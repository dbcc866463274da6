// Row-norm forward: LayerNorm over the contiguous trailing axis of each row.
//
// Buffers are (n, r, b): n is the normalized (hidden) axis, contiguous; r and
// b are two row axes with any strides, so a strided or permuted view of the
// caller's leading dims runs without a copy (the runtime folds them to two).
#include "Halide.h"
#include "schedules/row_norm_schedule.h"

namespace halnorm {
namespace {

using namespace Halide;

class RowNormForward : public Generator<RowNormForward> {
 public:
  // Schedule knobs, also searched by the autotuner.
  GeneratorParam<int> vector_width{"vector_width", 8};
  GeneratorParam<int> accumulators{"accumulators", 4};
  GeneratorParam<int> rows_per_task{"rows_per_task", 4};

  Input<Buffer<float>> x{"x", 3};
  // Always bound: when has_weight/has_bias is false the runtime passes a
  // placeholder of the right extent that the kernel never reads.
  Input<Buffer<float>> weight{"weight", 1};
  Input<Buffer<float>> bias{"bias", 1};
  Input<bool> has_weight{"has_weight"};
  Input<bool> has_bias{"has_bias"};
  Input<float> eps{"eps"};
  Output<Buffer<float>> y{"y", 3};
  Output<Buffer<float>> mean_out{"mean", 3};  // (0, r, b): extent 1 along n
  Output<Buffer<float>> rstd_out{"rstd", 3};

  void generate() {
    RowNormForwardFuncs f;
    f.n = Var("n");
    f.r = Var("r");
    f.b = Var("b");
    f.lane = Var("lane");
    const Var &n = f.n, &r = f.r, &b = f.b, &lane = f.lane;

    // ---- Algorithm -------------------------------------------------------
    // Shifted-data two-pass statistics: subtracting the row's first element
    // is exact for values near it, so a mean 1e6 times the std loses nothing.
    Expr hidden = x.dim(0).extent();
    f.hidden = hidden;
    Func xf("xf"), centered("centered"), dev("dev");
    xf(n, r, b) = cast<float>(x(n, r, b));
    centered(n, r, b) = xf(n, r, b) - xf(0, r, b);

    // Each reduction keeps `lanes` partial sums (vector accumulators) and
    // folds the leftover tail in scalar; this fixes the summation order, so
    // it is part of the algorithm, shared with the schedule.
    const int lanes = int(vector_width) * int(accumulators);
    RDom chunk(0, hidden / lanes, "chunk");
    f.chunk = chunk;
    RDom fold(0, lanes, "fold");
    RDom tail(hidden / lanes * lanes, hidden % lanes, "tail");
    auto row_total = [&](Func lane_acc, Func total, Func term) {
      lane_acc(lane, r, b) = 0.f;
      lane_acc(lane, r, b) += term(chunk * lanes + lane, r, b);
      total(r, b) = 0.f;
      total(r, b) += lane_acc(fold, r, b);
      total(r, b) += term(tail, r, b);
    };
    f.lane_sum = Func("lane_sum");
    f.row_sum = Func("row_sum");
    row_total(f.lane_sum, f.row_sum, centered);
    Func centered_mean("centered_mean");
    centered_mean(r, b) = f.row_sum(r, b) / cast<float>(hidden);
    dev(n, r, b) = centered(n, r, b) - centered_mean(r, b);

    Func dev_sq("dev_sq");
    dev_sq(n, r, b) = dev(n, r, b) * dev(n, r, b);
    f.lane_sq = Func("lane_sq");
    f.row_sq = Func("row_sq");
    row_total(f.lane_sq, f.row_sq, dev_sq);
    f.rstd = Func("rstd");
    f.rstd(r, b) = 1.f / sqrt(f.row_sq(r, b) / cast<float>(hidden) + eps);
    f.mean = Func("mean");
    f.mean(r, b) = xf(0, r, b) + centered_mean(r, b);

    Expr scale = select(has_weight, weight(n), 1.f);
    Expr shift = select(has_bias, bias(n), 0.f);
    y(n, r, b) = dev(n, r, b) * f.rstd(r, b) * scale + shift;
    mean_out(n, r, b) = f.mean(r, b);
    rstd_out(n, r, b) = f.rstd(r, b);

    // The three outputs share one row loop (compute_with), so their row
    // extents must be the same expressions as y's.
    for (Output<Buffer<float>>* stats : {&mean_out, &rstd_out}) {
      stats->dim(0).set_bounds(0, 1);
      for (int d = 1; d < 3; d++) stats->dim(d).set_bounds(y.dim(d).min(), y.dim(d).extent());
    }
    for (int d = 0; d < 3; d++) x.dim(d).set_bounds(y.dim(d).min(), y.dim(d).extent());
    weight.dim(0).set_bounds(0, hidden);
    bias.dim(0).set_bounds(0, hidden);
    y.dim(0).set_min(0);

    // ---- Estimates (GPT-2 small activations) ------------------------------
    const int est_hidden = 1024, est_rows = 4096;
    x.set_estimates({{0, est_hidden}, {0, est_rows}, {0, 1}});
    weight.set_estimates({{0, est_hidden}});
    bias.set_estimates({{0, est_hidden}});
    has_weight.set_estimate(true);
    has_bias.set_estimate(true);
    eps.set_estimate(1e-5f);
    y.set_estimates({{0, est_hidden}, {0, est_rows}, {0, 1}});
    mean_out.set_estimates({{0, 1}, {0, est_rows}, {0, 1}});
    rstd_out.set_estimates({{0, 1}, {0, est_rows}, {0, 1}});

    // ---- Schedule ---------------------------------------------------------
    f.y = y;
    f.mean_out = mean_out;
    f.rstd_out = rstd_out;
    f.affine_cases = {has_weight && has_bias, has_weight, has_bias};
    if (!auto_schedule) {
      ScheduleRowNormForwardCpu(f, {vector_width, accumulators, rows_per_task});
    }
  }
};

}  // namespace
}  // namespace halnorm

HALIDE_REGISTER_GENERATOR(halnorm::RowNormForward, row_norm_forward)
