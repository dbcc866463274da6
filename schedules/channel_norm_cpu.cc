// CPU schedule of the channel-norm forward pattern: a task takes a tile of
// pixels of one sample; its C x tile block stays in cache while both
// statistic passes and the output map read it. Everything is vectorized
// across pixels, so the channel reductions are plain vector adds.
//
// Measured (the x86_avx2 variants dispatch picks; AMD EPYC 2-core VM; the
// report run of 2026-11-22 11:47), f32 NCHW over C, GB/s (fraction of DRAM
// STREAM copy / add at the same thread count):
//   shape         forward 1t / 2t           backward 1t / 2t
//   8x96x56x56     6.7 (0.50) /  6.6 (0.34)   5.7 (0.56) /  8.4 (0.59)
//   8x384x14x14    6.5 (0.49) /  6.7 (0.31)   6.7 (0.74) /  5.3 (0.44)
//   8x768x7x7      5.6 (0.43) /  9.2 (0.42)   4.8 (0.66) /  6.0 (0.56)
//   1x256x64x64    7.2 (0.52) / 11.9 (0.71)   5.6 (0.59) /  6.2 (0.45)
// 256 pixels per task measured no better at 8x96x56x56.
// Fused multiply-adds in the maps and channel sums (generators/
// fused_multiply_add.h), A/B of layer_norm2d_bench on the Zen 4 AVX-512 VM,
// 1 thread, medians of 2 interleaved runs, GB/s: forward bf16 +6-14% (e.g.
// 8x384x14x14 9.8 -> 11.2, 8x96x56x56 10.1 -> 11.3); forward f32 and the
// backwards -4% to +6%, plus two noisy +24% and +31% (runs 1.4x apart).
#include "schedules/channel_norm_schedule.h"
#include "schedules/flag_cases.h"

namespace halnorm {

using Halide::Func;
using Halide::TailStrategy;
using Halide::Var;

namespace {

// Tiles of pixels of one sample are the parallel tasks. GuardWithIf: small
// images (7x7) must not be rounded up. Tiles and samples are not fused:
// bounds inference would lose the per-tile extent of the statistics.
void TilePixels(Func out, Var p, Var c, Var s, Var tile, Var pixel, int pixels_per_task) {
  out.split(p, tile, pixel, pixels_per_task, TailStrategy::GuardWithIf)
      .reorder(pixel, c, tile, s)
      .parallel(tile)
      .parallel(s);
}

}  // namespace

void ScheduleChannelNormForwardCpu(ChannelNormForwardFuncs f, const CpuChannelNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var tile("tile"), pixel("pixel");
  auto tile_pixels = [&](Func out) {
    TilePixels(out, f.p, f.c, f.s, tile, pixel, knobs.pixels_per_task);
  };
  tile_pixels(f.y);
  for (Func out : f.per_pixel_outputs) {
    tile_pixels(out);
    out.compute_with(f.y, tile);
    out.vectorize(pixel, vw, TailStrategy::GuardWithIf);
  }
  auto vectorize_pixels = [&](Halide::Stage s) {
    s.vectorize(pixel, vw, TailStrategy::GuardWithIf);
  };
  ForEachFlagCase(f.y, f.affine_flags, vectorize_pixels);

  for (Func stat : {f.mean, f.rstd, f.offset}) {
    stat.compute_at(f.y, tile).vectorize(f.p, vw, TailStrategy::GuardWithIf);
  }
  for (Func total : {f.sum, f.sum_sq}) {
    total.compute_at(f.y, tile).vectorize(f.p, vw, TailStrategy::GuardWithIf);
    total.update().reorder(f.p, f.k).vectorize(f.p, vw, TailStrategy::GuardWithIf);
  }
}

// Backward: per tile, dx channel row by channel row (per-pixel sums in
// cache), then the tile's dweight/dbias partials, re-reading the tile's
// C x pixels block from L1/L2.
void ScheduleChannelNormBackwardCpu(ChannelNormBackwardFuncs f, const CpuChannelNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var pixel("pixel");
  TilePixels(f.dx, f.p, f.c, f.s, f.tile, pixel, knobs.pixels_per_task);
  ForEachFlagCase(f.dx, f.dx_flags, [&](Halide::Stage s) {
    s.vectorize(pixel, vw, TailStrategy::GuardWithIf);
  });
  for (Func total : {f.sum_g, f.sum_g_xhat}) {
    total.compute_at(f.dx, f.tile).vectorize(f.p, vw, TailStrategy::GuardWithIf);
    total.update().reorder(f.p, f.k).vectorize(f.p, vw, TailStrategy::GuardWithIf);
  }
  for (Func partial : f.partials) {
    partial.reorder(f.lane, f.c, f.tile, f.s).parallel(f.tile).parallel(f.s).vectorize(f.lane);
    partial.update(0)
        .reorder(f.lane, f.step, f.c, f.tile, f.s)
        .parallel(f.tile)
        .parallel(f.s)
        .vectorize(f.lane);
    // The image's last partial vector: a lane-dependent guard, so scalar;
    // it runs once per channel of one tile.
    partial.update(1).reorder(f.lane, f.c, f.tile, f.s).parallel(f.tile).parallel(f.s);
    partial.compute_with(f.dx, f.tile);
    partial.update(0).compute_with(f.dx, f.tile);
    partial.update(1).compute_with(f.dx, f.tile);
  }
}

}  // namespace halnorm
