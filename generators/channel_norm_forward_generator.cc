// Channel-norm forward: LayerNorm2d over C of an NCHW tensor (ConvNeXt, SAM,
// timm), i.e. for each pixel a LayerNorm across channels, which are strided
// HW apart. Vectorized across pixels; the reductions walk the channels.
//
// Buffers are (p, c, s): p = pixel (H*W flattened, contiguous), c = channel,
// s = sample. Signature:
//   x, weight, bias, has_weight, has_bias, eps  ->  y, mean, rstd
// mean/rstd are (p, 0, s): extent 1 along c.
#include "Halide.h"
#include "generators/activations.h"
#include "generators/fused_multiply_add.h"
#include "generators/norm_types.h"
#include "schedules/channel_norm_schedule.h"

namespace halnorm {
namespace {

using namespace Halide;

class ChannelNormForward : public Generator<ChannelNormForward> {
 public:
  GeneratorParam<std::string> dtype{"dtype", "f32"};  // activations: f32, f16, bf16
  // Schedule knobs, also searched by the autotuner. GPU targets: threads of
  // the backward's partials walk, and pixels (threads) a block takes.
  GeneratorParam<int> vector_width{"vector_width", 8};
  GeneratorParam<int> pixels_per_task{"pixels_per_task", 64};

  void configure() {
    const Type act = KernelActivationType(dtype, get_target());
    x_ = add_input<Buffer<>>("x", act, 3);
    // Always bound: when has_weight/has_bias is false the runtime passes a
    // placeholder of the right extent that the kernel never reads.
    weight_ = add_input<Buffer<float>>("weight", 1);
    bias_ = add_input<Buffer<float>>("bias", 1);
    has_weight_ = add_input<bool>("has_weight");
    has_bias_ = add_input<bool>("has_bias");
    eps_ = add_input<float>("eps");
    y_ = add_output<Buffer<>>("y", act, 3);
    mean_out_ = add_output<Buffer<float>>("mean", 3);
    rstd_out_ = add_output<Buffer<float>>("rstd", 3);
  }

  void generate() {
    ChannelNormForwardFuncs f;
    f.p = Var("p");
    f.c = Var("c");
    f.s = Var("s");
    const Var &p = f.p, &c = f.c, &s = f.s;
    const Activations acts(dtype, get_target(), *get_externs_map());
    const FusedMultiplyAdd fma(get_target(), *get_externs_map());
    Input<Buffer<>>& x = *x_;
    Output<Buffer<>>& y = *y_;

    // ---- Algorithm -------------------------------------------------------
    // Shifted-data two-pass statistics over the channels, as in the row norm:
    // subtracting each pixel's channel-0 value keeps large offsets exact.
    Expr channels = x.dim(1).extent();
    f.channels = channels;
    RDom k(0, channels, "k");
    f.k = k;
    // GPU: a block computes the statistics of all its threads' pixels, also
    // past the image's last one in the last block (schedules/
    // channel_norm_gpu.cc); clamped, those read the last pixel again, and
    // their results are never stored.
    const bool gpu = get_target().has_gpu_feature();
    const Expr read_p = gpu ? clamp(p, x.dim(0).min(), x.dim(0).max()) : Expr(p);
    Func xf("xf"), shifted("shifted");
    xf(p, c, s) = acts.ToF32(x(read_p, c, s));
    shifted(p, c, s) = xf(p, c, s) - xf(p, 0, s);
    f.sum = Func("sum");
    f.sum(p, s) = 0.f;
    f.sum(p, s) += shifted(p, k, s);
    Func centered_mean("centered_mean"), centered("centered");
    centered_mean(p, s) = f.sum(p, s) / cast<float>(channels);
    centered(p, c, s) = shifted(p, c, s) - centered_mean(p, s);
    f.sum_sq = Func("sum_sq");
    f.sum_sq(p, s) = 0.f;
    f.sum_sq(p, s) = fma(centered(p, k, s), centered(p, k, s), f.sum_sq(p, s));
    f.rstd = Func("rstd");
    f.rstd(p, s) = 1.f / sqrt(f.sum_sq(p, s) / cast<float>(channels) + *eps_);
    f.mean = Func("mean");
    f.mean(p, s) = xf(p, 0, s) + centered_mean(p, s);

    Expr scale = select(*has_weight_, (*weight_)(c), 1.f);
    Expr shift = select(*has_bias_, (*bias_)(c), 0.f);
    // (shifted - centered_mean) * rstd as one fma per element, as in the
    // row norm; the per-pixel offset is computed with the statistics.
    f.offset = Func("offset");
    f.offset(p, s) = -centered_mean(p, s) * f.rstd(p, s);
    Expr normalized = fma(shifted(p, c, s), f.rstd(p, s), f.offset(p, s));
    y(p, c, s) = acts.Store(fma(normalized, scale, shift));
    (*mean_out_)(p, c, s) = f.mean(p, s);
    (*rstd_out_)(p, c, s) = f.rstd(p, s);

    for (OutputImageParam stats : {OutputImageParam(*mean_out_), OutputImageParam(*rstd_out_)}) {
      stats.dim(0).set_bounds(y.dim(0).min(), y.dim(0).extent());
      stats.dim(1).set_bounds(0, 1);
      stats.dim(2).set_bounds(y.dim(2).min(), y.dim(2).extent());
    }
    for (int d = 0; d < 3; d++) x.dim(d).set_bounds(y.dim(d).min(), y.dim(d).extent());
    weight_->dim(0).set_bounds(0, channels);
    bias_->dim(0).set_bounds(0, channels);
    y.dim(1).set_min(0);

    // ---- Estimates (ConvNeXt-T stage 3: 384 channels, 14x14 pixels) -------
    // 196 pixels leave a partial tile: Halide 14's Adams2019 asserts on the
    // empty tail region of a pixel count that is a multiple of the tile.
    const int est_pixels = 14 * 14, est_channels = 384, est_samples = 8;
    const Region image = {{0, est_pixels}, {0, est_channels}, {0, est_samples}};
    const Region per_pixel = {{0, est_pixels}, {0, 1}, {0, est_samples}};
    x.set_estimates(image);
    y.set_estimates(image);
    weight_->set_estimates({{0, est_channels}});
    bias_->set_estimates({{0, est_channels}});
    has_weight_->set_estimate(true);
    has_bias_->set_estimate(true);
    eps_->set_estimate(1e-6f);
    mean_out_->set_estimates(per_pixel);
    rstd_out_->set_estimates(per_pixel);

    // ---- Schedule ---------------------------------------------------------
    f.y = y;
    f.per_pixel_outputs = {*mean_out_, *rstd_out_};
    f.affine_flags = {*has_weight_, *has_bias_};
    if (auto_schedule) return;
    if (gpu) {
      ScheduleChannelNormForwardGpu(f, {vector_width, pixels_per_task});
    } else {
      ScheduleChannelNormForwardCpu(f, {vector_width, pixels_per_task});
    }
  }

 private:
  Input<Buffer<>>* x_ = nullptr;
  Input<Buffer<float>>* weight_ = nullptr;
  Input<Buffer<float>>* bias_ = nullptr;
  Input<bool>* has_weight_ = nullptr;
  Input<bool>* has_bias_ = nullptr;
  Input<float>* eps_ = nullptr;
  Output<Buffer<>>* y_ = nullptr;
  Output<Buffer<float>>* mean_out_ = nullptr;
  Output<Buffer<float>>* rstd_out_ = nullptr;
};

}  // namespace
}  // namespace halnorm

HALIDE_REGISTER_GENERATOR(halnorm::ChannelNormForward, channel_norm_forward)
