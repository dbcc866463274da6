// GPU schedules of the row-norm pattern, for CUDA and, through the very same
// code, OpenCL (which tests run on the CPU through PoCL).
//
// A block normalizes rows_per_block rows. Each row is read by `threads`
// threads, each loading `vector` contiguous elements a step (one vector
// load), so a step of a row's threads is one coalesced span. The statistics
// reduce the threads' partial sums in halving stages
// (RowReduction::ThreadSum), then the output map reads the row again (from
// L1/L2, or from shared memory when the row is staged there). Backward's
// dweight/dbias partials are a second kernel over fixed row chunks, summed
// over the chunks in order by a third, so they do not depend on the launch
// shape.
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
// the halving stages through shared memory.
//
// CUDA and OpenCL share this code as it is: it does not use gpu_lanes()
// (warp shuffles), deliberately. Halide 14's OpenCL backend rejects it, and
// on CUDA its warp-shuffle lowering rejects the per-row scalars (rstd, mean,
// ...) computed at the warp level ("stored to by multiple lanes" once their
// one-row lane loop is simplified away), while compute_with of the per-row
// outputs widens those scalars' bounds to every row under a GuardWithIf row
// split. A warp-per-row config (threads = 32) reduces through shared memory.

// Elements every shared allocation's innermost storage extent is rounded up
// to (see ScheduleRowStatistics): the widest vector of f32 lane sums.
constexpr int kSharedAlignment = 8;

struct RowLoops {
  Var block{"block"}, row{"row"}, step{"step"}, in_step{"in_step"}, t{"t"}, v{"v"};
};

// rows_per_block rows a block; each row in steps of threads x vector.
void ScheduleRowMap(Func out, Var n, Var r, Var b, const GpuRowNormKnobs& knobs,
                    const RowLoops& loops) {
  // Whole vectors (the row is a multiple of them: RequireAlignedRows), so
  // the guard is per vector, not a predicated vector access (which Halide
  // 14's OpenCL backend cannot emit).
  out.split(r, loops.block, loops.row, knobs.rows_per_block, TailStrategy::GuardWithIf)
      .split(n, loops.in_step, loops.v, knobs.vector, TailStrategy::RoundUp)
      .split(loops.in_step, loops.step, loops.t, knobs.threads, TailStrategy::GuardWithIf)
      .vectorize(loops.v)
      .reorder(loops.v, loops.t, loops.step, loops.row, loops.block, b)
      .gpu_blocks(loops.block, b)
      .gpu_threads(loops.t, loops.row);
}

// The statistics of each of the block's rows: lane accumulators walking the
// row, the threads' halving stages, then the per-row scalars (one thread
// per row), all inside `at`'s kernel.
void ScheduleRowStatistics(Func lane_sums, const std::vector<Func>& fold_stages,
                           const std::vector<Func>& stats, Halide::RVar chunk, Halide::RVar tail,
                           Var lane, Var r, LoopLevel at, const GpuRowNormKnobs& knobs) {
  const int vector = knobs.vector, rows_per_block = knobs.rows_per_block;
  Var thread("thread"), v("v");
  // Halide 14 pools a block's shared allocations into one buffer and
  // indexes the vectorized ones (lane_sums, a staged row) in whole vectors
  // from their offset: every allocation must hold whole vectors, or the
  // ones after it are read and written misaligned. And it sizes them for
  // the call's largest block while the threads index a full one: storage
  // for every row of a block, even where no block of the call is full.
  for (Func f : fold_stages) {
    f.align_storage(lane, kSharedAlignment).align_storage(r, rows_per_block);
  }
  for (Func f : stats) f.align_storage(r, std::max(kSharedAlignment, rows_per_block));
  lane_sums.align_storage(r, rows_per_block);
  lane_sums.compute_at(at).split(lane, thread, v, vector).vectorize(v).gpu_threads(thread, r);
  lane_sums.update()
      .split(lane, thread, v, vector)
      .vectorize(v)
      .reorder(v, chunk, thread, r)
      .gpu_threads(thread, r);
  for (Func stage : fold_stages) stage.compute_at(at).gpu_threads(lane, r);
  for (Func stat : stats) {
    stat.compute_at(at).gpu_threads(r);
    if (stat.has_update_definition()) stat.update().reorder(tail, r).gpu_threads(r);
  }
}

// out(n, c, b) = 0, then += over `walk`, in order: a thread per column n.
void ScheduleColumnSum(Func out, Var n, Var c, Var b, Halide::RVar walk) {
  constexpr int kThreads = 128;
  Var span("span"), column("column");
  out.split(n, span, column, kThreads, TailStrategy::GuardWithIf)
      .gpu_blocks(span, c, b)
      .gpu_threads(column);
  out.update()
      .split(n, span, column, kThreads, TailStrategy::GuardWithIf)
      .reorder(walk, column, span, c, b)
      .gpu_blocks(span, c, b)
      .gpu_threads(column);
}

}  // namespace

// Measured (bazel run //bench:gpu_bench on one H100 80GB HBM3, 2026-11-22;
// device-to-device copy 3012 GB/s), M = 4096, GB/s (fraction of the copy):
//   N      LayerNorm fwd bf16 / f32    RMSNorm fwd bf16 / f32    LayerNorm bwd bf16
//   768     987 (0.33) / 1871 (0.62)   1190 (0.40) / 2425 (0.81)   424 (0.14)
//   1024   1289 (0.43) / 2136 (0.71)   1630 (0.54) / 3186 (1.06)   532 (0.18)
//   4096   1076 (0.36) / 1741 (0.58)   1992 (0.66) / 2647 (0.88)   724 (0.24)
//   16384  1796 (0.60) / 2158 (0.72)   2607 (0.87) / 2698 (0.90)   914 (0.30)
// A call whose blocks all fit on the GPU at once takes as long as one
// block's chain of dependent steps (barriers, shared-memory stages, the
// serial per-row scalars), which is what keeps the smaller rows short of the
// copy; the backward also reads dy and x again for the partials.
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
  if (knobs.stage_row) {
    Var thread("thread"), v("v"), step("step"), in_step("in_step");
    f.h.compute_at(f.y, loops.block)
        .store_in(Halide::MemoryType::GPUShared)
        .split(f.n, in_step, v, knobs.vector, TailStrategy::RoundUp)
        .split(in_step, step, thread, knobs.threads, TailStrategy::GuardWithIf)
        .vectorize(v)
        .reorder(v, thread, step, f.r)
        .gpu_threads(thread, f.r);
  }
  ScheduleRowStatistics(f.lane_sums, f.fold_stages, f.stats, f.chunk, f.tail, f.lane, f.r,
                        LoopLevel(f.y, loops.block), knobs);
}

void ScheduleRowNormBackwardGpu(RowNormBackwardFuncs f, const GpuRowNormKnobs& knobs) {
  const RowLoops loops;
  ScheduleRowMap(f.dx, f.n, f.r, f.b, knobs, loops);
  ScheduleRowStatistics(f.lane_sums, f.fold_stages, f.stats, f.chunk, f.tail, f.lane, f.r,
                        LoopLevel(f.dx, loops.block), knobs);
  // Partials, then their sums: a thread per column, walking its chunk's
  // rows (then the chunks) in order, coalesced across the block's threads;
  // a block per column span (and chunk).
  for (Func partial : f.partials) {
    partial.compute_root();
    ScheduleColumnSum(partial, f.n, f.c, f.b, f.in_chunk);
  }
  for (Func sum : f.partial_sums) ScheduleColumnSum(sum, f.n, f.c, f.b, f.over_chunks);
}

}  // namespace halnorm
