// CPU schedule of the row-norm forward pattern: a row (or a small group of
// rows) held in cache while the statistics pass and the output map read it;
// rows split into tasks run in parallel; everything along the row vectorized.
//
// Measured (the x86_avx2 variants dispatch picks from the tuned table; AMD
// EPYC 2-core VM, AVX2; the report run of 2026-11-22 17:14, where calls of
// 16 MiB and more run the streaming-stores twin), LayerNorm forward, GB/s
// (fraction of the reference: hot copy for cache/mixed shapes, DRAM STREAM
// copy for dram ones; ratio to oneDNN 2.6):
//   shape        dtype  1 thread                    2 threads
//   4096x768     f32    29.5 (1.04, 1.93x oneDNN)   36.8 (0.58, 1.24x)
//   16384x4096   f32    14.2 (0.87, 1.34x)          20.2 (1.18, 1.11x)
//   16384x16384  f32    17.9 (1.07, 1.58x)          23.5 (0.90, 1.21x)
//   16384x4096   f16     9.5 (0.59)                 17.1 (1.07)
//   16384x16384  f16    12.4 (0.72)                 17.1 (0.76)
//   16384x4096   bf16    6.7 (0.46)                 12.6 (0.67)
//   16384x16384  bf16    7.6 (0.45)                 13.0 (0.53)
// The kernel as compiled here stores plainly: y's write-allocate reads make
// 1.5x the logical traffic, and Halide 14 cannot emit non-temporal stores,
// so DRAM-sized calls run a streaming-stores twin built from its IR
// (runtime/streaming_stores.h; 16384x4096 f32, 1 thread, 11.6 -> 17.2 GB/s
// in an A/B). f16 converts with F16C (generators/native_half.ll); bf16's
// integer-op rounding on store keeps it compute-bound, except in the
// x86_avx512_bf16 variants (the same schedules, storing through AVX512_BF16:
// generators/native_bf16.ll; Zen 4 VM, 4096x4096, 1 thread, LayerNorm
// forward 9.6 -> 11.7 GB/s, RMSNorm 12.4 -> 14.8 GB/s).
//
// The same, on the AVX-512 VM (Zen 4; report of 2026-11-25 11:00; x86_avx512
// variants, bf16 on x86_avx512_bf16):
//   shape        dtype  1 thread                    2 threads
//   4096x768     f32    36.9 (0.71, 1.01x oneDNN)   54.8 (0.46, 0.69x)
//   16384x4096   f32    22.5 (0.98, 1.60x)          43.1 (0.96, 1.88x)
//   16384x16384  f32    25.5 (1.03, 1.90x)          49.6 (1.54, 1.82x)
//   16384x4096   f16    15.1 (0.57)                 28.3 (0.89)
//   16384x16384  f16    17.8 (0.66)                 35.0 (1.00)
//   16384x4096   bf16   13.3 (0.54, 1.25x)          26.0 (0.84, 1.24x)
//   16384x16384  bf16   16.3 (0.66, 1.46x)          31.5 (0.96, 1.53x)
// 16-bit forwards are compute-bound there: Zen 4 runs 512-bit ops as two
// 256-bit halves, and the bf16 kernel spends 17 vector ops per 16 elements
// (statistics pass 6, output map 11 with the store; disassembly of
// layer_norm_fwd_bf16__x86_avx512_bf16_c0), ~0.7 cycles an element at ~3
// GHz: 3.5-4.8 G elements/s, below oneDNN's bf16 on cache-resident shapes
// (4096x1024: 16.1 vs 21.5 GB/s). Since then the maps and sums use fused
// multiply-adds (generators/fused_multiply_add.h; output map 9 ops): in an
// A/B of row_norm_bench at M=4096, 1 thread (medians of 4 interleaved runs),
// LayerNorm forward bf16 N=1024 12.0 -> 15.1 GB/s, N=4096 11.9 -> 12.9.
#include <algorithm>

#include "schedules/flag_cases.h"
#include "schedules/row_norm_schedule.h"

namespace halnorm {

using Halide::Func;
using Halide::TailStrategy;
using Halide::Var;

namespace {

// Rows this long or longer may prefetch the next rows (the runtime decides
// per call: runtime/row_prefetch.h; shorter ones gained nothing: see
// ScheduleRowNormBackwardCpu).
constexpr int kPrefetchMinHidden = 512;

// Vectorizes a row map along n, with an overlapping last vector when the
// row is wide enough, in each case of the runtime flags (weight present,
// ...: ForEachFlagCase). Rows of kPrefetchMinHidden or more, a whole number
// of vectors long, also prefetch `prefetched` rows_ahead rows ahead when
// prefetch_when holds.
void VectorizeRowMap(Func out, Var n, Halide::Expr hidden, const std::vector<Halide::Expr>& flags,
                     int vw, const std::vector<Halide::ImageParam>& prefetched = {},
                     int rows_ahead = 1,
                     Halide::Expr prefetch_when = Halide::Internal::const_true()) {
  Var n_outer("n_outer"), n_inner("n_inner");
  auto vectorize = [&](Halide::Stage s) {
    if (!prefetched.empty()) {
      // Each vector step asks for the same column rows_ahead rows on: an
      // offset of that many rows' stride in vectors along n_outer. (Halide
      // 14 ignores the offset of prefetch(in, n_outer, row, 1): it bounds
      // the split row's let, not `row`.) RoundUp, exact on these rows, because the min()
      // of ShiftInwards would clamp the prefetch to the current row too.
      // NonFaulting: the last row's run past the buffer, and a prefetch
      // never faults.
      Halide::Stage ahead =
          s.specialize(prefetch_when && hidden >= kPrefetchMinHidden && hidden % vw == 0)
              .split(n, n_outer, n_inner, vw, TailStrategy::RoundUp)
              .vectorize(n_inner);
      for (const Halide::ImageParam& in : prefetched) {
        ahead.prefetch(in, n_outer, n_outer, in.dim(1).stride() * rows_ahead / vw,
                       Halide::PrefetchBoundStrategy::NonFaulting);
      }
    }
    s.specialize(hidden >= vw)
        .split(n, n_outer, n_inner, vw, TailStrategy::ShiftInwards)
        .vectorize(n_inner);
  };
  ForEachFlagCase(out, flags, vectorize);
}

// A sum's halving stages (RowReduction::Halvings). Only the 4-lane stage is
// computed, as one vector: the wider stages inline into it (4-lane slices
// of the folded vector, extracted and added) and the narrower ones into the
// total. With every stage a vector of its own, LLVM 14 spilled each one
// and rebuilt its upper half lane by lane through scalar registers.
// LayerNorm bf16 forward 4096x128, 1 thread, ns a row, with the shift's
// head a vector too: 34.6 with the scalar trees these replaced, 40 with
// every stage computed, 29.8 like this.
void ScheduleHalvings(const std::vector<Func>& halvings, Var lane, Halide::LoopLevel at) {
  constexpr int kComputedLanes = 4;
  int half = 1 << halvings.size();
  for (Func stage : halvings) {
    half /= 2;
    if (half == kComputedLanes) stage.compute_at(at).vectorize(lane, kComputedLanes);
  }
}

// Each step along the row updates all accumulators (one vector each,
// unrolled), so a row reduction streams the row once; the fold across
// accumulators is one vector add each, the fold across lanes halvings.
void ScheduleLaneAccumulators(Func lanes, Func fold, const std::vector<Func>& halvings, Var lane,
                              Halide::RVar chunk, Halide::LoopLevel at, int vw) {
  Var acc("acc"), simd("simd");
  lanes.compute_at(at).vectorize(lane, vw).unroll(lane);
  lanes.update().split(lane, acc, simd, vw).vectorize(simd).unroll(acc).reorder(simd, acc, chunk);
  fold.compute_at(at).vectorize(lane, vw);
  ScheduleHalvings(halvings, lane, at);
}

}  // namespace

// Statistics in groups (knobs.stats_rows > 1): each group's rows get their
// statistics first, stage by stage over the group, then their outputs row by
// row. A row's statistics end in a chain of dependent scalar ops (the
// horizontal sums, 1/sqrt); row by row, the output map waits on it, while
// stage by stage the chains of the group's rows overlap. The group's rows
// must stay in cache until their outputs read them, so the tuner keeps
// groups for short rows. LayerNorm forward, 1 thread, GB/s (standalone
// kernels, x86_avx512_bf16 / x86_avx512, config vw16 acc2 rows_per_task 64),
// stats_rows 1 -> 16:
//   bf16 4096x128 18.0 -> 32.7, 4096x1024 36.9 -> 47.8, 1024x4096 44.9 ->
//   47.7, 64x16384 37.9 -> 36.0, 1x2048 0.35 -> 0.36 us a call;
//   f32 4096x128 56 -> 67, 4096x1024 66 -> 38 (37 in groups of 4 rows, so
//   not the group's footprint), 1024x16384 26.7 -> 23.1.
// Grouping loses on rows that come from DRAM. Sampled (perf, cpu-clock), f32
// 16384x1024 spent 133 vs 138 ns a row in the sums pass, grouped or not, but
// 155 vs 45 in the output pass, which in a group reads only cached rows:
// row by row, the next row's DRAM reads overlap this row's output pass.
// Streaming stores did not help; prefetching the next group's rows from the
// output pass won back a third (4096x1024 34 -> 45 GB/s). Row buckets
// above 4096 rows (runtime/tuning_buckets.h) let the tuner keep such calls
// ungrouped. Prefetching x one group ahead from the output map, as the
// 16-bit backward does, lost with the tuned table's configs (x86_avx512_bf16,
// 1 thread, dispatch, medians of 2 interleaved runs, before -> after):
// LayerNorm bf16 512x4096 179 -> 216 us, 16384x4096 9.36 -> 10.1 ms,
// 4096x16384 9.50 -> 9.90 ms, 4096x2048 957 -> 941 us; f16 16384x4096 13.3
// -> 13.2 ms.
void ScheduleRowNormForwardCpu(RowNormForwardFuncs f, const CpuRowNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  const int stats_rows = std::min(knobs.stats_rows, knobs.rows_per_task);
  Var task("task"), row("row"), group("group"), in_group("in_group");
  auto split_rows = [&](Func out) -> Func& {
    return out.split(f.r, task, row, f.task_rows, TailStrategy::GuardWithIf)
        .split(row, group, in_group, stats_rows, TailStrategy::GuardWithIf)
        .parallel(task)
        .parallel(f.b);
  };

  // The outputs share one loop nest over rows, so the statistics are
  // computed once per row and the row is read from DRAM once.
  std::vector<Func> row_looped = f.per_row_outputs;
  if (f.residual_out.defined()) row_looped.push_back(f.residual_out);
  for (Func out : row_looped) split_rows(out).compute_with(f.y, in_group);
  split_rows(f.y);
  if (f.residual_out.defined()) f.residual_out.vectorize(f.n, vw, TailStrategy::GuardWithIf);

  // y: one specialization per affine case (weight/bias present).
  VectorizeRowMap(f.y, f.n, f.hidden, f.affine_flags, vw);
  // Sized by the group (one line of it), not by what is left of the task:
  // with task_rows a runtime input, Halide 14 sizes them symbolically, so
  // they went to the heap (as in the backward below).
  for (Func stat : f.stats) {
    stat.compute_at(f.y, group).bound_storage(f.r, stats_rows).bound_storage(f.b, 1);
  }
  ScheduleLaneAccumulators(f.lane_sums, f.lane_fold, f.fold_halvings, f.lane, f.chunk,
                           {f.sums, f.r}, vw);
  if (f.shift_lanes.defined()) {
    // Rows at least as long as the head read it as vectors, not clamped lanes.
    const int head = 1 << f.shift_halvings.size();
    f.shift_lanes.compute_at(f.shift, f.r)
        .specialize(f.hidden >= head)
        .vectorize(f.lane, std::min(vw, head));
    ScheduleHalvings(f.shift_halvings, f.lane, {f.shift, f.r});
  }
}

// Backward: chunks of rows are the parallel tasks. Per chunk, dx row by row
// (row sums in cache), then that chunk's dweight/dbias partials, re-reading
// the chunk's rows while they are still in L2 (the runtime sizes chunks for
// that). Fixed chunks make the partials independent of the thread count.
// (Fusing the partials into dx's row loop would save the L2 re-read, but
// Halide 14's compute_with cannot match dx's split row loop with the
// partials' RDom loop: their loop names differ.) The partials' walk goes
// a tile of columns at a time, rows inside it (see the end of
// ScheduleRowNormBackwardCpu). One vector of columns at a time, tried
// before, was 2.5x slower (its sums, presumably, one chain of dependent adds).
//
// Measured (as above; dx streamed from 16 MiB), LayerNorm backward, GB/s
// (fraction of hot copy-add or DRAM STREAM add; ratio to oneDNN 2.6):
//   shape        dtype  1 thread                    2 threads
//   4096x768     f32    14.2 (0.41, 1.05x oneDNN)   25.1 (0.53, 1.11x)
//   16384x4096   f32     9.3 (0.68, 1.45x)          16.4 (0.75, 1.26x)
//   16384x16384  f32     9.1 (0.78, 1.32x)          18.4 (0.82, 1.42x)
//   16384x4096   f16     6.8 (0.55)                 10.9 (0.51)
//   16384x4096   bf16    5.6 (0.42)                  9.2 (0.54)
// AVX-512 VM (as for the forward above):
//   4096x768     f32    21.3 (0.52, 1.03x oneDNN)   42.3 (0.51, 0.91x)
//   16384x4096   f32    13.6 (0.67, 1.50x)          23.9 (0.70, 1.52x)
//   16384x16384  f32    12.8 (0.66, 1.37x)          25.7 (1.02, 1.78x)
//   16384x4096   f16     8.6 (0.43)                 15.6 (0.48)
//   16384x4096   bf16    7.9 (0.43, 0.91x)          15.1 (0.45, 0.95x)
//   16384x16384  bf16    7.7 (0.38, 0.99x)          14.3 (0.47, 1.00x)
// With fused multiply-adds (A/B as for the forward above), M=4096, 1 thread:
// bf16 N=1024 5.6 -> 7.5 GB/s, N=4096 8.0 -> 9.2; f16 5.5 -> 8.3, 7.7 ->
// 9.7; f32 11.0 -> 13.7, 12.1 -> 12.4.
//
// Reading the rows from memory did not overlap the arithmetic: each row's
// sums pass waits on memory, then its dx pass and the partials compute with
// memory idle. bf16 LayerNorm 4096x4096 (x86_avx512 kernel, plain stores,
// 1 thread): 11.3 ms; 8.2 ms with every row of dy and x at one address (so
// in L1). So dx may prefetch the next row's dy and x as it goes (when the
// kernel's prefetch_rows input says so: runtime/row_prefetch.h decides per
// CPU). On that AMD Zen 4, A/B of that kernel with and without (medians of
// 15 interleaved runs, 1 thread, GB/s):
//   bf16 4096x4096 8.99 -> 10.02, 1024x4096 10.93 -> 12.36, 2048x16384
//   8.06 -> 9.01, 8192x2048 9.85 -> 10.49, 64x4096 (in L2) 13.52 -> 13.46,
//   16384x1024 11.79 -> 11.41 (rows this short: no prefetch); 2 threads,
//   4096x4096 15.7 -> 17.1;
//   f16 4096x4096 9.65 -> 10.50, 2048x16384 8.37 -> 9.15, 16384x1024 0.93x;
//   f32 only 0.95-1.03x at N >= 4096, 0.88x at N=1024.
// So there f32 prefetches only on calls the runtime streams (too large to
// stay cached) with rows of at most 4096. From cache it lost (JIT A/B
// of x86_avx512, plain stores, 1 thread: 16x4096 18 -> 21 us, 64x8192 170
// -> 195-233 us), and so did longer rows (4096x16384 51 -> 57 ms). Through
// dispatch (tuned configs, streaming stores, 1 thread, GB/s, 2-3
// interleaved runs): LayerNorm 16384x4096 20.5 -> 23.7, 4096x4096 20.6 ->
// 21.9, 4096x2048 23.1 -> 24.1, 16384x2048 22.9 -> 23.4; RMSNorm 16384x4096
// 25.4 -> 26.5, 16384x2048 and 4096x2048/4096 within +-3%; 2 threads
// LayerNorm 16384x4096 35 -> 36-44, the rest within +-3%.
// On an Intel Xeon VM it lost on every call, by up to 2.5x (figures in
// runtime/row_prefetch.h).
// Rows of 512 to 2047 elements prefetch too (from 2048 before, after the
// 16384x1024 loss above). The built kernels, without -> with in one process
// (prefetch_rows toggled per call; the AMD table's configs c3 / c1, 1
// thread, medians of 11 side-by-side rounds): LayerNorm bf16
// (x86_avx512_bf16) 4096x768 1.11x / 1.17x, 4096x1024 1.09x / 1.14x,
// 2048x1024 1.09x / 1.02x, 8192x768 1.02x / 1.11x, 16384x768 1.08x /
// 1.06x, 4096x512 1.06x, 512x768 1.02x / 0.94x; 2 threads (c3)
// 1.01x-1.14x; RMSNorm bf16 4096x768 1.16x / 1.12x, 4096x1024 1.25x /
// 1.30x, 16384x1024 1.10x / 1.12x; LayerNorm f16 (x86_avx512 c1)
// 0.97x-1.04x. Below 512 it gained nothing (JIT A/B, bf16 4096x256 0.98x).
// f32 lost at 256-1024 (JIT A/B: 4096x768 0.89x, 4096x1024 0.76x, 512x1024
// 0.92x), so the runtime keeps f32 to rows of 2048+.
//
// Row sums in groups (knobs.stats_rows > 1), as in the forward: each row's
// two horizontal sums end in a dependent chain dx waits on. LayerNorm
// backward, 1 thread, GB/s (standalone kernels, vw16 acc2; x86_avx512_bf16
// / x86_avx512), stats_rows 1 -> 4 -> 16:
//   bf16 4096x128 15.2 -> 22.9 -> 24.3, 16384x128 15.2 -> 22.7 -> 24.6,
//   4096x768 25.8 -> 26.1 -> 26.2, 16384x768 20.8 -> 19.2 -> 17.8,
//   1024x4096 25.1 -> 25.4 -> 23.9;
//   f32 4096x128 32.6 -> 42.4 -> 46.9, 4096x768 31.6 -> 26.6 -> 24.7,
//   4096x1024 27.0 -> 24.6 -> 24.1.
void ScheduleRowNormBackwardCpu(RowNormBackwardFuncs f, const CpuRowNormKnobs& knobs) {
  const int vw = knobs.vector_width;
  Var row("row"), group("group"), in_group("in_group");
  f.dx.split(f.r, f.c, row, f.rows_per_chunk, TailStrategy::GuardWithIf)
      .split(row, group, in_group, knobs.stats_rows, TailStrategy::GuardWithIf)
      .parallel(f.c)
      .parallel(f.b);
  // Grouped, the rows read next are the next group's.
  VectorizeRowMap(f.dx, f.n, f.hidden, f.dx_flags, vw, f.prefetched_rows, knobs.stats_rows,
                  f.prefetch_when);
  // A group's row sums, sized by the group rather than by what is left of
  // the chunk (rows_per_chunk is a runtime input), go on the stack; sized by
  // the chunk they were a malloc and free per group. LayerNorm backward, 1
  // thread, us a call (medians of 3 interleaved runs): bf16 1x128 0.92 ->
  // 0.77, 16x128 1.50 -> 1.29, 512x128 17.6 -> 17.2; f32 1x128 0.80 -> 0.71,
  // 4096x128 187 -> 180; 16x768 and 4096x768 bf16, 16x4096 f32 unchanged.
  for (Func stat : f.stats) stat.compute_at(f.dx, group).bound_storage(f.r, knobs.stats_rows);
  ScheduleLaneAccumulators(f.lane_sums, f.lane_fold, f.fold_halvings, f.lane, f.chunk,
                           {f.sums, f.r}, vw);
  // The partials' walk, a tile of columns at a time: each tile walks the
  // chunk's rows in order with its sums in registers (half of them, split
  // between dweight's and dbias's), and stores them once per chunk. Before,
  // each partial walked the chunk row by row over the whole width, loading
  // and storing every sum on every row, and LayerNorm's two walks read dy
  // twice. The built kernels against a JIT compile of the old walks, side
  // by side (kernel_ab), 1 thread, old time / new time
  // (x86_avx512 and x86_avx512_bf16 kernels, knobs of configs c0 / c3):
  //   LayerNorm f32  512x128 1.20 / 1.19, 4096x128 1.23 / 1.25, 16384x128
  //                  1.15 / 1.21, 4096x768 1.09 / 1.10, 4096x1024 1.06 /
  //                  1.05, 1024x4096 1.24 / 1.22, 256x16384 1.15 / 1.10;
  //   LayerNorm bf16 512x128 1.27 / 1.25, 4096x128 1.37 / 1.39, 16384x128
  //                  1.23 / 1.38, 4096x768 1.16 / 1.24, 4096x1024 1.13 /
  //                  1.21, 1024x4096 1.14 / 1.12, 256x16384 1.01 / 1.08;
  //   RMSNorm (one partial, so only the registers): f32 0.98-1.12, bf16
  //   0.89-1.06 (long rows at the low end, within this VM's noise).
  Func out = f.partials;
  const int parts = f.partial_walk.outputs();
  const int tile = std::max(vw, f.register_lanes * f.vector_registers / 2 / parts / vw * vw);
  Var tile_n("tile_n"), in_tile("in_tile"), vectors("vectors"), lanes("lanes");
  out.split(f.n, tile_n, in_tile, tile, TailStrategy::GuardWithIf)
      .split(in_tile, vectors, lanes, vw)
      .reorder(lanes, vectors, f.part, tile_n, f.c, f.b)
      .vectorize(lanes)
      .unroll(vectors)
      .unroll(f.part)
      .parallel(f.c)
      .parallel(f.b)
      .compute_with(f.dx, f.c);
  f.partial_walk.compute_at(out, tile_n).bound_storage(f.n, tile);
  for (Halide::Stage s : {Halide::Stage(f.partial_walk), f.partial_walk.update()}) {
    s.split(f.n, vectors, lanes, vw, TailStrategy::GuardWithIf).vectorize(lanes).unroll(vectors);
  }
  f.partial_walk.update().reorder(lanes, vectors, f.in_chunk);
}

}  // namespace halnorm
