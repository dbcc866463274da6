// CPU schedule of the row-norm forward pattern: one row at a time, held in
// cache while both statistic passes and the output map read it; rows split
// into tasks run in parallel; everything along the row vectorized.
//
// Measured (x86_avx2_c0: vector_width 8, 4 accumulators, 16 rows per task;
// AMD EPYC 2-core VM, M=4096 f32, bench/layer_norm_bench, medians):
//   N     1 thread GB/s (frac STREAM copy)   2 threads GB/s (frac)
//   768   11.6 (0.71)                        17.5 (1.03)
//   1024   9.0 (0.62)                        17.9 (0.98)
//   4096   9.7 (0.63)                        16.8 (0.77)
//   8192   9.9 (0.59)                        17.4 (0.81)
// One core cannot saturate DRAM with ordinary stores (y's write-allocate
// reads make it 1.5x the logical traffic); STREAM copy uses glibc's
// non-temporal stores.
#include "schedules/row_norm_schedule.h"

namespace halnorm {

using Halide::Func;
using Halide::TailStrategy;
using Halide::Var;

namespace {

// Vectorizes a row map along n, with an overlapping last vector when the
// row is wide enough, under each runtime case (weight present, ...).
void VectorizeRowMap(Func out, Var n, Halide::Expr hidden, const std::vector<Halide::Expr>& cases,
                     int vw) {
  Var n_outer("n_outer"), n_inner("n_inner");
  auto vectorize = [&](Halide::Stage s) {
    s.specialize(hidden >= vw)
        .split(n, n_outer, n_inner, vw, TailStrategy::ShiftInwards)
        .vectorize(n_inner);
  };
  for (const Halide::Expr& c : cases) vectorize(out.specialize(c));
  vectorize(out);
}

// Each step along the row updates all accumulators (one vector each,
// unrolled), so a row reduction streams the row once.
void ScheduleLaneAccumulators(Func lanes, Var lane, Halide::RVar chunk, Halide::LoopLevel at,
                              int vw) {
  Var acc("acc"), simd("simd");
  lanes.compute_at(at).vectorize(lane, vw).unroll(lane);
  lanes.update().split(lane, acc, simd, vw).vectorize(simd).unroll(acc).reorder(simd, acc, chunk);
}

}  // namespace

void ScheduleRowNormForwardCpu(RowNormForwardFuncs f, const CpuRowNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var task("task"), row("row");

  // The outputs share one loop nest over rows, so the statistics are
  // computed once per row and the row is read from DRAM once.
  std::vector<Func> row_looped = f.per_row_outputs;
  if (f.residual_out.defined()) row_looped.push_back(f.residual_out);
  for (Func out : row_looped) {
    out.split(f.r, task, row, knobs.rows_per_task, TailStrategy::GuardWithIf)
        .parallel(task)
        .parallel(f.b)
        .compute_with(f.y, row);
  }
  f.y.split(f.r, task, row, knobs.rows_per_task, TailStrategy::GuardWithIf)
      .parallel(task)
      .parallel(f.b);
  if (f.residual_out.defined()) f.residual_out.vectorize(f.n, vw, TailStrategy::GuardWithIf);

  // y: one specialization per affine case (weight/bias present).
  VectorizeRowMap(f.y, f.n, f.hidden, f.affine_cases, vw);
  for (Func stat : f.stats) stat.compute_at(f.y, row);
  ScheduleLaneAccumulators(f.lane_sums, f.lane, f.chunk, {f.y, row}, vw);
}

// Backward: chunks of rows are the parallel tasks. Per chunk, dx row by row
// (row sums in cache), then that chunk's dweight/dbias partials, re-reading
// the chunk's rows while they are still in L2 (the runtime sizes chunks for
// that). Fixed chunks make the partials independent of the thread count.
// (Fusing the partials into dx's row loop would save the L2 re-read, but
// Halide 14's compute_with cannot match dx's split row loop with the
// partials' RDom loop: their loop names differ.)
void ScheduleRowNormBackwardCpu(RowNormBackwardFuncs f, const CpuRowNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var row("row");
  f.dx.split(f.r, f.c, row, f.rows_per_chunk, TailStrategy::GuardWithIf)
      .parallel(f.c)
      .parallel(f.b);
  VectorizeRowMap(f.dx, f.n, f.hidden, f.dx_cases, vw);
  for (Func stat : f.stats) stat.compute_at(f.dx, row);
  ScheduleLaneAccumulators(f.lane_sums, f.lane, f.chunk, {f.dx, row}, vw);
  for (Func partial : f.partials) {
    partial.parallel(f.c).parallel(f.b).vectorize(f.n, vw, TailStrategy::GuardWithIf);
    partial.update()
        .reorder(f.n, f.in_chunk, f.c, f.b)
        .parallel(f.c)
        .parallel(f.b)
        .vectorize(f.n, vw, TailStrategy::GuardWithIf);
    partial.compute_with(f.dx, f.c);
    partial.update().compute_with(f.dx, f.c);
  }
}

}  // namespace halnorm
