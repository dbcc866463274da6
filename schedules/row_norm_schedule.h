// Schedules for the row-norm pattern: reduce the contiguous trailing axis of
// each row, then map over it. The generator hands its Funcs over by name.
#ifndef HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_
#define HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_

#include <vector>

#include "Halide.h"

namespace halnorm {

// The stages of the row-norm forward algorithm (generators/row_norm_forward_generator.cc).
struct RowNormForwardFuncs {
  Halide::Func y;                             // the main output, (n, r, b)
  Halide::Func residual_out;                  // (n, r, b); undefined without a fused residual
  std::vector<Halide::Func> per_row_outputs;  // (0, r, b): rstd, and mean for LayerNorm
  Halide::Func lane_sums;                   // per-lane partial sums (lane, r, b) of the statistics
  Halide::Func lane_fold;                   // CPU: lane_sums folded to one vector (lane, r, b)
  std::vector<Halide::Func> fold_halvings;  // CPU: lane_fold summed by halving (lane, r, b)
  std::vector<Halide::Func> fold_stages;    // GPU: per-thread sums, then radix folds (thread, r, b)
  // LayerNorm: the row's head (lane, r, b) and its halvings, the shift's sum.
  Halide::Func shift_lanes;
  std::vector<Halide::Func> shift_halvings;
  std::vector<Halide::Func> stats;  // per-row (r, b) statistics and totals, in order
  Halide::Func sums;                // of them, the row sums (the lane accumulators' total)
  Halide::Func shift;               // LayerNorm: of them, the shift
  Halide::Func h;                   // the input row in f32 (n, r, b)
  Halide::Func mean, rstd;
  Halide::Var n, r, b, lane;               // hidden, row, outer row dim, accumulator lane
  Halide::RVar chunk;                      // the reductions' walk along the row, `lanes` at a time
  Halide::RVar tail;                       // the row totals' walk over the rest
  Halide::Expr hidden;                     // extent of n
  std::vector<Halide::Expr> affine_flags;  // bool params y is specialized on (ForEachFlagCase)
  Halide::Expr task_rows;  // CPU: rows a parallel task normalizes (runtime; 1 to rows_per_task)
};

// The stages of the row-norm backward algorithm (generators/row_norm_backward_generator.cc).
struct RowNormBackwardFuncs {
  Halide::Func dx;  // (n, r, b)
  // dweight/dbias partial sums: CPU, the output (n, c, b, part); GPU, the
  // walk's sums (n, c, b), stored.
  Halide::Func partials;
  std::vector<Halide::Func> partial_sums;  // GPU: the outputs, partials summed over c
  Halide::Func partial_walk;               // the partials' walk over in_chunk, (n, c, b)
  int register_lanes = 8;                  // CPU: f32 lanes of a SIMD register
  int vector_registers = 16;               // CPU: SIMD registers (the walk's tiles)
  // GPU, per output: the sums of kChunkGroups groups of chunks (a walk over
  // in_group, stored), and their total (a walk over over_groups).
  std::vector<Halide::Func> group_walks, group_sums, total_walks;
  Halide::Func lane_sums;                   // per-lane partial row sums (lane, r, b)
  Halide::Func lane_fold;                   // CPU: lane_sums folded to one vector
  std::vector<Halide::Func> fold_halvings;  // CPU: lane_fold summed by halving
  std::vector<Halide::Func> fold_stages;    // GPU: per-thread sums, then radix folds
  std::vector<Halide::Func> stats;          // per-row (r, b) totals
  Halide::Func sums;                        // of them, the row sums (the lane accumulators' total)
  Halide::Var n, r, b, lane, c;             // c: chunk of rows_per_chunk rows
  Halide::Var part;                         // CPU: the partials' index (dweight, dbias)
  Halide::RVar chunk;                       // the row reductions' walk along n
  Halide::RVar tail;                        // the row totals' walk over the rest
  Halide::RVar in_chunk;                    // the partials' walk over a chunk's rows
  Halide::RVar in_group, over_groups;       // GPU: the chunks of a group; the groups
  Halide::Var group;                        // GPU: a group of chunks
  Halide::Expr hidden, rows_per_chunk;
  std::vector<Halide::Expr> dx_flags;  // bool params dx is specialized on (ForEachFlagCase)
  // CPU: inputs dx prefetches a group of rows ahead (dy and x), when
  // prefetch_when holds at run time (ScheduleRowNormBackwardCpu).
  std::vector<Halide::ImageParam> prefetched_rows;
  Halide::Expr prefetch_when = Halide::Internal::const_true();
};

// GPU backward: the groups of chunks each dweight/dbias sum adds first (a
// thread each per column), part of the summation order.
constexpr int kChunkGroups = 32;

// Knobs shared by the generator (GeneratorParams) and the autotuner.
struct CpuRowNormKnobs {
  int vector_width;        // f32 lanes per SIMD register
  int accumulators;        // independent vector accumulators per reduction (ILP)
  int rows_per_task = 16;  // forward: most rows handed to one parallel task
  // Rows whose statistics (backward: row sums) are computed together, ahead
  // of their outputs (forward: at most rows_per_task; ScheduleRowNormForwardCpu).
  int stats_rows = 1;
};

// GPU knobs (GeneratorParams too). The reduction's lanes are threads x
// vector (RowReduction::ThreadSum).
struct GpuRowNormKnobs {
  int threads;         // per row: 32 = a warp per row; more = a block per row
  int rows_per_block;  // rows a block normalizes side by side (warp per row)
  int vector;          // elements a thread loads a step: 4, or 1 where rows are unaligned
  // Steps of a thread's row walks unrolled, so that their loads are in
  // flight together (a loop of one load a step waits a memory latency a
  // step): the statistics' walk (the generators round its steps up to a
  // multiple: RowReduction's step_multiple) and the outputs' (their steps
  // past the last whole group run one by one).
  int unroll = 1;
};

// Funcs are handles: the copy schedules the generator's pipeline.
void ScheduleRowNormForwardCpu(RowNormForwardFuncs f, const CpuRowNormKnobs& knobs);
void ScheduleRowNormBackwardCpu(RowNormBackwardFuncs f, const CpuRowNormKnobs& knobs);
void ScheduleRowNormForwardGpu(RowNormForwardFuncs f, const GpuRowNormKnobs& knobs);
void ScheduleRowNormBackwardGpu(RowNormBackwardFuncs f, const GpuRowNormKnobs& knobs);

}  // namespace halnorm

#endif  // HALNORM_SCHEDULES_ROW_NORM_SCHEDULE_H_
