// Row-norm backward: dx of LayerNorm or RMSNorm for each row, plus
// per-chunk partial sums of dweight (and dbias) that the runtime adds up in
// a fixed order, so the result does not depend on the thread count.
//
// Buffers are (n, r, b) as in the forward generator. Signature (added in
// configure(), bound by name):
//   dy, x, [mean], rstd, weight, dresidual, has_weight, has_dresidual,
//   [weight_offset], rows_per_chunk, [prefetch_rows]
//   ->  dx, partials (CPUs) | dweight_partial, [dbias_partial] (GPUs)
// [mean, dbias_partial] only for layer, [weight_offset] only on GPUs,
// [prefetch_rows] only on CPUs.
// CPU partials are (n, chunk, b, part), f32, chunk = r / rows_per_chunk,
// part 0 dweight's and (layer) 1 dbias's. GPU partials are (n, 0, b) each,
// already summed over the chunks.
#include "Halide.h"
#include "generators/activations.h"
#include "generators/fused_multiply_add.h"
#include "generators/gpu_rows.h"
#include "generators/norm_types.h"
#include "generators/row_reduction.h"
#include "schedules/row_norm_schedule.h"

namespace halnorm {
namespace {

using namespace Halide;

class RowNormBackward : public Generator<RowNormBackward> {
 public:
  GeneratorParam<NormKind> kind{"kind", NormKind::kLayer, kNormKinds};
  GeneratorParam<std::string> dtype{"dtype", "f32"};  // activations: f32, f16, bf16
  // Schedule knobs, also searched by the autotuner. vector_width: f32 lanes
  // per SIMD register on CPUs, elements a thread loads a step on GPUs.
  GeneratorParam<int> vector_width{"vector_width", 8};
  GeneratorParam<int> accumulators{"accumulators", 4};
  GeneratorParam<int> stats_rows{"stats_rows", 1};
  // GPU targets' knobs (schedules/row_norm_schedule.h, GpuRowNormKnobs).
  GeneratorParam<int> threads{"threads", 32};
  GeneratorParam<int> rows_per_block{"rows_per_block", 4};
  // Applied to 16-bit activations only: f32 steps are 16-byte loads, and
  // unrolling them ran slower (schedules/configs.bzl).
  GeneratorParam<int> unroll{"unroll", 1};

  void configure() {
    const Type act = KernelActivationType(dtype, get_target());
    const bool layer = kind == NormKind::kLayer;
    dy_ = add_input<Buffer<>>("dy", act, 3);
    x_ = add_input<Buffer<>>("x", act, 3);
    if (layer) mean_ = add_input<Buffer<float>>("mean", 3);
    rstd_ = add_input<Buffer<float>>("rstd", 3);
    // weight and dresidual are always bound; the runtime passes a
    // placeholder when has_weight / has_dresidual is false. weight is
    // (n, r, b) like x (see the forward generator).
    weight_ = add_input<Buffer<float>>("weight", 3);
    dresidual_ = add_input<Buffer<>>("dresidual", act, 3);
    has_weight_ = add_input<bool>("has_weight");
    has_dresidual_ = add_input<bool>("has_dresidual");
    // GPU kernels add options.weight_offset themselves (see the forward).
    if (get_target().has_gpu_feature()) weight_offset_ = add_input<float>("weight_offset");
    rows_per_chunk_ = add_input<int>("rows_per_chunk");
    // CPUs: whether dx prefetches rows ahead, the runtime's choice per CPU
    // and call (row_prefetch.h).
    if (!get_target().has_gpu_feature()) prefetch_rows_ = add_input<bool>("prefetch_rows");
    dx_ = add_output<Buffer<>>("dx", act, 3);
    if (get_target().has_gpu_feature()) {
      dweight_partial_ = add_output<Buffer<float>>("dweight_partial", 3);
      if (layer) dbias_partial_ = add_output<Buffer<float>>("dbias_partial", 3);
    } else {
      partials_ = add_output<Buffer<float>>("partials", 4);
    }
  }

  void generate() {
    RowNormBackwardFuncs f;
    f.n = Var("n");
    f.r = Var("r");
    f.b = Var("b");
    f.lane = Var("lane");
    f.c = Var("c");
    const Var &n = f.n, &r = f.r, &b = f.b, &lane = f.lane, &c = f.c;
    const bool layer = kind == NormKind::kLayer;
    const Activations acts(dtype, get_target(), *get_externs_map());
    const FusedMultiplyAdd fma(get_target(), *get_externs_map());
    const bool gpu = get_target().has_gpu_feature();
    Input<Buffer<>>& x = *x_;
    Input<Buffer<>>& dy = *dy_;
    Output<Buffer<>>& dx = *dx_;

    // ---- Algorithm -------------------------------------------------------
    Expr hidden = x.dim(0).extent();
    Expr rows = x.dim(1).extent();
    f.hidden = hidden;
    Func dyf("dyf"), centered("centered"), xhat("xhat"), g("g");
    const Expr read_row = gpu ? ReadableRow(x, r) : Expr(r);
    Expr rstd = (*rstd_)(0, read_row, b);
    dyf(n, r, b) = acts.ToF32(dy(n, read_row, b));
    Expr xf = acts.ToF32(x(n, read_row, b));
    centered(n, r, b) = layer ? xf - (*mean_)(0, read_row, b) : xf;
    xhat(n, r, b) = centered(n, r, b) * rstd;
    Expr weight = (*weight_)(n, read_row, b);
    if (weight_offset_ != nullptr) weight += *weight_offset_;
    // Rounded on its own: g - mean(g) below must be exactly 0 for a
    // one-element row.
    g(n, r, b) = fma.RoundedProduct(dyf(n, r, b), select(*has_weight_, weight, 1.f));

    const bool unrolled = gpu && dtype.value() != "f32";
    const GpuRowNormKnobs gpu_knobs = {threads, rows_per_block, vector_width,
                                       unrolled ? unroll : 1};
    const RowReduction row_sums(lane, r, b, hidden, vector_width, gpu ? threads : accumulators, fma,
                                gpu_knobs.unroll);
    f.chunk = row_sums.chunk();
    f.tail = row_sums.tail();
    // Both row sums in one walk along the row.
    std::vector<RowTerm> terms = {{g, xhat}};
    if (layer) terms.push_back({g});
    Func sums = gpu ? row_sums.ThreadSum("sums", terms, &f.lane_sums, &f.fold_stages)
                    : row_sums.Sum("sums", terms, &f.lane_sums, &f.lane_fold, &f.fold_halvings);
    f.stats.push_back(sums);
    f.sums = sums;
    // dnorm = g - mean(g) - xhat * mean(g * xhat) (RMSNorm: without mean(g)),
    // the last product fused. g - mean(g) subtracts the rounded g the sum
    // added up, so a one-element row gets exactly 0 (fused, the product's
    // rounding error would be left, times an rstd of up to 1/sqrt(eps)).
    // xhat * mean(g * xhat) is computed as (x - mean) * (rstd * mean(g *
    // xhat)), a per-row factor: one multiply fewer per element, which the
    // compute-bound 16-bit backwards feel (Zen 4, 1 thread, built kernels
    // against the xhat form, medians of 5-7 alternating runs: bf16 from
    // cache 1.02-1.04x, f16 1.00-1.02x, from DRAM 0.99-1.02x, f32 1.00x).
    // The factor keeps mean(g * xhat)'s magnitude times rstd, so subnormal
    // gradients lose no more than xhat's product does (folding rstd twice,
    // rstd^2 * mean(g * xhat), did: it left RMSNorm f32 dx 2 subnormal ulps
    // off in edge_numerics_test). The row sums keep g * xhat: g * (x - mean)
    // overflows where a row's variance already did (rstd 0), and 0 * inf
    // would make that row's dx NaN instead of 0.
    Expr inv_hidden = 1.f / cast<float>(hidden);
    Expr g_centered = layer ? g(n, r, b) - sums(r, b)[1] * inv_hidden : g(n, r, b);
    Expr centered_factor = -(RowReduction::Element(sums, 0, {r, b}) * (rstd * inv_hidden));
    Expr dnorm = fma(centered(n, r, b), centered_factor, g_centered);
    Expr extra = select(*has_dresidual_, acts.ToF32((*dresidual_)(n, read_row, b)), 0.f);
    dx(n, r, b) = acts.Store(fma(rstd, dnorm, extra));

    // Per-chunk partials: rows [c*rows_per_chunk, (c+1)*rows_per_chunk), in
    // row order within the chunk.
    RDom in_chunk(0, *rows_per_chunk_, "in_chunk");
    const Expr chunk_row = c * *rows_per_chunk_ + in_chunk;
    const Expr chunk_count = (rows + *rows_per_chunk_ - 1) / *rows_per_chunk_;
    // CPU: a predicate. GPU: the rows past the end add nothing (a select),
    // so that the unrolled walk's loads need no branch around them.
    if (!gpu) in_chunk.where(chunk_row < rows);
    // Bounds inference ignores the predicate under the fused chunk loop, so
    // the (never used) rows past the end are clamped for it.
    Expr row = min(chunk_row, rows - 1);
    f.in_chunk = in_chunk;
    // GPU: the chunk partials are an inner stage, and each output holds
    // their sum (extent 1 along c), so the result stays on the device.
    // Each row adds factor * other_factor (just factor, when other_factor
    // is undefined): dweight's dy * xhat, dbias's dy.
    std::vector<RowTerm> partial_terms = {{dyf, xhat}};
    if (layer) partial_terms.push_back({dyf});
    const int part_count = static_cast<int>(partial_terms.size());
    // chunk_walk(n, c, b): the sums of the terms over chunk c's rows, in row
    // order. Both partials in one walk (one read of dy and x), in a stage of
    // its own: the schedules keep its sums in registers.
    Func chunk_walk("chunk_walk");
    chunk_walk(n, c, b) = Tuple(std::vector<Expr>(part_count, 0.f));
    std::vector<Expr> walked;
    for (int i = 0; i < part_count; i++) {
      const RowTerm& t = partial_terms[i];
      Expr sum = RowReduction::Element(chunk_walk, i, {n, c, b});
      Expr other = t.other_factor.defined() ? Expr(t.other_factor(n, row, b)) : Expr();
      Expr next = fma.Accumulate(sum, t.factor(n, row, b), other);
      walked.push_back(gpu ? select(chunk_row < rows, next, sum) : next);
    }
    chunk_walk(n, c, b) = Tuple(walked);
    f.partial_walk = chunk_walk;
    if (!gpu) {
      const Var part("part");
      f.part = part;
      Output<Buffer<float>>& out = *partials_;
      out(n, c, b, part) = layer ? select(part == 0, chunk_walk(n, c, b)[0], chunk_walk(n, c, b)[1])
                                 : Expr(chunk_walk(n, c, b));
      f.partials = out;
      // The walk's tile size follows the register file: 32 SIMD registers
      // with AVX-512 and on 64-bit ARM, 16 with AVX2.
      const Target t = get_target();
      f.register_lanes = t.natural_vector_size<float>();
      f.vector_registers = t.has_feature(Target::AVX512) || t.arch == Target::ARM ? 32 : 16;
    } else {
      // GPU: the walk's sums, stored (ScheduleRowNormBackwardGpu).
      Func chunk_sums("chunk_sums");
      chunk_sums(n, c, b) = chunk_walk(n, c, b);
      f.partials = chunk_sums;
      std::vector<Output<Buffer<float>>*> partial_outputs = {dweight_partial_};
      if (layer) partial_outputs.push_back(dbias_partial_);
      // Then each output sums the chunks in two ordered levels, so that the
      // walk is short for any number of chunks: kChunkGroups groups of
      // consecutive chunks, then the groups. The order depends on the chunk
      // count only, not on the launch shape.
      const Expr per_group = (chunk_count + kChunkGroups - 1) / kChunkGroups;
      RDom in_group(0, per_group, "in_group"), groups(0, kChunkGroups, "groups");
      f.in_group = in_group;
      f.over_groups = groups;
      const Var group("group");
      f.group = group;
      const Expr chunk = group * per_group + in_group;
      for (size_t i = 0; i < partial_outputs.size(); i++) {
        const std::string name = partial_outputs[i]->name();
        Func group_walk("group_walk_" + name), group_sums("group_sums_" + name),
            total_walk("total_walk_" + name);
        group_walk(n, group, b) = 0.f;
        group_walk(n, group, b) =
            select(chunk < chunk_count,
                   group_walk(n, group, b) +
                       RowReduction::Element(chunk_sums, i, {n, min(chunk, chunk_count - 1), b}),
                   group_walk(n, group, b));
        group_sums(n, group, b) = group_walk(n, group, b);
        total_walk(n, c, b) = 0.f;
        total_walk(n, c, b) += group_sums(n, groups, b);
        Output<Buffer<float>>& out = *partial_outputs[i];
        out(n, c, b) = total_walk(n, c, b);
        f.partial_sums.push_back(out);
        f.group_walks.push_back(group_walk);
        f.group_sums.push_back(group_sums);
        f.total_walks.push_back(total_walk);
      }
    }

    for (int d = 0; d < 3; d++) {
      dy.dim(d).set_bounds(dx.dim(d).min(), dx.dim(d).extent());
      x.dim(d).set_bounds(dx.dim(d).min(), dx.dim(d).extent());
      dresidual_->dim(d).set_bounds(dx.dim(d).min(), dx.dim(d).extent());
    }
    weight_->dim(0).set_bounds(0, hidden);
    dx.dim(0).set_min(0);
    // CPU: the partials cover exactly the chunks and lines of dx's loops (as
    // the runtime allocates them). Unstated, Halide guarded each stage fused
    // into those loops by its own bounds and partitioned the loops on the
    // guards: twice the code (LayerNorm f32 AVX2 kernel: 15.6k -> 7.0k stmt
    // lines), and twice the compile time, of every CPU backward kernel.
    if (!gpu) {
      dx.dim(1).set_min(0);
      partials_->dim(0).set_bounds(0, hidden);
      partials_->dim(1).set_bounds(0, chunk_count);
      partials_->dim(2).set_bounds(dx.dim(2).min(), dx.dim(2).extent());
      partials_->dim(3).set_bounds(0, part_count);
    }

    // ---- Estimates (GPT-2-small-like activations) -------------------------
    // A hidden size with a scalar tail: Halide 14's Adams2019 asserts on the
    // empty tail region of a size that is a multiple of the lane count.
    const int est_hidden = 1000, est_rows = 4096, est_chunk = 32;
    const Region rows_estimate = {{0, est_hidden}, {0, est_rows}, {0, 1}};
    const Region per_row_estimate = {{0, 1}, {0, est_rows}, {0, 1}};
    const Region partial_estimate = {{0, est_hidden}, {0, est_rows / est_chunk}, {0, 1}};
    const Region parts_estimate = {
        {0, est_hidden}, {0, est_rows / est_chunk}, {0, 1}, {0, part_count}};
    for (Input<Buffer<>>* in : {dy_, x_, dresidual_}) in->set_estimates(rows_estimate);
    if (layer) mean_->set_estimates(per_row_estimate);
    rstd_->set_estimates(per_row_estimate);
    weight_->set_estimates(rows_estimate);
    has_weight_->set_estimate(true);
    has_dresidual_->set_estimate(false);
    if (weight_offset_ != nullptr) weight_offset_->set_estimate(0.f);
    rows_per_chunk_->set_estimate(est_chunk);
    dx.set_estimates(rows_estimate);
    if (gpu) {
      dweight_partial_->set_estimates(partial_estimate);
      if (layer) dbias_partial_->set_estimates(partial_estimate);
    } else {
      partials_->set_estimates(parts_estimate);
    }

    // ---- Schedule ---------------------------------------------------------
    f.dx = dx;
    f.rows_per_chunk = *rows_per_chunk_;
    f.dx_flags = {*has_weight_, *has_dresidual_};
    if (gpu) {
      RequireAlignedRows({dy, x, *dresidual_, dx}, vector_width);
      ScheduleRowNormBackwardGpu(f, gpu_knobs);
    } else if (!auto_schedule) {
      f.prefetched_rows = {dy, x};
      f.prefetch_when = *prefetch_rows_;
      ScheduleRowNormBackwardCpu(f, {vector_width, accumulators, /*rows_per_task=*/1, stats_rows});
    }
  }

 private:
  Input<Buffer<>>* dy_ = nullptr;
  Input<Buffer<>>* x_ = nullptr;
  Input<Buffer<float>>* mean_ = nullptr;
  Input<Buffer<float>>* rstd_ = nullptr;
  Input<Buffer<float>>* weight_ = nullptr;
  Input<Buffer<>>* dresidual_ = nullptr;
  Input<bool>* has_weight_ = nullptr;
  Input<bool>* has_dresidual_ = nullptr;
  Input<float>* weight_offset_ = nullptr;
  Input<int>* rows_per_chunk_ = nullptr;
  Input<bool>* prefetch_rows_ = nullptr;
  Output<Buffer<>>* dx_ = nullptr;
  Output<Buffer<float>>* dweight_partial_ = nullptr;
  Output<Buffer<float>>* dbias_partial_ = nullptr;
  Output<Buffer<float>>* partials_ = nullptr;
};

}  // namespace
}  // namespace halnorm

HALIDE_REGISTER_GENERATOR(halnorm::RowNormBackward, row_norm_backward)
