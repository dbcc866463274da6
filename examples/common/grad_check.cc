#include "examples/common/grad_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace examples {
namespace {

// The element with the largest |gradient| first (a check should not pass on
// a sample of near-zero entries alone), then distinct random ones.
std::vector<int64_t> SampleIndices(const Tensor& grad, int samples, Rng* rng) {
  const int64_t n = grad.numel();
  std::vector<int64_t> picked;
  if (n <= samples) {
    for (int64_t i = 0; i < n; i++) picked.push_back(i);
    return picked;
  }
  int64_t largest = 0;
  for (int64_t i = 1; i < n; i++) {
    if (std::fabs(grad[i]) > std::fabs(grad[largest])) largest = i;
  }
  picked.push_back(largest);
  while (static_cast<int>(picked.size()) < samples) {
    const int64_t i = rng->Index(n);
    if (std::find(picked.begin(), picked.end(), i) == picked.end()) picked.push_back(i);
  }
  return picked;
}

}  // namespace

void AppendParameters(const NamedTensors& params, const NamedTensors& grads,
                      std::vector<GradTensor>* checked) {
  if (params.size() != grads.size()) {
    std::fprintf(stderr, "%zu parameters but %zu gradients\n", params.size(), grads.size());
    std::abort();
  }
  for (size_t i = 0; i < params.size(); i++) {
    checked->push_back({params[i].first, params[i].second, grads[i].second});
  }
}

std::vector<GradCheckResult> CheckGradients(const std::vector<GradTensor>& tensors,
                                            const std::function<double()>& loss,
                                            const GradCheckOptions& options) {
  Rng rng(options.seed);
  std::vector<GradCheckResult> results;
  for (const GradTensor& t : tensors) {
    if (t.value->shape != t.grad->shape) {
      std::fprintf(stderr, "%s: gradient shape %s, value %s\n", t.name.c_str(),
                   t.grad->ShapeString().c_str(), t.value->ShapeString().c_str());
      std::abort();
    }
    double scale = 0;
    for (double g : t.grad->data) scale = std::max(scale, std::fabs(g));
    GradCheckResult r;
    r.name = t.name;
    r.shape = t.value->ShapeString();
    for (int64_t i : SampleIndices(*t.grad, options.samples, &rng)) {
      const double saved = (*t.value)[i];
      auto loss_at = [&](double offset) {
        (*t.value)[i] = saved + offset;
        return loss();
      };
      const double h = options.step;
      const double d1 = loss_at(h) - loss_at(-h), d2 = loss_at(2 * h) - loss_at(-2 * h);
      (*t.value)[i] = saved;
      const double numeric = (8 * d1 - d2) / (12 * h);
      const double analytic = (*t.grad)[i];
      const double denom = std::max({std::fabs(numeric), std::fabs(analytic), 1e-2 * scale});
      const double error = denom > 0 ? std::fabs(numeric - analytic) / denom : 0.0;
      if (r.checked == 0 || error > r.max_error) {
        r.max_error = error;
        r.worst_index = i;
        r.worst_analytic = analytic;
        r.worst_numeric = numeric;
      }
      r.checked++;
    }
    results.push_back(r);
  }
  return results;
}

bool PrintGradCheck(const std::vector<GradCheckResult>& results, double tolerance) {
  bool all_pass = true;
  std::printf("  %-16s %-14s %7s %12s   %s\n", "tensor", "shape", "checked", "max rel err",
              "worst element: analytic vs numeric");
  for (const GradCheckResult& r : results) {
    const bool pass = r.max_error <= tolerance;
    all_pass = all_pass && pass;
    std::printf("  %-16s %-14s %7d %12.2e   [%lld] %+.6e vs %+.6e%s\n", r.name.c_str(),
                r.shape.c_str(), r.checked, r.max_error, static_cast<long long>(r.worst_index),
                r.worst_analytic, r.worst_numeric, pass ? "" : "  <-- FAIL");
  }
  return all_pass;
}

int RunGradCheck(const std::vector<GradTensor>& tensors, double step,
                 const std::function<double()>& loss) {
  GradCheckOptions options;
  options.step = step;
  std::printf(
      "gradient check: 5-point central differences, h = %g, up to %d elements per "
      "tensor, tolerance %g\n",
      options.step, options.samples, options.tolerance);
  const bool pass = PrintGradCheck(CheckGradients(tensors, loss, options), options.tolerance);
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace examples
