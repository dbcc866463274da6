// Numerical gradient check: analytic gradients against central finite
// differences of the loss, on a sample of each tensor's elements.
#ifndef HALNORM_EXAMPLES_COMMON_GRAD_CHECK_H_
#define HALNORM_EXAMPLES_COMMON_GRAD_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples/common/tensor.h"

namespace examples {

struct GradTensor {
  std::string name;
  Tensor* value;       // perturbed in place during the check, then restored
  const Tensor* grad;  // the backward pass's gradient of the loss w.r.t. value
};

// Pairs each parameter with its gradient, by position: `grads` holds the
// same tensors as `params`, in the same order.
void AppendParameters(const NamedTensors& params, const NamedTensors& grads,
                      std::vector<GradTensor>* checked);

struct GradCheckOptions {
  // Step h of the 5-point central difference
  //   (8 (L(v+h) - L(v-h)) - (L(v+2h) - L(v-2h))) / 12h,
  // whose truncation error is O(h^4). The halnorm calls round to f32, which
  // puts ~1e-6 of noise on the loss and ~1e-6/h on the difference: so h is
  // as large as the O(h^4) term allows (each app sets its own).
  double step = 0x1p-5;
  double tolerance = 2e-3;  // on the relative error below
  int samples = 8;          // elements checked per tensor (all, if it has fewer)
  uint64_t seed = 1234;
};

struct GradCheckResult {
  std::string name;
  std::string shape;
  int checked = 0;
  double max_error = 0;  // relative, see CheckGradients
  int64_t worst_index = 0;
  double worst_analytic = 0, worst_numeric = 0;
};

// For each tensor checks its largest-|gradient| element and random others.
// An element's error is |numeric - analytic| / max(|numeric|, |analytic|,
// 1e-2 * max |analytic| over the tensor): a near-zero gradient is judged at
// its tensor's scale, and a gradient that is missing (zero) scores 1.
std::vector<GradCheckResult> CheckGradients(const std::vector<GradTensor>& tensors,
                                            const std::function<double()>& loss,
                                            const GradCheckOptions& options);

// Prints one line per tensor and returns whether all are within tolerance.
bool PrintGradCheck(const std::vector<GradCheckResult>& results, double tolerance);

// An app's whole check: says how it checks, checks `tensors` with step h =
// `step`, prints the table and PASS/FAIL; returns the exit status (0: pass).
int RunGradCheck(const std::vector<GradTensor>& tensors, double step,
                 const std::function<double()>& loss);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_COMMON_GRAD_CHECK_H_
