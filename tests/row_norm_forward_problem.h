// One LayerNorm forward call built from a ForwardCase: inputs filled with
// deterministic noise, outputs prefilled with the sentinel, plus the checks
// against the float64 reference.
#ifndef HALNORM_TESTS_LAYER_NORM_FORWARD_PROBLEM_H_
#define HALNORM_TESTS_LAYER_NORM_FORWARD_PROBLEM_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/layer_norm_forward_cases.h"
#include "tests/reference/layer_norm_reference.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

class ForwardProblem {
 public:
  explicit ForwardProblem(const ForwardCase& c);

  // Runs halnorm::internal::LayerNormForward forced to `variant`
  // (nullptr: dispatch picks).
  absl::Status Run(const internal::Variant* variant);
  // Runs the public C entry point (dispatches).
  int RunPublic();

  // The float64 reference for the current inputs.
  reference::LayerNormForwardResult Expected() const;

  // Adds gtest failures for y/mean/rstd outside the policy tolerance, for
  // writes outside the outputs' views and for any change to x.
  void ExpectMatchesReference() const;

  int64_t rows() const { return rows_; }
  int64_t hidden() const { return hidden_; }
  TestTensor& x() { return x_; }
  const TestTensor& y() const { return y_; }
  const std::optional<TestTensor>& mean() const { return mean_; }
  const std::optional<TestTensor>& rstd() const { return rstd_; }

 private:
  // Pointers the API takes; null for absent optional tensors.
  static halnorm_tensor* ViewOrNull(std::optional<TestTensor>& tensor);

  int64_t rows_ = 0;
  int64_t hidden_ = 0;
  halnorm_norm_options options_;
  TestTensor x_;
  std::optional<TestTensor> weight_;
  std::optional<TestTensor> bias_;
  TestTensor y_;
  std::optional<TestTensor> mean_;
  std::optional<TestTensor> rstd_;
  std::vector<float> x_before_;  // storage of x when Run started
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_LAYER_NORM_FORWARD_PROBLEM_H_
