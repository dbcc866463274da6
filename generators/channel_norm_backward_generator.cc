// Channel-norm backward: dx of LayerNorm2d over C (NCHW), plus dweight/dbias
// partial sums per (pixel lane, channel, tile, sample) that the runtime adds
// up in a fixed order, so the result does not depend on the thread count.
//
// Buffers are (p, c, s) as in the forward generator. Signature:
//   dy, x, mean, rstd, weight, has_weight  ->  dx, dweight_partial, dbias_partial
// Partials are (lane, c, tile, s), f32: lane < vector_width, tile =
// p / pixels_per_task; on GPUs (0, c, 0, 0), already summed.
#include "Halide.h"
#include "generators/activations.h"
#include "generators/fused_multiply_add.h"
#include "generators/norm_types.h"
#include "schedules/channel_norm_schedule.h"

namespace halnorm {
namespace {

using namespace Halide;

class ChannelNormBackward : public Generator<ChannelNormBackward> {
 public:
  GeneratorParam<std::string> dtype{"dtype", "f32"};  // activations: f32, f16, bf16
  // Schedule knobs; pixels_per_task is also the partials' tile, so it is
  // part of the algorithm (it fixes the summation order).
  GeneratorParam<int> vector_width{"vector_width", 8};
  GeneratorParam<int> pixels_per_task{"pixels_per_task", 64};

  void configure() {
    const Type act = KernelActivationType(dtype, get_target());
    dy_ = add_input<Buffer<>>("dy", act, 3);
    x_ = add_input<Buffer<>>("x", act, 3);
    mean_ = add_input<Buffer<float>>("mean", 3);
    rstd_ = add_input<Buffer<float>>("rstd", 3);
    weight_ = add_input<Buffer<float>>("weight", 1);  // placeholder when !has_weight
    has_weight_ = add_input<bool>("has_weight");
    dx_ = add_output<Buffer<>>("dx", act, 3);
    dweight_partial_ = add_output<Buffer<float>>("dweight_partial", 4);
    dbias_partial_ = add_output<Buffer<float>>("dbias_partial", 4);
  }

  void generate() {
    ChannelNormBackwardFuncs f;
    f.p = Var("p");
    f.c = Var("c");
    f.s = Var("s");
    f.lane = Var("lane");
    f.tile = Var("tile");
    const Var &p = f.p, &c = f.c, &s = f.s, &lane = f.lane, &tile = f.tile;
    const Activations acts(dtype, get_target(), *get_externs_map());
    const FusedMultiplyAdd fma(get_target(), *get_externs_map());
    const int lanes = vector_width, tile_pixels = pixels_per_task;
    Input<Buffer<>>& x = *x_;
    Output<Buffer<>>& dx = *dx_;

    // ---- Algorithm -------------------------------------------------------
    Expr channels = x.dim(1).extent();
    Expr pixels = x.dim(0).extent();
    f.channels = channels;
    // GPU: reads past the image's last pixel (a block's statistics, the
    // partials walk's last tile) are clamped to it; their results are
    // never stored or added (as in the forward generator).
    const bool gpu = get_target().has_gpu_feature();
    const Expr read_p = gpu ? clamp(p, x.dim(0).min(), x.dim(0).max()) : Expr(p);
    Func dyf("dyf"), xhat("xhat"), g("g");
    dyf(p, c, s) = acts.ToF32((*dy_)(read_p, c, s));
    xhat(p, c, s) =
        (acts.ToF32(x(read_p, c, s)) - (*mean_)(read_p, 0, s)) * (*rstd_)(read_p, 0, s);
    g(p, c, s) = dyf(p, c, s) * select(*has_weight_, (*weight_)(c), 1.f);
    RDom k(0, channels, "k");
    f.k = k;
    f.sum_g = Func("sum_g");
    f.sum_g(p, s) = 0.f;
    f.sum_g(p, s) += g(p, k, s);
    f.sum_g_xhat = Func("sum_g_xhat");
    f.sum_g_xhat(p, s) = 0.f;
    f.sum_g_xhat(p, s) = fma(g(p, k, s), xhat(p, k, s), f.sum_g_xhat(p, s));
    // dnorm = g - mean(g) - xhat * mean(g * xhat), the product fused; g -
    // mean(g) unfused, as in the row norm, so a one-channel image gets 0.
    Expr inv_channels = 1.f / cast<float>(channels);
    Expr dnorm = fma(xhat(p, c, s), -(f.sum_g_xhat(p, s) * inv_channels),
                     g(p, c, s) - f.sum_g(p, s) * inv_channels);
    dx(p, c, s) = acts.Store((*rstd_)(p, 0, s) * dnorm);

    // Partials: pixel lane `lane` of tile `tile` sums pixels
    // tile*tile_pixels + j*lanes + lane, j in order: first every whole
    // vector of the tile (a predicate that does not depend on the lane, so
    // the update stays vectorized), then the image's last, partial vector in
    // the tile that holds it. Bounds inference ignores predicates, so the
    // pixel is promised to be in range (a real min() would turn the dense
    // vector loads into gathers).
    auto clamped = [&](Expr pixel) { return unsafe_promise_clamped(pixel, 0, pixels - 1); };
    RDom step(0, tile_pixels / lanes, "step");
    Expr vector_start = tile * tile_pixels + step * lanes;
    step.where(vector_start + lanes <= pixels);
    f.step = step;
    Expr tail_start = pixels / lanes * lanes;
    RDom tail(0, 1, "tail");
    tail.where(tile == tail_start / tile_pixels && tail_start + lane < pixels);
    // Each pixel adds factor * other_factor (just factor, when other_factor
    // is undefined).
    auto partial = [&](Output<Buffer<float>>& out, Func factor, Func other_factor) {
      auto add = [&](Expr pixel) {
        Expr other = other_factor.defined() ? Expr(other_factor(pixel, c, s)) : Expr();
        return fma.Accumulate(out(lane, c, tile, s), factor(pixel, c, s), other);
      };
      out(lane, c, tile, s) = 0.f;
      out(lane, c, tile, s) = add(clamped(vector_start + lane));
      out(lane, c, tile, s) = add(clamped(tail_start + lane + tail));
      f.partials.push_back(out);
    };
    if (!gpu) {
      partial(*dweight_partial_, dyf, xhat);
      partial(*dbias_partial_, dyf, Func());
    } else {
      // GPU: lane `lane` of tile `tile` sums the same pixels, j in order,
      // dweight's and dbias's terms together (one read of dy); pixels past
      // the image add nothing (a select, so the loads need no branch). Then
      // each output sums those per channel over samples, tiles and lanes,
      // in that fixed order, on the device: extent 1 along lane, tile, s.
      RDom j(0, tile_pixels / lanes, "j");
      f.step = j;
      Expr pixel = tile * tile_pixels + j * lanes + lane;
      f.tile_walk = Func("tile_walk");
      f.tile_walk(lane, c, tile, s) = Tuple(0.f, 0.f);
      Expr dweight_sum = f.tile_walk(lane, c, tile, s)[0];
      Expr dbias_sum = f.tile_walk(lane, c, tile, s)[1];
      f.tile_walk(lane, c, tile, s) = Tuple(
          select(pixel < pixels,
                 fma.Accumulate(dweight_sum, dyf(pixel, c, s), xhat(pixel, c, s)), dweight_sum),
          select(pixel < pixels, dbias_sum + dyf(pixel, c, s), dbias_sum));
      f.tile_sums = Func("tile_sums");
      f.tile_sums(lane, c, tile, s) = f.tile_walk(lane, c, tile, s);
      // Each output adds up its channel's count = lanes x tiles x samples
      // tile sums in a fixed order: thread t of kChannelTotalThreads walks
      // the values t, t + threads, ... (neighbouring threads read
      // neighbouring lanes); then fold u < 16 adds threads u, u + 16, ...;
      // then the 16 folds are added in order.
      // One thread walking all of them took 1.4 ms of a 32x96x56x56
      // backward on an H200.
      Expr tiles = (pixels + tile_pixels - 1) / tile_pixels;
      Expr count = lanes * tiles * x.dim(2).extent();
      Expr per_thread = (count + kChannelTotalThreads - 1) / kChannelTotalThreads;
      RDom walk(0, per_thread, "total_walk");
      f.total_walk = walk;
      f.t = Var("t");
      const Var& t = f.t;
      Expr at = t + walk * kChannelTotalThreads;
      Expr value = min(at, count - 1);
      Expr lane_of = value % lanes, tile_of = value / lanes % tiles,
           sample_of = value / (lanes * tiles);
      constexpr int kFold = 16;
      static_assert(kFold * kFold == kChannelTotalThreads);
      for (int i = 0; i < 2; i++) {
        Output<Buffer<float>>& out = i == 0 ? *dweight_partial_ : *dbias_partial_;
        const std::string name = out.name();
        Func thread_totals("thread_totals_" + name), folds("folds_" + name),
            total("channel_total_" + name);
        thread_totals(t, c) = 0.f;
        thread_totals(t, c) =
            select(at < count, thread_totals(t, c) + f.tile_sums(lane_of, c, tile_of, sample_of)[i],
                   thread_totals(t, c));
        Expr fold = thread_totals(t, c);
        for (int j = 1; j < kFold; j++) fold += thread_totals(t + j * kFold, c);
        folds(t, c) = fold;
        Expr sum = folds(0, c);
        for (int j = 1; j < kFold; j++) sum += folds(j, c);
        total(c) = sum;
        out(lane, c, tile, s) = total(c);
        f.partials.push_back(out);
        f.thread_totals.push_back(thread_totals);
        f.total_folds.push_back(folds);
        f.channel_totals.push_back(total);
      }
    }

    for (int d = 0; d < 3; d++) {
      x.dim(d).set_bounds(dx.dim(d).min(), dx.dim(d).extent());
      dy_->dim(d).set_bounds(dx.dim(d).min(), dx.dim(d).extent());
    }
    weight_->dim(0).set_bounds(0, channels);
    dx.dim(1).set_min(0);
    for (Output<Buffer<float>>* out : {dweight_partial_, dbias_partial_}) {
      out->dim(0).set_bounds(0, gpu ? 1 : lanes);  // CPU: one vector of pixel lanes
      out->dim(1).set_bounds(0, channels);
      if (gpu) {  // summed over the tiles and samples
        out->dim(2).set_bounds(0, 1);
        out->dim(3).set_bounds(0, 1);
      }
    }

    // ---- Estimates (ConvNeXt-T stage 3: 384 channels, 14x14 pixels) -------
    // 196 pixels leave a partial tile: Halide 14's Adams2019 asserts on the
    // empty tail region of a pixel count that is a multiple of the tile.
    const int est_pixels = 14 * 14, est_channels = 384, est_samples = 8;
    const Region image = {{0, est_pixels}, {0, est_channels}, {0, est_samples}};
    const Region per_pixel = {{0, est_pixels}, {0, 1}, {0, est_samples}};
    const Region partials =
        gpu ? Region{{0, 1}, {0, est_channels}, {0, 1}, {0, 1}}
            : Region{{0, lanes}, {0, est_channels}, {0, est_pixels / tile_pixels + 1},
                     {0, est_samples}};
    dy_->set_estimates(image);
    x.set_estimates(image);
    dx.set_estimates(image);
    mean_->set_estimates(per_pixel);
    rstd_->set_estimates(per_pixel);
    weight_->set_estimates({{0, est_channels}});
    has_weight_->set_estimate(true);
    dweight_partial_->set_estimates(partials);
    dbias_partial_->set_estimates(partials);

    // ---- Schedule ---------------------------------------------------------
    f.dx = dx;
    f.dx_flags = {*has_weight_};
    if (auto_schedule) return;
    if (gpu) {
      ScheduleChannelNormBackwardGpu(f, {lanes, tile_pixels});
    } else {
      ScheduleChannelNormBackwardCpu(f, {lanes, tile_pixels});
    }
  }

 private:
  Input<Buffer<>>* dy_ = nullptr;
  Input<Buffer<>>* x_ = nullptr;
  Input<Buffer<float>>* mean_ = nullptr;
  Input<Buffer<float>>* rstd_ = nullptr;
  Input<Buffer<float>>* weight_ = nullptr;
  Input<bool>* has_weight_ = nullptr;
  Output<Buffer<>>* dx_ = nullptr;
  Output<Buffer<float>>* dweight_partial_ = nullptr;
  Output<Buffer<float>>* dbias_partial_ = nullptr;
};

}  // namespace
}  // namespace halnorm

HALIDE_REGISTER_GENERATOR(halnorm::ChannelNormBackward, channel_norm_backward)
