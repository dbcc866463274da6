// GPU schedules of the row-norm pattern, for CUDA and, through the very same
// code, OpenCL (which tests run on the CPU through PoCL).
//
// A block normalizes rows_per_block rows. Each row is read by `threads`
// threads, each loading `vector` contiguous elements a step (one vector
// load), so a step of a row's threads is one coalesced span. Each thread
// sums its own elements in registers; the threads' sums are then folded
// through shared memory in as few stages as RowReduction::RadixFolds
// allows (a barrier each), and the output map reads the row again (L1/L2).
// Backward's dweight/dbias partials are a second kernel over fixed row
// chunks, summed over the chunks in a fixed two-level order by one more
// kernel per output, so they do not depend on the launch shape.
#include "schedules/row_norm_schedule.h"

#include <algorithm>

namespace halnorm {

using Halide::Func;
using Halide::LoopLevel;
using Halide::TailStrategy;
using Halide::Var;

namespace {

// The row loops every per-element output (y, residual_out, dx) shares, so
// they run in one kernel (compute_with). A row's threads are gpu_threads x,
// the block's rows gpu_threads y; the statistics are computed per block,
// the fold stages through shared memory.
//
// CUDA and OpenCL share this code as it is: it does not use gpu_lanes()
// (warp shuffles), deliberately. Halide 14's OpenCL backend rejects it, and
// on CUDA its warp-shuffle lowering rejects the per-row scalars (rstd, mean,
// ...) computed at the warp level ("stored to by multiple lanes" once their
// one-row lane loop is simplified away), while compute_with of the per-row
// outputs widens those scalars' bounds to every row under a GuardWithIf row
// split. A warp-per-row config (threads = 32) reduces through shared memory.

// Elements every shared allocation's innermost storage extent is rounded up
// to (see ScheduleRowStatistics): the widest f32 vector a stage may read.
constexpr int kSharedAlignment = 8;

// Threads of a column-walk block (ScheduleColumnWalk).
constexpr int kColumnThreads = 128;

// Columns of a block of the backward's chunk-group sums: with kChunkGroups
// groups, a thread each, 1024 threads.
constexpr int kGroupColumns = 32;

struct ColumnLoops {
  Var span{"span"}, column{"column"}, vector_column{"vector_column"}, in_vector{"in_vector"};
};

struct RowLoops {
  Var block{"block"}, row{"row"}, step{"step"}, in_step{"in_step"}, t{"t"}, v{"v"};
  Var steps{"steps"}, in_steps{"in_steps"};  // step's groups of `unroll`
};

// rows_per_block rows a block; each row in steps of threads x vector, a
// thread's steps unrolled `unroll` at a time.
void ScheduleRowMap(Func out, Var n, Var r, Var b, const GpuRowNormKnobs& knobs,
                    const RowLoops& loops) {
  // Whole vectors (the row is a multiple of them: RequireAlignedRows), so
  // the guard is per vector, not a predicated vector access (which Halide
  // 14's OpenCL backend cannot emit).
  out.split(r, loops.block, loops.row, knobs.rows_per_block, TailStrategy::GuardWithIf)
      .split(n, loops.in_step, loops.v, knobs.vector, TailStrategy::RoundUp)
      .split(loops.in_step, loops.step, loops.t, knobs.threads, TailStrategy::GuardWithIf)
      .split(loops.step, loops.steps, loops.in_steps, knobs.unroll, TailStrategy::GuardWithIf)
      .vectorize(loops.v)
      .unroll(loops.in_steps)
      .reorder(loops.v, loops.in_steps, loops.t, loops.steps, loops.row, loops.block, b)
      .gpu_blocks(loops.block, b)
      .gpu_threads(loops.t, loops.row);
}

// The statistics of each of the block's rows: lane accumulators walking the
// row, the threads' fold stages, then the per-row scalars (one thread per
// row), all inside `at`'s kernel.
void ScheduleRowStatistics(Func lane_sums, const std::vector<Func>& fold_stages,
                           const std::vector<Func>& stats, Var lane, Var r, Halide::RVar chunk,
                           LoopLevel at, const GpuRowNormKnobs& knobs) {
  const int rows_per_block = knobs.rows_per_block;
  // Halide 14 pools a block's shared allocations into one buffer and
  // indexes vectorized ones in whole vectors from their offset: every
  // allocation holds whole vectors, or the ones after it would be read and
  // written misaligned. And it sizes them for the call's largest block
  // while the threads index a full one: storage for every row of a block,
  // even where no block of the call is full.
  for (Func f : fold_stages) {
    f.align_storage(lane, kSharedAlignment).align_storage(r, rows_per_block);
  }
  // A fixed size for the per-row scalars: Halide cannot simplify the
  // per-block bounds it infers for them (the row guards of the fused
  // per-row outputs), and would size them with a host loop over all blocks
  // before each launch (~6 ns a row: more than the kernel itself at M =
  // 4096, N = 2048).
  for (Func f : stats) f.bound_storage(r, std::max(kSharedAlignment, rows_per_block));
  // Each thread's accumulators live in its registers, computed inside the
  // thread's own-vector sum (the first fold stage): no shared round trip
  // and no barriers for them.
  lane_sums.compute_at(fold_stages.front(), lane).vectorize(lane);
  Halide::RVar steps("steps"), in_steps("in_steps");
  lane_sums.update()
      .split(chunk, steps, in_steps, knobs.unroll, TailStrategy::GuardWithIf)
      .vectorize(lane)
      .unroll(in_steps);
  for (Func stage : fold_stages) stage.compute_at(at).gpu_threads(lane, r);
  for (Func stat : stats) stat.compute_at(at).gpu_threads(r);
}

// out(n, c, b) = walk(n, c, b), a walk over `rows` in order: a thread per
// `columns` adjacent columns n (one vector load a row, like the row walks'),
// coalesced across the block's threads, a block per column span (and c, b).
// The walk runs in the thread's registers, unrolled so that its independent
// loads are in flight together (the adds stay in order).
void ScheduleColumnWalk(Func out, Func walk, Var n, Var c, Var b, Halide::RVar rows, int columns,
                        const ColumnLoops& loops) {
  constexpr int kUnroll = 8;
  // Rows are whole vectors (RequireAlignedRows): the guard is per vector,
  // and the span starts at a whole vector (or its loads would be scalar).
  out.align_bounds(n, columns)
      .split(n, loops.vector_column, loops.in_vector, columns, TailStrategy::RoundUp)
      .split(loops.vector_column, loops.span, loops.column, kColumnThreads,
             TailStrategy::GuardWithIf)
      .vectorize(loops.in_vector)
      .gpu_blocks(loops.span, c, b)
      .gpu_threads(loops.column);
  Halide::RVar rows_outer("rows_outer"), rows_inner("rows_inner");
  walk.compute_at(out, loops.column).vectorize(n);
  walk.update()
      .split(rows, rows_outer, rows_inner, kUnroll, TailStrategy::GuardWithIf)
      .unroll(rows_inner)
      .vectorize(n);
}

}  // namespace

// Measured (bazel run //bench:gpu_bench on one H100 80GB HBM3, 2026-11-26;
// device-to-device copy 3012 GB/s), M = 4096, fraction of the copy,
// 2026-11-22 schedules -> these (register accumulators, radix folds, the
// parallel tail, one partials walk, dispatch by row bytes, f16 through cvt):
//   N       LayerNorm fwd bf16 / f16 / f32        LayerNorm bwd bf16 / f32
//   768     0.40 0.35 0.71 -> 0.46 0.54 0.83      0.15 0.26 -> 0.26 0.42
//   1024    0.46 0.40 0.76 -> 0.53 0.66 0.85      0.18 0.28 -> 0.30 0.41
//   2048    0.30 0.30 0.46 -> 0.66 0.74 0.74      0.19 0.31 -> 0.30 0.43
//   4096    0.36 0.36 0.58 -> 0.62 0.70 0.85      0.24 0.36 -> 0.33 0.49
//   8192    0.51 0.42 0.68 -> 0.76 0.83 0.86      0.26 0.40 -> 0.39 0.53
//   16384   0.61 0.50 0.75 -> 0.79 0.85 0.80      0.30 0.36 -> 0.41 0.54
//   RMSNorm fwd bf16 0.50-0.87 -> 0.57-0.87, f16 0.19-0.68 -> 0.66-1.03,
//   f32 0.59-1.06 -> 0.82-1.04; bwd bf16 0.23-0.41 -> 0.33-0.47.
// On one H200 (2026-11-28, copy 4263 GB/s, M = 4096, N = 768..16384; the
// same configs, untuned for it): forward LayerNorm bf16 0.30-0.55 of the
// copy, f32 0.53-0.66; RMSNorm bf16 0.38-0.73, f32 0.66-0.81; backward bf16
// 0.16-0.30 (LayerNorm), 0.22-0.34 (RMSNorm). PyTorch 2.11 on the same GPU
// (F.layer_norm / F.rms_norm and autograd): halnorm's forward 0.87-2.4x its
// speed (slower on 7 of 36 shapes, at N = 2048-4096 and f32 16384),
// backward 0.85-6.0x (slower for 16-bit LayerNorm and bf16 RMSNorm at N >=
// 8192).
// On one H200, 2026-12-04 (copy 4259 GB/s; gpu_bench, the 2026-11-28 build
// and this one in the same call, us): 16-bit backwards unrolled (4 steps)
// and their partials walk 4 columns a thread, N >= 2048: LayerNorm bf16
// 47.8 / 90.2 / 158.3 / 310.2 -> 42.2 / 71.9 / 134.5 / 266.7 (N = 2048 /
// 4096 / 8192 / 16384; 0.25-0.30 -> 0.28-0.35 of the copy), f16 1.15-1.27x,
// RMSNorm bf16 1.14-1.22x, f32 backwards 1.0-1.08x; 512 threads instead of
// 1024 for N = 16384 f32: forward LayerNorm 228.2 -> 165.8 (0.55 -> 0.76),
// RMSNorm 190.3 -> 144.4 (0.66 -> 0.87). Unrolling the forwards (4 steps,
// stats and map) ran them 0.9-1.0x, up to 0.75x at N = 16384 (48 registers:
// half the blocks an SM), and N <= 1024 calls (6-30 us) are bound by the
// host's call overhead: identical forward kernels timed 0.68-1.18x apart
// there in one call.
// A call whose blocks all fit on the GPU at once takes as long as one
// block's chain of dependent steps (loads, fold barriers, the per-row
// scalars), which keeps the smaller rows short of the copy. The backward
// reads dy and x twice (dx, then the partials' walk: ~40% of its time at
// 4096 x 4096 by ncu), so it stays near half of the copy.
void ScheduleRowNormForwardGpu(RowNormForwardFuncs f, const GpuRowNormKnobs& knobs) {
  const RowLoops loops;
  ScheduleRowMap(f.y, f.n, f.r, f.b, knobs, loops);
  if (f.residual_out.defined()) {
    ScheduleRowMap(f.residual_out, f.n, f.r, f.b, knobs, loops);
    f.residual_out.compute_with(f.y, loops.block);
  }
  for (Func out : f.per_row_outputs) {  // rstd, mean: extent 1 along n
    out.split(f.r, loops.block, loops.row, knobs.rows_per_block, TailStrategy::GuardWithIf)
        .reorder(f.n, loops.row, loops.block, f.b)
        .gpu_blocks(loops.block, f.b)
        .gpu_threads(loops.row)
        .compute_with(f.y, loops.block);
  }
  ScheduleRowStatistics(f.lane_sums, f.fold_stages, f.stats, f.lane, f.r, f.chunk,
                        LoopLevel(f.y, loops.block), knobs);
}

void ScheduleRowNormBackwardGpu(RowNormBackwardFuncs f, const GpuRowNormKnobs& knobs) {
  const RowLoops loops;
  ScheduleRowMap(f.dx, f.n, f.r, f.b, knobs, loops);
  ScheduleRowStatistics(f.lane_sums, f.fold_stages, f.stats, f.lane, f.r, f.chunk,
                        LoopLevel(f.dx, loops.block), knobs);
  // The partials' walk over row chunks (dweight's and dbias's together, a
  // Tuple: one read of dy), then a kernel per output walking the chunks.
  // (One kernel for both outputs, by compute_with, trips an internal error
  // in Halide 14's PartitionLoops; the chunk sums are small.)
  const ColumnLoops columns;
  f.partials.compute_root();
  // Vector columns (4 a thread) only for the configs of rows from 4 KiB
  // (64+ threads): on an H200 they ran the backward 1.05-1.16x faster from
  // 8 KiB rows, but 1.3x slower at N = 768 f32 (3 KiB: too few threads).
  const int walk_columns = knobs.threads >= 64 ? knobs.vector : 1;
  ScheduleColumnWalk(f.partials, f.partial_walk, f.n, f.c, f.b, f.in_chunk, walk_columns, columns);
  // Each output's two-level sum of the chunks: a block per span of
  // kGroupColumns columns, first a thread per (column, group) walking its
  // group's chunks in registers (the group sums go to shared memory), then
  // a thread per column adding the groups. One level walked up to 256
  // chunks a thread, on N/128 blocks: at N = 1000, 8 blocks for 43 us of a
  // 70 us backward on an H200 (ncu).
  const Var span("span"), column("column");
  for (size_t i = 0; i < f.partial_sums.size(); i++) {
    Func out = f.partial_sums[i];
    out.split(f.n, span, column, kGroupColumns, TailStrategy::GuardWithIf)
        .gpu_blocks(span, f.c, f.b)
        .gpu_threads(column);
    f.total_walks[i].compute_at(out, column);
    f.group_sums[i]
        .compute_at(out, span)
        .bound_storage(f.n, kGroupColumns)
        .bound_storage(f.group, kChunkGroups)
        .gpu_threads(f.n, f.group);
    Halide::RVar outer("in_group_outer"), inner("in_group_inner");
    f.group_walks[i].compute_at(f.group_sums[i], f.n);
    f.group_walks[i]
        .update()
        .split(f.in_group, outer, inner, 8, TailStrategy::GuardWithIf)
        .unroll(inner);
  }
}

}  // namespace halnorm
