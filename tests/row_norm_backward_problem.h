// One LayerNorm or RMSNorm backward call built from a RowNormCase: dy, x
// and the residual gradient filled with deterministic noise, mean/rstd those
// of the float64 forward of x (rounded to f32, as a forward kernel stores
// them), outputs prefilled with the sentinel; plus the checks against the
// float64 reference.
#ifndef HALNORM_TESTS_ROW_NORM_BACKWARD_PROBLEM_H_
#define HALNORM_TESTS_ROW_NORM_BACKWARD_PROBLEM_H_

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

class BackwardProblem {
 public:
  explicit BackwardProblem(const RowNormCase& c);
  BackwardProblem(const BackwardProblem&) = delete;
  BackwardProblem& operator=(const BackwardProblem&) = delete;

  // Runs internal::LayerNormBackward or RmsNormBackward forced to `variant`
  // (nullptr: dispatch picks).
  absl::Status Run(const internal::Variant* variant);
  // Runs the public C entry point (dispatches).
  int RunPublic(const ViewOf& view_of = HostView);

  // The float64 reference for the current inputs.
  reference::BackwardResult Expected() const;

  // Adds gtest failures for outputs outside the policy tolerance, for writes
  // outside the outputs' views and for any change to the inputs. Records
  // each output's worst error as a test property ("dx_error", ...).
  void ExpectMatchesReference() const;

  const RowNormCase& row_case() const { return case_; }
  // Inputs tests may overwrite (x is not among them: mean/rstd derive from it).
  TestTensor& dy() { return dy_; }
  std::optional<TestTensor>& weight() { return weight_; }
  const TestTensor& dx() const { return dx_; }
  const std::optional<TestTensor>& dweight() const { return dweight_; }
  const std::optional<TestTensor>& dbias() const { return dbias_; }
  // Every output tensor present.
  std::vector<const TestTensor*> Outputs() const;
  std::vector<TestTensor*> MutableOutputs();

 private:
  // Points at this object's tensors, so built per call (and not copyable).
  halnorm_norm_options Options(const ViewOf& view_of = HostView);

  RowNormCase case_;
  TestTensor dy_;
  TestTensor x_;
  std::optional<TestTensor> mean_;  // LayerNorm only
  TestTensor rstd_;
  std::optional<TestTensor> weight_;
  std::optional<TestTensor> residual_gradient_;
  TestTensor dx_;
  std::optional<TestTensor> dweight_;
  std::optional<TestTensor> dbias_;
  TensorSnapshot inputs_before_;  // when Run started
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_ROW_NORM_BACKWARD_PROBLEM_H_
