// One LayerNorm or RMSNorm forward call built from a RowNormCase: inputs
// filled with deterministic noise, outputs prefilled with the sentinel, plus
// the checks against the float64 reference.
#ifndef HALNORM_TESTS_ROW_NORM_FORWARD_PROBLEM_H_
#define HALNORM_TESTS_ROW_NORM_FORWARD_PROBLEM_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_tensors.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

class ForwardProblem {
 public:
  explicit ForwardProblem(const RowNormCase& c);
  ForwardProblem(const ForwardProblem&) = delete;
  ForwardProblem& operator=(const ForwardProblem&) = delete;

  // Runs internal::LayerNormForward or RmsNormForward forced to `variant`
  // (nullptr: dispatch picks).
  absl::Status Run(const internal::Variant* variant);
  // Runs the public C entry point (dispatches), on the tensors' `view_of`.
  int RunPublic(const ViewOf& view_of = HostView);

  // The float64 reference for the current inputs.
  reference::ForwardResult Expected() const;

  // Adds gtest failures for outputs outside the policy tolerance, for writes
  // outside the outputs' views and for any change to the inputs. Records
  // each output's worst error as a test property ("y_error", ...).
  void ExpectMatchesReference() const;

  const RowNormCase& row_case() const { return case_; }
  TestTensor& x() { return x_; }
  const TestTensor& y() const { return y_; }
  const std::optional<TestTensor>& residual_out() const { return residual_out_; }
  const std::optional<TestTensor>& mean() const { return mean_; }
  const std::optional<TestTensor>& rstd() const { return rstd_; }
  // Every output tensor present.
  std::vector<const TestTensor*> Outputs() const;
  std::vector<TestTensor*> MutableOutputs();

 private:
  // Points at this object's tensors, so built per call (and not copyable).
  halnorm_norm_options Options(const ViewOf& view_of = HostView);

  RowNormCase case_;
  TestTensor x_;
  std::optional<TestTensor> residual_;
  std::optional<TestTensor> weight_;
  std::optional<TestTensor> bias_;
  TestTensor y_;
  std::optional<TestTensor> residual_out_;
  std::optional<TestTensor> mean_;
  std::optional<TestTensor> rstd_;
  TensorSnapshot inputs_before_;  // when Run started
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_ROW_NORM_FORWARD_PROBLEM_H_
