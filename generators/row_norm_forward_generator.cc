// Row-norm forward: LayerNorm or RMSNorm over the contiguous trailing axis of
// each row, optionally after a fused residual add.
//
// Buffers are (n, r, b): n is the normalized (hidden) axis, contiguous; r and
// b are two row axes with any strides, so a strided or permuted view of the
// caller's leading dims runs without a copy (the runtime folds them to two).
//
// Signature (inputs and outputs are added in configure(), in this order;
// the runtime binds them by name through the _argv entry point):
//   x, [residual], weight, [bias], has_weight, [has_bias], [residual_alpha],
//   [weight_offset], eps, [task_rows]  ->  y, [residual_out], [mean], rstd
// weight and bias are (n, r, b) like x; f32, or with native_params the
// activation dtype (CPU 16-bit kernels: the runtime then passes the
// caller's tensors as they are instead of converting them on every call).
// On CPU targets the runtime folds options.weight_offset into the f32
// weight it converts; GPU and native_params kernels take it
// ([weight_offset]).
// [residual*] only with residual=true, [bias, has_bias, mean] only for layer.
// [task_rows] only on CPUs: the most rows a parallel task may take (the
// kernel takes at most its rows_per_task knob; runtime/forward_tasks.h
// passes fewer where a call has too few rows to give every thread a task).
#include "Halide.h"
#include "generators/activations.h"
#include "generators/fused_multiply_add.h"
#include "generators/gpu_rows.h"
#include "generators/norm_types.h"
#include "generators/row_reduction.h"
#include "schedules/row_norm_schedule.h"

namespace halnorm {
namespace {

using namespace Halide;

// Elements averaged for LayerNorm's shift (see the statistics below); a
// power of two.
constexpr int kShiftSamples = 16;

class RowNormForward : public Generator<RowNormForward> {
 public:
  GeneratorParam<NormKind> kind{"kind", NormKind::kLayer, kNormKinds};
  GeneratorParam<std::string> dtype{"dtype", "f32"};  // activations: f32, f16, bf16
  GeneratorParam<bool> residual{"residual", false};   // fused h = alpha*x + residual
  GeneratorParam<bool> native_params{"native_params", false};  // weight, bias in dtype
  // Schedule knobs, also searched by the autotuner. vector_width: f32 lanes
  // per SIMD register on CPUs, elements a thread loads a step on GPUs.
  GeneratorParam<int> vector_width{"vector_width", 8};
  GeneratorParam<int> accumulators{"accumulators", 4};
  GeneratorParam<int> rows_per_task{"rows_per_task", 16};
  GeneratorParam<int> stats_rows{"stats_rows", 1};
  // GPU targets' knobs (schedules/row_norm_schedule.h, GpuRowNormKnobs).
  GeneratorParam<int> threads{"threads", 32};
  GeneratorParam<int> rows_per_block{"rows_per_block", 4};

  void configure() {
    const Type act = KernelActivationType(dtype, get_target());
    const bool layer = kind == NormKind::kLayer;
    x_ = add_input<Buffer<>>("x", act, 3);
    if (residual) residual_ = add_input<Buffer<>>("residual", act, 3);
    // Always bound: when has_weight/has_bias is false the runtime passes a
    // placeholder of the right extent that the kernel never reads.
    // Indexed like x: a per-feature parameter comes with row strides 0,
    // one that differs between rows (LayerNorm2d over H,W: a channel's
    // affine) with the strides of its plane.
    const Type param = native_params ? act : Float(32);
    weight_ = add_input<Buffer<>>("weight", param, 3);
    if (layer) bias_ = add_input<Buffer<>>("bias", param, 3);
    has_weight_ = add_input<bool>("has_weight");
    if (layer) has_bias_ = add_input<bool>("has_bias");
    if (residual) residual_alpha_ = add_input<float>("residual_alpha");
    // Kernels that read the caller's weight in place add
    // options.weight_offset themselves (the CPU runtime folds it into the
    // f32 weight it converts).
    if (get_target().has_gpu_feature() || native_params) {
      weight_offset_ = add_input<float>("weight_offset");
    }
    eps_ = add_input<float>("eps");
    if (!get_target().has_gpu_feature()) task_rows_ = add_input<int>("task_rows");
    y_ = add_output<Buffer<>>("y", act, 3);
    if (residual) residual_out_ = add_output<Buffer<>>("residual_out", act, 3);
    if (layer) mean_out_ = add_output<Buffer<float>>("mean", 3);  // (0, r, b)
    rstd_out_ = add_output<Buffer<float>>("rstd", 3);
  }

  void generate() {
    RowNormForwardFuncs f;
    f.n = Var("n");
    f.r = Var("r");
    f.b = Var("b");
    f.lane = Var("lane");
    const Var &n = f.n, &r = f.r, &b = f.b, &lane = f.lane;
    const bool layer = kind == NormKind::kLayer;
    const Activations acts(dtype, get_target(), *get_externs_map());
    const FusedMultiplyAdd fma(get_target(), *get_externs_map());
    const bool gpu = get_target().has_gpu_feature();
    Input<Buffer<>>& x = *x_;
    Output<Buffer<>>& y = *y_;

    // ---- Algorithm -------------------------------------------------------
    // h: the normalized input, in f32, rounded through the activation dtype
    // when it is the residual sum, exactly as residual_out stores it (so the
    // backward pass, which reads residual_out, sees the same values).
    Expr hidden = x.dim(0).extent();
    f.hidden = hidden;
    const Expr row = gpu ? ReadableRow(x, r) : Expr(r);
    Func h("h"), stored_h("stored_h");
    if (residual) {
      Expr sum = *residual_alpha_ * acts.ToF32(x(n, row, b)) + acts.ToF32((*residual_)(n, row, b));
      stored_h(n, r, b) = acts.Store(sum);
      h(n, r, b) = acts.ToF32(stored_h(n, r, b));
    } else {
      h(n, r, b) = acts.ToF32(x(n, row, b));
    }

    const RowReduction rows(lane, r, b, hidden, vector_width, gpu ? threads : accumulators, fma);
    f.chunk = rows.chunk();
    f.tail = rows.tail();
    auto row_sum = [&](const std::string& name, const std::vector<RowTerm>& terms) {
      return gpu ? rows.ThreadSum(name, terms, &f.lane_sums, &f.fold_stages)
                 : rows.Sum(name, terms, &f.lane_sums, &f.lane_fold, &f.fold_halvings);
    };

    // LayerNorm: shifted-data statistics in one pass over the row: sums of
    // s = h - shift and of s^2, var = E[s^2] - E[s]^2, where shift is the
    // mean of the row's first (up to) 16 elements. That keeps E[s]^2 a small
    // fraction of the variance, so a mean 1e6 times the std loses nothing to
    // cancellation. RMSNorm: the sum of squares.
    // normalized(n, r, b) = (h - mean) * rstd, before the weight and bias.
    // Products with 1/hidden, not divisions: two fewer divides in each row's
    // chain of statistics (LayerNorm bf16 4096x128: 29.6 -> 28.5 ns a row).
    const Expr inv_hidden = 1.f / cast<float>(hidden);
    Func normalized("normalized");
    if (layer) {
      // Any shift is exact algebra; this one only needs to be near the mean.
      // A vector of the row's head (short rows repeat their last element)
      // summed by halving: it is part of every row's fixed cost.
      Func shift("shift"), shifted("shifted");
      f.shift_lanes = Func("shift_lanes");
      f.shift_lanes(lane, r, b) = h(min(lane, hidden - 1), r, b);
      f.shift_halvings = RowReduction::Halvings("shift", f.shift_lanes, kShiftSamples, lane, r, b);
      shift(r, b) = f.shift_halvings.back()(0, r, b) * (1.f / kShiftSamples);
      shifted(n, r, b) = h(n, r, b) - shift(r, b);
      Func sums = row_sum("sums", {{shifted}, {shifted, shifted}});
      Expr centered_mean = sums(r, b)[0] * inv_hidden;
      // Rounding can make it slightly negative; a NaN must stay NaN.
      Expr raw_variance = sums(r, b)[1] * inv_hidden - centered_mean * centered_mean;
      Expr variance = select(raw_variance < 0.f, 0.f, raw_variance);
      Expr rstd = 1.f / sqrt(variance + *eps_);
      // (s - centered_mean) * rstd as one fused op: s * rstd + offset.
      Func per_row("per_row");  // mean, rstd, offset
      per_row(r, b) = Tuple(shift(r, b) + centered_mean, rstd, -centered_mean * rstd);
      f.stats = {shift, sums, per_row};
      f.shift = shift;
      f.sums = sums;
      f.mean = Func("row_mean");
      f.mean(r, b) = per_row(r, b)[0];
      f.rstd = Func("row_rstd");
      f.rstd(r, b) = per_row(r, b)[1];
      normalized(n, r, b) = fma(shifted(n, r, b), f.rstd(r, b), per_row(r, b)[2]);
    } else {
      f.sums = row_sum("sq", {{h, h}});
      f.rstd = Func("row_rstd");
      f.rstd(r, b) = 1.f / sqrt(f.sums(r, b) * inv_hidden + *eps_);
      f.stats = {f.sums, f.rstd};
      normalized(n, r, b) = h(n, r, b) * f.rstd(r, b);
    }

    auto param_f32 = [&](Input<Buffer<>>& param) {
      return native_params ? acts.ToF32(param(n, row, b)) : Expr(param(n, row, b));
    };
    Expr weight = param_f32(*weight_);
    if (weight_offset_ != nullptr) weight += *weight_offset_;
    Expr scale = select(*has_weight_, weight, 1.f);
    Expr affine = layer ? fma(normalized(n, r, b), scale, select(*has_bias_, param_f32(*bias_), 0.f))
                        : normalized(n, r, b) * scale;
    y(n, r, b) = acts.Store(affine);
    if (residual) (*residual_out_)(n, r, b) = stored_h(n, r, b);
    if (layer) (*mean_out_)(n, r, b) = f.mean(r, b);
    (*rstd_out_)(n, r, b) = f.rstd(r, b);

    // The outputs share one row loop (compute_with), so their row extents
    // must be the same expressions as y's.
    std::vector<OutputImageParam> per_row = {*rstd_out_};
    if (layer) per_row.push_back(*mean_out_);
    for (OutputImageParam& stats : per_row) {
      stats.dim(0).set_bounds(0, 1);
      for (int d = 1; d < 3; d++) stats.dim(d).set_bounds(y.dim(d).min(), y.dim(d).extent());
    }
    std::vector<OutputImageParam> like_y = {x};
    if (residual) like_y.insert(like_y.end(), {*residual_, *residual_out_});
    for (OutputImageParam& t : like_y) {
      for (int d = 0; d < 3; d++) t.dim(d).set_bounds(y.dim(d).min(), y.dim(d).extent());
    }
    weight_->dim(0).set_bounds(0, hidden);
    if (layer) bias_->dim(0).set_bounds(0, hidden);
    y.dim(0).set_min(0);

    // ---- Estimates (GPT-2-small-like activations) -------------------------
    // A hidden size with a scalar tail: Halide 14's Adams2019 asserts on the
    // empty tail region of a size that is a multiple of the lane count.
    const int est_hidden = 1000, est_rows = 4096;
    const Region rows_estimate = {{0, est_hidden}, {0, est_rows}, {0, 1}};
    x.set_estimates(rows_estimate);
    y.set_estimates(rows_estimate);
    weight_->set_estimates(rows_estimate);
    has_weight_->set_estimate(true);
    eps_->set_estimate(1e-5f);
    if (task_rows_ != nullptr) task_rows_->set_estimate(static_cast<int>(rows_per_task));
    if (weight_offset_ != nullptr) weight_offset_->set_estimate(0.f);
    rstd_out_->set_estimates({{0, 1}, {0, est_rows}, {0, 1}});
    if (layer) {
      bias_->set_estimates(rows_estimate);
      has_bias_->set_estimate(true);
      mean_out_->set_estimates({{0, 1}, {0, est_rows}, {0, 1}});
    }
    if (residual) {
      residual_->set_estimates(rows_estimate);
      residual_out_->set_estimates(rows_estimate);
      residual_alpha_->set_estimate(1.f);
    }

    // ---- Schedule ---------------------------------------------------------
    f.y = y;
    f.per_row_outputs = {*rstd_out_};
    if (layer) f.per_row_outputs.push_back(*mean_out_);
    if (residual) f.residual_out = *residual_out_;
    f.affine_flags = {*has_weight_};
    if (layer) f.affine_flags.push_back(*has_bias_);
    f.h = h;
    if (gpu) {
      std::vector<OutputImageParam> aligned = {x, y};
      if (residual) aligned.insert(aligned.end(), {*residual_, *residual_out_});
      RequireAlignedRows(aligned, vector_width);
      ScheduleRowNormForwardGpu(f, {threads, rows_per_block, vector_width});
    } else if (!auto_schedule) {
      f.task_rows = clamp(*task_rows_, 1, static_cast<int>(rows_per_task));
      ScheduleRowNormForwardCpu(f, {vector_width, accumulators, rows_per_task, stats_rows});
    }
  }

 private:
  Input<Buffer<>>* x_ = nullptr;
  Input<Buffer<>>* residual_ = nullptr;
  Input<Buffer<>>* weight_ = nullptr;  // f32, or the activation type (native_params)
  Input<Buffer<>>* bias_ = nullptr;
  Input<bool>* has_weight_ = nullptr;
  Input<bool>* has_bias_ = nullptr;
  Input<float>* residual_alpha_ = nullptr;
  Input<float>* weight_offset_ = nullptr;
  Input<float>* eps_ = nullptr;
  Input<int>* task_rows_ = nullptr;  // CPU only
  Output<Buffer<>>* y_ = nullptr;
  Output<Buffer<>>* residual_out_ = nullptr;
  Output<Buffer<float>>* mean_out_ = nullptr;
  Output<Buffer<float>>* rstd_out_ = nullptr;
};

}  // namespace
}  // namespace halnorm

HALIDE_REGISTER_GENERATOR(halnorm::RowNormForward, row_norm_forward)
