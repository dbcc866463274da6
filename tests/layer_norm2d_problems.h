// One LayerNorm2d forward or backward call built from a LayerNorm2dCase:
// inputs filled with deterministic noise, outputs prefilled with the
// sentinel, plus the checks against the float64 reference. The backward's
// mean and rstd are those of the float64 forward of x rounded to f32 (what
// a forward kernel stores).
#ifndef HALNORM_TESTS_LAYER_NORM2D_PROBLEMS_H_
#define HALNORM_TESTS_LAYER_NORM2D_PROBLEMS_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

class LayerNorm2dForwardProblem {
 public:
  explicit LayerNorm2dForwardProblem(const LayerNorm2dCase& c);
  LayerNorm2dForwardProblem(const LayerNorm2dForwardProblem&) = delete;
  LayerNorm2dForwardProblem& operator=(const LayerNorm2dForwardProblem&) = delete;

  // internal::LayerNorm2dForward, forcing the case's variant (if any).
  absl::Status Run();
  // halnorm_layer_norm2d_forward (dispatches), on the tensors' `view_of`
  // views (HALNORM_CUDA ones: tests/cuda_mirror.h).
  int RunPublic(const ViewOf& view_of = HostView);

  reference::ForwardResult Expected() const;
  // Adds gtest failures for outputs outside the policy tolerance, writes
  // outside the outputs' views and changed inputs; records "<output>_error".
  void ExpectMatchesReference() const;

  const LayerNorm2dCase& test_case() const { return case_; }
  // Inputs tests may overwrite.
  TestTensor& x() { return x_; }
  std::optional<TestTensor>& weight() { return weight_; }
  std::optional<TestTensor>& bias() { return bias_; }
  const TestTensor& y() const { return y_; }
  const std::optional<TestTensor>& mean() const { return mean_; }
  const std::optional<TestTensor>& rstd() const { return rstd_; }
  std::vector<const TestTensor*> Outputs() const;  // those present
  std::vector<TestTensor*> MutableOutputs();

 private:
  void SnapshotInputs();

  LayerNorm2dCase case_;
  TestTensor x_;
  std::optional<TestTensor> weight_;
  std::optional<TestTensor> bias_;
  TestTensor y_;
  std::optional<TestTensor> mean_;
  std::optional<TestTensor> rstd_;
  TensorSnapshot inputs_before_;  // when the last run started
};

class LayerNorm2dBackwardProblem {
 public:
  explicit LayerNorm2dBackwardProblem(const LayerNorm2dCase& c);
  LayerNorm2dBackwardProblem(const LayerNorm2dBackwardProblem&) = delete;
  LayerNorm2dBackwardProblem& operator=(const LayerNorm2dBackwardProblem&) = delete;

  // internal::LayerNorm2dBackward, forcing the case's variant (if any).
  absl::Status Run();
  // halnorm_layer_norm2d_backward (dispatches), as the forward's.
  int RunPublic(const ViewOf& view_of = HostView);

  reference::BackwardResult Expected() const;
  // As the forward's: dx, then dweight/dbias with the sum tolerance.
  void ExpectMatchesReference() const;

  const LayerNorm2dCase& test_case() const { return case_; }
  // Inputs tests may overwrite (x may not: mean/rstd derive from it).
  TestTensor& dy() { return dy_; }
  std::optional<TestTensor>& weight() { return weight_; }
  const TestTensor& dx() const { return dx_; }
  const std::optional<TestTensor>& dweight() const { return dweight_; }
  const std::optional<TestTensor>& dbias() const { return dbias_; }
  std::vector<const TestTensor*> Outputs() const;  // those present
  std::vector<TestTensor*> MutableOutputs();

 private:
  void SnapshotInputs();

  LayerNorm2dCase case_;
  TestTensor dy_;
  TestTensor x_;
  TestTensor mean_;
  TestTensor rstd_;
  std::optional<TestTensor> weight_;
  TestTensor dx_;
  std::optional<TestTensor> dweight_;
  std::optional<TestTensor> dbias_;
  TensorSnapshot inputs_before_;  // when the last run started
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_LAYER_NORM2D_PROBLEMS_H_
