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

void ScheduleRowNormForwardCpu(RowNormForwardFuncs f, const CpuRowNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var task("task"), row("row"), n_outer("n_outer"), n_inner("n_inner");

  // The three outputs share one loop nest over rows, so the statistics are
  // computed once per row and the row is read from DRAM once.
  for (Func out : {f.y, f.mean_out, f.rstd_out}) {
    out.split(f.r, task, row, knobs.rows_per_task, TailStrategy::GuardWithIf)
        .parallel(task)
        .parallel(f.b);
  }
  f.mean_out.compute_with(f.y, row);
  f.rstd_out.compute_with(f.y, row);

  // y: one specialization per affine case (weight/bias present), each
  // vectorized with an overlapping last vector when the row is wide enough.
  auto vectorize_row = [&](Halide::Stage s) {
    s.specialize(f.hidden >= vw)
        .split(f.n, n_outer, n_inner, vw, TailStrategy::ShiftInwards)
        .vectorize(n_inner);
  };
  for (const Halide::Expr& c : f.affine_cases) vectorize_row(f.y.specialize(c));
  vectorize_row(f.y);

  for (Func stat : {f.mean, f.rstd, f.row_sum, f.row_sq}) stat.compute_at(f.y, row);
  // Each step along the row updates all accumulators (one vector each,
  // unrolled), so the row is streamed once per pass.
  Var acc("acc"), simd("simd");
  for (Func lanes : {f.lane_sum, f.lane_sq}) {
    lanes.compute_at(f.y, row).vectorize(f.lane, vw).unroll(f.lane);
    lanes.update()
        .split(f.lane, acc, simd, vw)
        .vectorize(simd)
        .unroll(acc)
        .reorder(simd, acc, f.chunk);
  }
}

}  // namespace halnorm
