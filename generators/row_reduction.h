// The row reduction both row-norm generators use: a sum along n of each row,
// kept as vector_width x accumulators lane sums (vector accumulators), folded
// first across accumulators (vector adds), then across the vector's lanes
// (a balanced tree, so no long scalar dependency chain: at N=128 the row's
// fixed cost is most of its time), plus a scalar tail. The lane counts fix
// the summation order, so they belong to the algorithm; the schedule
// vectorizes the accumulator and fold Funcs.
#ifndef HALNORM_GENERATORS_ROW_REDUCTION_H_
#define HALNORM_GENERATORS_ROW_REDUCTION_H_

#include <string>
#include <vector>

#include "Halide.h"

namespace halnorm {

class RowReduction {
 public:
  RowReduction(Halide::Var lane, Halide::Var r, Halide::Var b, Halide::Expr hidden,
               int vector_width, int accumulators)
      : lane_(lane),
        r_(r),
        b_(b),
        vector_width_(vector_width),
        accumulators_(accumulators),
        lanes_(vector_width * accumulators),
        chunk_(0, hidden / lanes_, "chunk"),
        tail_(hidden / lanes_ * lanes_, hidden % lanes_, "tail") {}

  // Returns total(r, b) = sum over n of term(n, r, b), one Tuple element per
  // term, all accumulated in one walk along the row (each term read once).
  // Sets *lane_acc to the accumulator Func(lane, r, b) and *lane_fold to the
  // accumulators folded into one vector, Func(lane, r, b) with lane <
  // vector_width, for the schedule. With one term, total is an ordinary
  // single-valued Func.
  Halide::Func Sum(const std::string& name, const std::vector<Halide::Func>& terms,
                   Halide::Func* lane_acc, Halide::Func* lane_fold) const {
    using Halide::Expr;
    using Halide::Func;
    *lane_acc = Func("lane_" + name);
    *lane_fold = Func("fold_" + name);
    Func total("row_" + name);
    const std::vector<Expr> zeros(terms.size(), 0.f);
    (*lane_acc)(lane_, r_, b_) = Halide::Tuple(zeros);
    std::vector<Expr> lane_step, folded, totals, tail_step;
    for (size_t i = 0; i < terms.size(); i++) {
      lane_step.push_back(Element(*lane_acc, i, {lane_, r_, b_}) +
                          terms[i](chunk_ * lanes_ + lane_, r_, b_));
      Expr across_accumulators = Element(*lane_acc, i, {lane_, r_, b_});
      for (int a = 1; a < accumulators_; a++) {
        across_accumulators += Element(*lane_acc, i, {lane_ + a * vector_width_, r_, b_});
      }
      folded.push_back(across_accumulators);
    }
    (*lane_acc)(lane_, r_, b_) = Halide::Tuple(lane_step);
    (*lane_fold)(lane_, r_, b_) = Halide::Tuple(folded);
    for (size_t i = 0; i < terms.size(); i++) {
      totals.push_back(TreeSum(*lane_fold, i, 0, vector_width_));
    }
    total(r_, b_) = Halide::Tuple(totals);
    for (size_t i = 0; i < terms.size(); i++) {
      tail_step.push_back(Element(total, i, {r_, b_}) + terms[i](tail_, r_, b_));
    }
    total(r_, b_) = Halide::Tuple(tail_step);
    return total;
  }

  // The accumulators' walk along the row, `lanes` elements a step.
  Halide::RVar chunk() const { return chunk_; }

  // Element i of a (possibly single-valued) Func's value at `at`.
  static Halide::Expr Element(const Halide::Func& f, size_t i, const std::vector<Halide::Expr>& at) {
    return f.outputs() == 1 ? Halide::Expr(f(at)) : f(at)[i];
  }

 private:
  // Element i of fold(lane) summed over lanes [begin, end), pairwise.
  Halide::Expr TreeSum(const Halide::Func& fold, size_t i, int begin, int end) const {
    if (end - begin == 1) return Element(fold, i, {begin, r_, b_});
    const int middle = (begin + end) / 2;
    return TreeSum(fold, i, begin, middle) + TreeSum(fold, i, middle, end);
  }

  Halide::Var lane_, r_, b_;
  int vector_width_, accumulators_, lanes_;
  Halide::RDom chunk_, tail_;
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_ROW_REDUCTION_H_
