#include "bench/norm_problem.h"

#include "runtime/layer_norm2d.h"
#include "runtime/row_norm.h"

namespace halnorm::bench {

using internal::Op;

std::vector<int64_t> NormProblem::StatsShape(Op op, const std::vector<int64_t>& shape) {
  if (op == Op::kLayerNorm2d) return {shape[0], shape[2], shape[3]};
  return {shape[0]};
}

NormProblem::NormProblem(Op op, halnorm_dtype dtype, const std::vector<int64_t>& shape,
                         std::mt19937& rng, int offset_bytes)
    : op_(op),
      x_(dtype, shape, 0.f, rng, offset_bytes),
      y_(dtype, shape, 0.f, rng, offset_bytes),
      dy_(dtype, shape, 0.f, rng, offset_bytes),
      dx_(dtype, shape, 0.f, rng, offset_bytes),
      // Parameters in the activations' dtype, as a framework holds them.
      weight_(dtype, {shape[1]}, 1.f, rng),
      bias_(dtype, {shape[1]}, 0.f, rng),
      dweight_(dtype, {shape[1]}, 0.f, rng),
      dbias_(dtype, {shape[1]}, 0.f, rng),
      mean_(HALNORM_F32, StatsShape(op, shape), 0.f, rng),
      rstd_(HALNORM_F32, StatsShape(op, shape), 0.f, rng) {}

absl::Status NormProblem::Forward(const internal::Variant* variant) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  switch (op_) {
    case Op::kLayerNorm:
      return internal::LayerNormForward(&x_.t, &weight_.t, &bias_.t, &opt, &y_.t, &mean_.t,
                                        &rstd_.t, variant);
    case Op::kRmsNorm:
      return internal::RmsNormForward(&x_.t, &weight_.t, &opt, &y_.t, &rstd_.t, variant);
    case Op::kLayerNorm2d:
      return internal::LayerNorm2dForward(&x_.t, &weight_.t, &bias_.t, HALNORM_AXES_C, 1e-6f,
                                          &y_.t, &mean_.t, &rstd_.t, variant);
  }
  return absl::InvalidArgumentError("unknown op");
}

absl::Status NormProblem::Backward(const internal::Variant* variant) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  switch (op_) {
    case Op::kLayerNorm:
      return internal::LayerNormBackward(&dy_.t, &x_.t, &mean_.t, &rstd_.t, &weight_.t, &opt,
                                         &dx_.t, &dweight_.t, &dbias_.t, variant);
    case Op::kRmsNorm:
      return internal::RmsNormBackward(&dy_.t, &x_.t, &rstd_.t, &weight_.t, &opt, &dx_.t,
                                       &dweight_.t, variant);
    case Op::kLayerNorm2d:
      return internal::LayerNorm2dBackward(&dy_.t, &x_.t, &mean_.t, &rstd_.t, &weight_.t,
                                           HALNORM_AXES_C, &dx_.t, &dweight_.t, &dbias_.t,
                                           variant);
  }
  return absl::InvalidArgumentError("unknown op");
}

}  // namespace halnorm::bench
