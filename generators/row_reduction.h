// The row reduction both row-norm generators use: a sum along n of each row,
// kept as `lanes` partial sums (vector accumulators) plus a scalar tail.
// The lane count fixes the summation order, so it belongs to the algorithm;
// the schedule vectorizes the accumulator Func.
#ifndef HALNORM_GENERATORS_ROW_REDUCTION_H_
#define HALNORM_GENERATORS_ROW_REDUCTION_H_

#include <string>
#include <vector>

#include "Halide.h"

namespace halnorm {

class RowReduction {
 public:
  RowReduction(Halide::Var lane, Halide::Var r, Halide::Var b, Halide::Expr hidden, int lanes)
      : lane_(lane),
        r_(r),
        b_(b),
        lanes_(lanes),
        chunk_(0, hidden / lanes, "chunk"),
        fold_(0, lanes, "fold"),
        tail_(hidden / lanes * lanes, hidden % lanes, "tail") {}

  // Returns total(r, b) = sum over n of term(n, r, b), one Tuple element per
  // term, all accumulated in one walk along the row (each term read once);
  // sets *lane_acc to the per-lane accumulator Func(lane, r, b) for the
  // schedule. With one term, total is an ordinary single-valued Func.
  Halide::Func Sum(const std::string& name, const std::vector<Halide::Func>& terms,
                   Halide::Func* lane_acc) const {
    using Halide::Expr;
    using Halide::Func;
    *lane_acc = Func("lane_" + name);
    Func total("row_" + name);
    const std::vector<Expr> zeros(terms.size(), 0.f);
    (*lane_acc)(lane_, r_, b_) = Halide::Tuple(zeros);
    total(r_, b_) = Halide::Tuple(zeros);
    std::vector<Expr> lane_step, fold_step, tail_step;
    for (size_t i = 0; i < terms.size(); i++) {
      lane_step.push_back(Element(*lane_acc, i, {lane_, r_, b_}) +
                          terms[i](chunk_ * lanes_ + lane_, r_, b_));
      fold_step.push_back(Element(total, i, {r_, b_}) + Element(*lane_acc, i, {fold_, r_, b_}));
      tail_step.push_back(Element(total, i, {r_, b_}) + terms[i](tail_, r_, b_));
    }
    (*lane_acc)(lane_, r_, b_) = Halide::Tuple(lane_step);
    total(r_, b_) = Halide::Tuple(fold_step);
    total(r_, b_) = Halide::Tuple(tail_step);
    return total;
  }

  // Element i of a (possibly single-valued) Func's value at `at`.
  static Halide::Expr Element(const Halide::Func& f, size_t i, const std::vector<Halide::Expr>& at) {
    return f.outputs() == 1 ? Halide::Expr(f(at)) : f(at)[i];
  }

  // The accumulators' walk along the row, `lanes` elements a step.
  Halide::RVar chunk() const { return chunk_; }

 private:
  Halide::Var lane_, r_, b_;
  int lanes_;
  Halide::RDom chunk_, fold_, tail_;
};

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_ROW_REDUCTION_H_
