#include "tools/autotune/kernel_ab.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"

namespace halnorm::autotune {
namespace {

using internal::Direction;
using internal::Op;
using ::testing::HasSubstr;

TEST(ParseAbKernelTest, AVariantByName) {
  absl::StatusOr<AbKernel> k = ParseAbKernel("variant:layer_norm_fwd_f32__x86_avx2_c0");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->variant, "layer_norm_fwd_f32__x86_avx2_c0");
  EXPECT_TRUE(k->params.empty());
}

TEST(ParseAbKernelTest, KnobsAndAnotherGenerator) {
  absl::StatusOr<AbKernel> k = ParseAbKernel("generator=row_norm_backward_x,vector_width=16,stats_rows=4");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->variant, "");
  EXPECT_EQ(k->generator, "row_norm_backward_x");
  EXPECT_EQ(k->params, (std::map<std::string, std::string>{{"stats_rows", "4"},
                                                            {"vector_width", "16"}}));
}

TEST(ParseAbKernelTest, MalformedItemsAreNamed) {
  absl::StatusOr<AbKernel> no_value = ParseAbKernel("vector_width=16,accumulators");
  ASSERT_FALSE(no_value.ok());
  EXPECT_THAT(no_value.status().message(), HasSubstr("'accumulators'"));
  EXPECT_THAT(no_value.status().message(), HasSubstr("knob=value"));
  EXPECT_FALSE(ParseAbKernel("variant:").ok());
  EXPECT_FALSE(ParseAbKernel("=4").ok());
}

// A compiled-in variant this host runs, for (op, direction, dtype).
const internal::Variant* HostVariant(Op op, Direction direction) {
  for (const internal::Variant& v : internal::AllVariants()) {
    if (v.op == op && v.direction == direction && v.dtype == HALNORM_F32 && !v.fused_residual &&
        !v.native_params && v.device == internal::Device::kCpu && internal::HostSupports(v.isa)) {
      return &v;
    }
  }
  return nullptr;
}

AbOptions SmallProblem(Direction direction) {
  AbOptions o;
  o.op = Op::kLayerNorm;
  o.direction = direction;
  o.shapes = {{8, 64}, {3, 100}};
  o.rounds = 1;
  return o;
}

TEST(RunKernelAbTest, TimesACompiledInVariantBesideAJitKernel) {
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    const internal::Variant* variant = HostVariant(Op::kLayerNorm, direction);
    ASSERT_NE(variant, nullptr);
    AbOptions o = SmallProblem(direction);
    o.kernels = {*ParseAbKernel(std::string("variant:") + variant->name),
                 *ParseAbKernel("accumulators=2")};
    absl::StatusOr<std::vector<AbRow>> rows = RunKernelAb(o);
    ASSERT_TRUE(rows.ok()) << rows.status();
    ASSERT_EQ(rows->size(), 2u);
    const double accesses = direction == Direction::kForward ? 2 : 3;
    EXPECT_EQ((*rows)[0].logical_bytes, accesses * 8 * 64 * 4);
    EXPECT_EQ((*rows)[1].shape, (std::vector<int64_t>{3, 100}));
    for (const AbRow& row : *rows) {
      ASSERT_EQ(row.seconds.size(), 2u);
      for (double s : row.seconds) EXPECT_TRUE(std::isfinite(s) && s > 0) << s;
    }
    const std::string table = FormatAb(o, *rows);
    EXPECT_THAT(table, HasSubstr(std::string("k0: variant:") + variant->name));
    EXPECT_THAT(table, HasSubstr("k1: accumulators=2"));
    EXPECT_THAT(table, HasSubstr("| 8x64 |"));
    EXPECT_THAT(table, HasSubstr("| 3x100 |"));
  }
}

TEST(RunKernelAbTest, AnUnknownVariantIsNamed) {
  AbOptions o = SmallProblem(Direction::kForward);
  o.kernels = {*ParseAbKernel("variant:no_such_variant")};
  absl::StatusOr<std::vector<AbRow>> rows = RunKernelAb(o);
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("no compiled-in variant no_such_variant"));
}

TEST(RunKernelAbTest, AVariantOfAnotherProblemIsRefused) {
  const internal::Variant* backward = HostVariant(Op::kLayerNorm, Direction::kBackward);
  ASSERT_NE(backward, nullptr);
  AbOptions o = SmallProblem(Direction::kForward);
  o.kernels = {*ParseAbKernel(std::string("variant:") + backward->name)};
  absl::StatusOr<std::vector<AbRow>> rows = RunKernelAb(o);
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("not the problem's layer_norm fwd f32"));
}

TEST(RunKernelAbTest, AKnobTheGeneratorLacksIsNamed) {
  AbOptions o = SmallProblem(Direction::kForward);
  o.kernels = {*ParseAbKernel("no_such_knob=1")};
  absl::StatusOr<std::vector<AbRow>> rows = RunKernelAb(o);
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("no_such_knob"));
}

}  // namespace
}  // namespace halnorm::autotune
