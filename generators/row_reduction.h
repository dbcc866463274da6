// The row reduction both row-norm generators use: a sum along n of each row,
// kept as vector_width x accumulators lane sums (vector accumulators), folded
// first across accumulators (vector adds), then across the vector's lanes
// by halving (a balanced tree of vector adds, not a scalar chain: at N=128
// the row's fixed cost is most of its time), plus a scalar tail. The lane
// counts fix the summation order, so they belong to the algorithm; the
// schedule vectorizes the accumulator and fold Funcs.
#ifndef HALNORM_GENERATORS_ROW_REDUCTION_H_
#define HALNORM_GENERATORS_ROW_REDUCTION_H_

#include <string>
#include <vector>

#include "Halide.h"
#include "generators/fused_multiply_add.h"

namespace halnorm {

// What a row sum adds up at each n: factor(n, r, b), or, with other_factor
// defined, factor * other_factor, accumulated by one fused multiply-add.
struct RowTerm {
  Halide::Func factor;
  Halide::Func other_factor;
};

class RowReduction {
 public:
  // step_multiple: the walk's steps (chunk) are rounded up to a multiple of
  // it; the steps past the row add nothing, and their loads read the row's
  // last step again. So a schedule that unrolls that many steps has no
  // branch around their loads, and can issue them together (GPUs, where a
  // step's loads wait a full memory latency).
  RowReduction(Halide::Var lane, Halide::Var r, Halide::Var b, Halide::Expr hidden,
               int vector_width, int accumulators, const FusedMultiplyAdd& fma,
               int step_multiple = 1)
      : fma_(fma),
        lane_(lane),
        r_(r),
        b_(b),
        vector_width_(vector_width),
        accumulators_(accumulators),
        lanes_(vector_width * accumulators),
        hidden_(hidden),
        steps_(hidden / lanes_),
        step_multiple_(step_multiple),
        chunk_(0,
               step_multiple > 1 ? (steps_ + step_multiple - 1) / step_multiple * step_multiple
                                 : steps_,
               "chunk"),
        tail_(hidden / lanes_ * lanes_, hidden % lanes_, "tail") {}

  // Returns total(r, b) = sum over n of term(n, r, b), one Tuple element per
  // term, all accumulated in one walk along the row (each term read once).
  // Sets *lane_acc to the accumulator Func(lane, r, b), *lane_fold to the
  // accumulators folded into one vector, Func(lane, r, b) with lane <
  // vector_width, and *halvings to that vector's Halvings, for the
  // schedule. With one term, total is an ordinary single-valued Func.
  Halide::Func Sum(const std::string& name, const std::vector<RowTerm>& terms,
                   Halide::Func* lane_acc, Halide::Func* lane_fold,
                   std::vector<Halide::Func>* halvings) const {
    using Halide::Expr;
    *lane_acc = LaneAccumulators(name, terms);
    *lane_fold = Halide::Func("fold_" + name);
    std::vector<Expr> folded, totals;
    for (size_t i = 0; i < terms.size(); i++) {
      Expr across_accumulators = Element(*lane_acc, i, {lane_, r_, b_});
      for (int a = 1; a < accumulators_; a++) {
        across_accumulators += Element(*lane_acc, i, {lane_ + a * vector_width_, r_, b_});
      }
      folded.push_back(across_accumulators);
    }
    (*lane_fold)(lane_, r_, b_) = Halide::Tuple(folded);
    *halvings = Halvings(name, *lane_fold, vector_width_, lane_, r_, b_);
    const Halide::Func& last = halvings->empty() ? *lane_fold : halvings->back();
    for (size_t i = 0; i < terms.size(); i++) totals.push_back(Element(last, i, {0, r_, b_}));
    return TotalWithTail(name, terms, totals);
  }

  // The sum of lanes(lane, r, b) over lane < width (a power of two) as
  // log2(width) halving stages: stage k adds lane l + half to lane l for l <
  // half = width >> k. Lane 0 of the last stage is the total. On CPUs each
  // stage is a vector add of the previous one's two halves.
  static std::vector<Halide::Func> Halvings(const std::string& name, const Halide::Func& lanes,
                                            int width, Halide::Var lane, Halide::Var r,
                                            Halide::Var b) {
    std::vector<Halide::Func> stages;
    Halide::Func previous = lanes;
    for (int half = width / 2; half >= 1; half /= 2) {
      std::vector<Halide::Expr> halved;
      for (int i = 0; i < previous.outputs(); i++) {
        halved.push_back(Element(previous, i, {lane, r, b}) +
                         Element(previous, i, {lane + half, r, b}));
      }
      stages.emplace_back("half" + std::to_string(half) + "_" + name);
      stages.back()(lane, r, b) = Halide::Tuple(halved);
      previous = stages.back();
    }
    return stages;
  }

  // The sum of lanes(lane, r, b) over lane < width (a power of two) in as
  // few stages as radix <= 32 allows (256 lanes: 16 x 16), each stage one
  // of the GPU's shared-memory round trips with a barrier after it: stage k
  // leaves count = width / (radix_0 ... radix_k) lanes, lane l adding up
  // the previous stage's l + j * count for j < radix_k, so neighbouring
  // threads read neighbouring words (no bank conflicts). Lane 0 of the last
  // stage is the total. Binary halving took log2(width) barriers (8 at 256
  // threads), most of a short row's chain of dependent steps.
  static std::vector<Halide::Func> RadixFolds(const std::string& name, const Halide::Func& lanes,
                                              int width, Halide::Var lane, Halide::Var r,
                                              Halide::Var b) {
    constexpr int kMaxRadixBits = 5;
    int bits = 0;
    while ((1 << bits) < width) bits++;
    const int stages = (bits + kMaxRadixBits - 1) / kMaxRadixBits;
    std::vector<Halide::Func> out;
    Halide::Func previous = lanes;
    int count = width;
    for (int k = 0; k < stages; k++) {
      const int stage_bits = (bits + stages - 1 - k) / (stages - k);  // balanced: 8 = 4 + 4
      bits -= stage_bits;
      count >>= stage_bits;
      std::vector<Halide::Expr> folded;
      for (int i = 0; i < previous.outputs(); i++) {
        Halide::Expr total = Element(previous, i, {lane, r, b});
        for (int j = 1; j < (1 << stage_bits); j++) {
          total += Element(previous, i, {lane + j * count, r, b});
        }
        folded.push_back(total);
      }
      out.emplace_back("fold" + std::to_string(count) + "_" + name);
      out.back()(lane, r, b) = Halide::Tuple(folded);
      previous = out.back();
    }
    return out;
  }

  // The GPU layout of the same reduction (constructed with vector_width =
  // elements one thread loads a step, accumulators = threads per row): lane
  // = thread * vector_width + v, so each thread reads `vector_width`
  // contiguous elements a step (one vector load) and a step of all threads
  // is one coalesced span. Each thread first sums its own vector and its
  // share of the row's tail (fold_stages->front(), (thread, r, b)), then the
  // threads' sums are folded by RadixFolds, and the total is the last stage
  // at thread 0. The summation order differs from Sum()'s; both are
  // balanced trees.
  Halide::Func ThreadSum(const std::string& name, const std::vector<RowTerm>& terms,
                         Halide::Func* lane_acc, std::vector<Halide::Func>* fold_stages) const {
    using Halide::Expr;
    using Halide::Func;
    *lane_acc = LaneAccumulators(name, terms);
    std::vector<Expr> own_vector, totals;
    const Expr tail_begin = hidden_ / lanes_ * lanes_;
    for (size_t i = 0; i < terms.size(); i++) {
      Expr own = Element(*lane_acc, i, {lane_ * vector_width_, r_, b_});
      for (int v = 1; v < vector_width_; v++) {
        own += Element(*lane_acc, i, {lane_ * vector_width_ + v, r_, b_});
      }
      // The row's last hidden % lanes elements (fewer than a step): thread
      // t adds elements t, t + threads, ... of them, so no thread walks the
      // whole tail alone (a serial tail of up to 1023 elements made such
      // rows 5-20x slower on an H100).
      for (int k = 0; k < vector_width_; k++) {
        const Expr at = tail_begin + lane_ + k * accumulators_;
        own = Halide::select(at < hidden_,
                             Accumulate(terms[i], own, {Halide::min(at, hidden_ - 1), r_, b_}),
                             own);
      }
      own_vector.push_back(own);
    }
    fold_stages->assign(1, Func("threads_" + name));
    fold_stages->back()(lane_, r_, b_) = Halide::Tuple(own_vector);
    const std::vector<Func> folds =
        RadixFolds(name, fold_stages->back(), accumulators_, lane_, r_, b_);
    fold_stages->insert(fold_stages->end(), folds.begin(), folds.end());
    for (size_t i = 0; i < terms.size(); i++) {
      totals.push_back(Element(fold_stages->back(), i, {0, r_, b_}));
    }
    Func total("row_" + name);
    total(r_, b_) = Halide::Tuple(totals);
    return total;
  }

  // The accumulators' walk along the row, `lanes` elements a step.
  Halide::RVar chunk() const { return chunk_; }
  // The totals' walk over the elements past the last full step.
  Halide::RVar tail() const { return tail_; }

  // Element i of a (possibly single-valued) Func's value at `at`.
  static Halide::Expr Element(const Halide::Func& f, size_t i,
                              const std::vector<Halide::Expr>& at) {
    return f.outputs() == 1 ? Halide::Expr(f(at)) : f(at)[i];
  }

 private:
  // acc(lane, r, b): lane's running sums of each term along the row, one
  // Tuple element per term.
  Halide::Func LaneAccumulators(const std::string& name, const std::vector<RowTerm>& terms) const {
    Halide::Func acc("lane_" + name);
    acc(lane_, r_, b_) = Halide::Tuple(std::vector<Halide::Expr>(terms.size(), 0.f));
    const bool rounded = step_multiple_ > 1;
    // The step read: chunk, or the last step for the rounded-up ones past
    // it. max(.., 0): a row of no whole step leaves the walk's reads empty.
    const Halide::Expr read_step =
        rounded ? Halide::min(chunk_, Halide::max(steps_ - 1, 0)) : Halide::Expr(chunk_);
    std::vector<Halide::Expr> step;
    for (size_t i = 0; i < terms.size(); i++) {
      const Halide::Expr sum = Element(acc, i, {lane_, r_, b_});
      const Halide::Expr next = Accumulate(terms[i], sum, {read_step * lanes_ + lane_, r_, b_});
      step.push_back(rounded ? Halide::select(chunk_ < steps_, next, sum) : next);
    }
    acc(lane_, r_, b_) = Halide::Tuple(step);
    return acc;
  }

  // total(r, b) = the lanes' totals plus the row's tail, element-wise.
  Halide::Func TotalWithTail(const std::string& name, const std::vector<RowTerm>& terms,
                             const std::vector<Halide::Expr>& lane_totals) const {
    Halide::Func total("row_" + name);
    total(r_, b_) = Halide::Tuple(lane_totals);
    std::vector<Halide::Expr> tail_step;
    for (size_t i = 0; i < terms.size(); i++) {
      tail_step.push_back(Accumulate(terms[i], Element(total, i, {r_, b_}), {tail_, r_, b_}));
    }
    total(r_, b_) = Halide::Tuple(tail_step);
    return total;
  }

  // sum + term at `at`.
  Halide::Expr Accumulate(const RowTerm& term, const Halide::Expr& sum,
                          const std::vector<Halide::Expr>& at) const {
    const Halide::Expr other =
        term.other_factor.defined() ? Halide::Expr(term.other_factor(at)) : Halide::Expr();
    return fma_.Accumulate(sum, term.factor(at), other);
  }

  const FusedMultiplyAdd& fma_;
  Halide::Var lane_, r_, b_;
  int vector_width_, accumulators_, lanes_;
  Halide::Expr hidden_, steps_;  // steps_: the row's whole steps of lanes_
  int step_multiple_;
  Halide::RDom chunk_, tail_;
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_ROW_REDUCTION_H_
