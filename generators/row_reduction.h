// The row reduction both row-norm generators use: a sum along n of each row,
// kept as `lanes` partial sums (vector accumulators) plus a scalar tail.
// The lane count fixes the summation order, so it belongs to the algorithm;
// the schedule vectorizes the accumulator Func.
#ifndef HALNORM_GENERATORS_ROW_REDUCTION_H_
#define HALNORM_GENERATORS_ROW_REDUCTION_H_

#include <string>

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

  // Returns total(r, b) = sum over n of term(n, r, b); sets *lane_acc to the
  // per-lane accumulator Func(lane, r, b) for the schedule.
  Halide::Func Sum(const std::string& name, Halide::Func term, Halide::Func* lane_acc) const {
    using Halide::Func;
    *lane_acc = Func("lane_" + name);
    (*lane_acc)(lane_, r_, b_) = 0.f;
    (*lane_acc)(lane_, r_, b_) += term(chunk_ * lanes_ + lane_, r_, b_);
    Func total("row_" + name);
    total(r_, b_) = 0.f;
    total(r_, b_) += (*lane_acc)(fold_, r_, b_);
    total(r_, b_) += term(tail_, r_, b_);
    return total;
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
