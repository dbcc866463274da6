// The tuner times JIT-compiled kernels through the runtime's forced-variant
// path: they must compute what the compiled-in kernels compute, or the
// timings would be of something else.
#include "tools/autotune/jit_kernel.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "bench/norm_problem.h"
#include "runtime/half_float.h"
#include "tools/autotune/targets.h"

namespace halnorm::autotune {
namespace {

using internal::Direction;
using internal::Op;

std::vector<float> Values(const halnorm_tensor& t) {
  int64_t count = 1;
  for (int d = 0; d < t.rank; d++) count *= t.shape[d];
  return internal::ToF32(t, count);
}

KernelSpec Spec(const TargetInfo& target, const char* generator, Op op, Direction direction) {
  KernelSpec spec;
  spec.generator = generator;
  spec.halide_target = target.halide_target;
  spec.params = {{"kind", op == Op::kRmsNorm ? "rms" : "layer"},
                 {"dtype", "f32"},
                 {"vector_width", std::to_string(target.native_vector_width)},
                 {"accumulators", "2"}};
  if (direction == Direction::kForward) spec.params["rows_per_task"] = "4";
  spec.fits.op = op;
  spec.fits.direction = direction;
  spec.fits.dtype = HALNORM_F32;
  spec.fits.target = "jit";
  spec.fits.isa = target.isa;
  return spec;
}

// Runs `kernel` and dispatch's pick on the same problem; returns the largest
// difference relative to the output's scale.
double MaxDifference(const JitKernel& kernel, Direction direction) {
  std::mt19937 rng(3);
  bench::NormProblem problem(kernel.variant().op, HALNORM_F32, {37, 300}, rng);
  EXPECT_TRUE(problem.Forward().ok());
  EXPECT_TRUE(problem.Run(direction).ok());
  const std::vector<float> expected = Values(problem.Output(direction));
  absl::Status jit = problem.Run(direction, &kernel.variant());
  EXPECT_TRUE(jit.ok()) << jit;
  const std::vector<float> got = Values(problem.Output(direction));
  double worst = 0;
  for (size_t i = 0; i < got.size(); i++) {
    worst = std::max(worst, std::abs(double(got[i]) - expected[i]) / (1 + std::abs(expected[i])));
  }
  return worst;
}

TEST(JitKernelTest, HandScheduledKernelsMatchTheCompiledOnes) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    const char* generator =
        direction == Direction::kForward ? "row_norm_forward" : "row_norm_backward";
    auto kernel = JitKernel::Compile(Spec(*target, generator, Op::kLayerNorm, direction));
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_LT(MaxDifference(**kernel, direction), 1e-5) << (*kernel)->variant().name;
  }
}

TEST(JitKernelTest, AutoscheduledKernelsMatchTheCompiledOnes) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  KernelSpec spec = Spec(*target, "row_norm_forward", Op::kRmsNorm, Direction::kForward);
  spec.autoscheduler = "Mullapudi2016";
  auto kernel = JitKernel::Compile(spec);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(std::string((*kernel)->variant().config), "autoscheduler=Mullapudi2016");
  EXPECT_LT(MaxDifference(**kernel, Direction::kForward), 1e-5);
}

TEST(JitKernelTest, ABadKnobIsAnErrorNotACrash) {
  absl::StatusOr<TargetInfo> target = FindTarget("host");
  ASSERT_TRUE(target.ok()) << target.status();
  KernelSpec spec = Spec(*target, "row_norm_forward", Op::kLayerNorm, Direction::kForward);
  spec.params["no_such_knob"] = "1";
  auto kernel = JitKernel::Compile(spec);
  EXPECT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("no_such_knob"), std::string::npos)
      << kernel.status();
}

}  // namespace
}  // namespace halnorm::autotune
