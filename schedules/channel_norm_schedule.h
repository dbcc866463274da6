// Schedules for the channel-norm pattern: per pixel, reduce across a
// strided channel axis; vectorized across pixels.
#ifndef HALNORM_SCHEDULES_CHANNEL_NORM_SCHEDULE_H_
#define HALNORM_SCHEDULES_CHANNEL_NORM_SCHEDULE_H_

#include <vector>

#include "Halide.h"

namespace halnorm {

// The stages of generators/channel_norm_forward_generator.cc.
struct ChannelNormForwardFuncs {
  Halide::Func y;                               // (p, c, s)
  std::vector<Halide::Func> per_pixel_outputs;  // (p, 0, s): mean, rstd
  Halide::Func sum, sum_sq, mean, rstd;         // per pixel (p, s)
  Halide::Func offset;                          // per pixel: -(mean - x(p, 0, s)) * rstd
  Halide::Var p, c, s;                          // pixel, channel, sample
  Halide::RVar k;                               // the reductions' walk over channels
  Halide::Expr channels;
  std::vector<Halide::Expr> affine_flags;  // bool params y is specialized on (ForEachFlagCase)
};

// The stages of generators/channel_norm_backward_generator.cc.
struct ChannelNormBackwardFuncs {
  Halide::Func dx;                     // (p, c, s)
  std::vector<Halide::Func> partials;  // dweight/dbias partials, (lane, c, tile, s)
  Halide::Func sum_g, sum_g_xhat;      // per pixel (p, s)
  Halide::Var p, c, s, lane, tile;
  Halide::RVar k;     // the row sums' walk over channels
  Halide::RVar step;  // the partials' walk over a tile's pixels, a vector at a time
  // GPU only: the partials are summed on the device. tile_walk (a Tuple of
  // dweight's and dbias's sums over a tile's pixels, walking `step`) feeds
  // tile_sums (lane, c, tile, s). Per output, thread_totals (t, c) add up
  // strided shares of a channel's tile sums (walking total_walk),
  // total_folds (t, c) sum them in groups and channel_totals (c) the
  // groups; `partials` are then the outputs, one value per channel.
  Halide::Func tile_walk, tile_sums;
  std::vector<Halide::Func> thread_totals, total_folds, channel_totals;
  Halide::Var t;            // a thread of the totals
  Halide::RVar total_walk;  // its walk over the tile sums
  Halide::Expr channels;
  std::vector<Halide::Expr> dx_flags;  // bool params dx is specialized on (ForEachFlagCase)
};

// GPU backward: the threads that add up each channel's tile sums, part of
// the summation order (16 folds of 16).
constexpr int kChannelTotalThreads = 256;

struct CpuChannelNormKnobs {
  int vector_width;     // f32 lanes per SIMD register
  int pixels_per_task;  // pixels of one sample whose channels a task reduces
};

// GPU knobs (the same GeneratorParams as the CPU's, read differently).
struct GpuChannelNormKnobs {
  int lanes;             // vector_width: threads of a partials walk (pixel lanes)
  int pixels_per_block;  // pixels_per_task: a block's threads, one pixel each
};

// Funcs are handles: the copy schedules the generator's pipeline.
void ScheduleChannelNormForwardGpu(ChannelNormForwardFuncs f, const GpuChannelNormKnobs& knobs);
void ScheduleChannelNormBackwardGpu(ChannelNormBackwardFuncs f, const GpuChannelNormKnobs& knobs);
void ScheduleChannelNormForwardCpu(ChannelNormForwardFuncs f, const CpuChannelNormKnobs& knobs);
void ScheduleChannelNormBackwardCpu(ChannelNormBackwardFuncs f, const CpuChannelNormKnobs& knobs);

}  // namespace halnorm

#endif  // HALNORM_SCHEDULES_CHANNEL_NORM_SCHEDULE_H_
