// Schedules for the row-norm pattern: reduce the contiguous trailing axis of
// each row, then map over it. The generator hands its Funcs over by name.
#ifndef HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_
#define HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_

#include <vector>

#include "Halide.h"

namespace halnorm {

// The stages of the row-norm forward algorithm (generators/row_norm_forward_generator.cc).
struct RowNormForwardFuncs {
  Halide::Func y, mean_out, rstd_out;  // outputs, indexed (n, r, b) / (0, r, b)
  Halide::Func lane_sum, lane_sq;      // per-lane partial sums, indexed (lane, r, b)
  Halide::Func row_sum, row_sq;        // per-row totals
  Halide::Func mean, rstd;             // per-row statistics
  Halide::Var n, r, b, lane;           // hidden, row, outer row dim, accumulator lane
  Halide::RVar chunk;                  // the reductions' walk along the row, `lanes` at a time
  Halide::Expr hidden;                 // extent of n
  std::vector<Halide::Expr> affine_cases;  // runtime conditions to specialize y on
};

// Knobs shared by the generator (GeneratorParams) and the autotuner.
struct CpuRowNormKnobs {
  int vector_width;   // f32 lanes per SIMD register
  int accumulators;   // independent vector accumulators per reduction (ILP)
  int rows_per_task;  // rows handed to one parallel task
};

// Funcs are handles: the copy schedules the generator's pipeline.
void ScheduleRowNormForwardCpu(RowNormForwardFuncs f, const CpuRowNormKnobs& knobs);

}  // namespace halnorm

#endif  // HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_
