// GPU schedules of the channel-norm pattern (LayerNorm2d over C of NCHW), for
// CUDA and, through the very same code, OpenCL (which tests run on the CPU
// through PoCL). Nothing here uses gpu_lanes().
//
// A thread per pixel walks the channels: a block's threads read consecutive
// pixels of one channel, one coalesced span a step. A block takes
// pixels_per_block pixels of one sample. Its per-pixel statistics go to
// shared memory (one value per thread); the output map reads the block's
// channels again (L1/L2).
// The backward's dweight/dbias: a kernel whose threads each sum one pixel
// lane of a tile of pixels (coalesced across the lanes, in order), then a
// kernel per output in which a block per channel adds those up in a fixed
// order (generators/channel_norm_backward_generator.cc), so the result
// does not depend on the launch shape and stays on the device.
//
// On one H200 (2026-11-28, gpu_layer_norm2d_bench, 32 samples, bf16):
// forward 28-126 us, 0.02-0.30 of the device copy (ConvNeXt's 7x7 and 14x14
// stages have too few pixels a channel to fill the GPU); backward 113-327
// us, against 282-2420 us when one thread per channel added all its tile
// sums.
#include "schedules/channel_norm_schedule.h"

namespace halnorm {

using Halide::Func;
using Halide::LoopLevel;
using Halide::TailStrategy;
using Halide::Var;

namespace {

struct PixelLoops {
  Var tile{"tile"}, pixel{"pixel"};
};

// out(p, c, s): a block per tile of one sample's pixels, a thread per pixel,
// the channels a serial loop in the thread.
void SchedulePixelMap(Func out, Var p, Var c, Var s, int pixels_per_block,
                      const PixelLoops& loops) {
  out.split(p, loops.tile, loops.pixel, pixels_per_block, TailStrategy::GuardWithIf)
      .reorder(c, loops.pixel, loops.tile, s)
      .gpu_blocks(loops.tile, s)
      .gpu_threads(loops.pixel);
}

// Per-pixel totals (a walk over the channels) and the scalars derived from
// them, a thread per pixel, inside `at`'s kernel. Their shared storage has
// a fixed size, a block's pixels: Halide would otherwise size it with a host
// loop over every block before each launch (as in row_norm_gpu.cc).
void SchedulePixelStatistics(const std::vector<Func>& totals, const std::vector<Func>& stats,
                             Var p, Var s, LoopLevel at, int pixels_per_block) {
  for (Func total : totals) {
    total.compute_at(at).bound_storage(p, pixels_per_block).bound_storage(s, 1).gpu_threads(p);
    total.update().gpu_threads(p);
  }
  for (Func stat : stats) {
    stat.compute_at(at).bound_storage(p, pixels_per_block).bound_storage(s, 1).gpu_threads(p);
  }
}

}  // namespace

void ScheduleChannelNormForwardGpu(ChannelNormForwardFuncs f, const GpuChannelNormKnobs& knobs) {
  const PixelLoops loops;
  SchedulePixelMap(f.y, f.p, f.c, f.s, knobs.pixels_per_block, loops);
  for (Func out : f.per_pixel_outputs) {  // mean, rstd: extent 1 along c
    SchedulePixelMap(out, f.p, f.c, f.s, knobs.pixels_per_block, loops);
    out.compute_with(f.y, loops.tile);
  }
  SchedulePixelStatistics({f.sum, f.sum_sq}, {f.mean, f.rstd, f.offset}, f.p, f.s,
                          LoopLevel(f.y, loops.tile), knobs.pixels_per_block);
}

void ScheduleChannelNormBackwardGpu(ChannelNormBackwardFuncs f, const GpuChannelNormKnobs& knobs) {
  const PixelLoops loops;
  SchedulePixelMap(f.dx, f.p, f.c, f.s, knobs.pixels_per_block, loops);
  SchedulePixelStatistics({f.sum_g, f.sum_g_xhat}, {}, f.p, f.s, LoopLevel(f.dx, loops.tile),
                          knobs.pixels_per_block);

  // The tiles' walks: a block per (tile, channel, sample), a thread per
  // lane, the walk in the thread's registers.
  f.tile_sums.compute_root()
      .reorder(f.lane, f.c, f.tile, f.s)
      .gpu_blocks(f.tile, f.c, f.s)
      .gpu_threads(f.lane);
  f.tile_walk.compute_at(f.tile_sums, f.lane);
  f.tile_walk.update().unroll(f.step);

  // A kernel per output, a block per channel: the threads' walks in their
  // registers, the 16 folds and the total after them (shared memory).
  for (size_t i = 0; i < f.partials.size(); i++) {
    f.partials[i].gpu_blocks(f.c);
    f.channel_totals[i].compute_at(f.partials[i], f.c);
    f.total_folds[i].compute_at(f.partials[i], f.c).gpu_threads(f.t);
    f.thread_totals[i].compute_at(f.partials[i], f.c).gpu_threads(f.t);
    Halide::RVar outer("walk_outer"), inner("walk_inner");
    f.thread_totals[i]
        .update()
        .gpu_threads(f.t)
        .split(f.total_walk, outer, inner, 4, TailStrategy::GuardWithIf)
        .unroll(inner);
  }
}

}  // namespace halnorm
