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
#include <stdexcept>

#include "schedules/channel_norm_schedule.h"
#include "schedules/flag_cases.h"

namespace halnorm {

using Halide::Func;
using Halide::TailStrategy;
using Halide::Var;

namespace {

// Tiles of pixels of one sample are the parallel tasks, each whole vectors
// of pixels (`lane` is the vectorized var). Vectors are split off first, so
// the last tile's guard is on the vector index and its loop stops at the
// image's last vector; split into tiles first, the guard was per pixel and
// the loop ran pixels_per_task / vector_width steps whatever the image
// held, the empty ones as masked loads and stores (a 7x7 image: 16 vector
// steps per channel for 4). JIT A/B, tiles first -> vectors first (Zen 4
// AVX-512 VM, vector_width 16, 1 thread, medians of 7 side-by-side rounds):
//   pixels_per_task 256: 8x768x7x7 forward f32 1.94x, bf16 2.68x, backward
//     1.68x / 2.14x; 1x256x9x9 1.40x / 2.03x, 1.37x / 1.78x; 8x384x14x14
//     1.04-1.15x; 8x96x56x56 and 1x256x64x64 0.99-1.04x.
//   pixels_per_task 64: 1.01-1.11x, but 0.94-0.97x in three of 20 (noise
//     of the same order).
// GuardWithIf at both splits: nothing is rounded up past the image. Tiles
// and samples are not fused: bounds inference would lose the per-tile
// extent of the statistics.
void TilePixels(Halide::Stage out, Var p, Var c, Var s, Var tile, Var lane,
                const CpuChannelNormKnobs& knobs) {
  if (knobs.pixels_per_task % knobs.vector_width != 0) {
    throw std::invalid_argument("pixels_per_task must be a multiple of vector_width");
  }
  Var vector("vector");
  out.split(p, vector, lane, knobs.vector_width, TailStrategy::GuardWithIf)
      .split(vector, tile, vector, knobs.pixels_per_task / knobs.vector_width,
             TailStrategy::GuardWithIf)
      .reorder(lane, vector, c, tile, s)
      .parallel(tile)
      .parallel(s);
}

}  // namespace

void ScheduleChannelNormForwardCpu(ChannelNormForwardFuncs f, const CpuChannelNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var tile("tile"), lane("pixel_lane");
  TilePixels(f.y, f.p, f.c, f.s, tile, lane, knobs);
  for (Func out : f.per_pixel_outputs) {
    TilePixels(out, f.p, f.c, f.s, tile, lane, knobs);
    out.compute_with(f.y, tile);
    out.vectorize(lane);
  }
  ForEachFlagCase(f.y, f.affine_flags, [&](Halide::Stage s) { s.vectorize(lane); });

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
  Var lane("pixel_lane");
  TilePixels(f.dx, f.p, f.c, f.s, f.tile, lane, knobs);
  ForEachFlagCase(f.dx, f.dx_flags, [&](Halide::Stage s) { s.vectorize(lane); });
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
