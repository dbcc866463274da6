// Dispatch: which variant runs a call, under the HALNORM_MAX_ISA and
// HALNORM_VERBOSE settings its BUILD target sets (they are read once per
// process, so each setting is its own test target). --expect_isa names the
// ISA the pick must have; "host" = the widest this CPU runs. --expect_host_isa
// names the ISA detection must report (set where the CPU is known: qemu's).
#include "runtime/dispatch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/halnorm_c.h"
#include "runtime/streaming_stores.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

std::string expected_isa = "host";
std::string expected_host_isa;  // "": not checked

// The ISA of the widest CPU variant of the kind (config 0, as dispatch's
// fallback order) within --expect_isa: some targets hold only some dtypes.
Isa ExpectedIsa(Op op, halnorm_dtype dtype) {
  Isa cap = HostIsa();
  for (Isa isa : IsaLevels()) {
    if (expected_isa == IsaName(isa)) cap = std::min(cap, isa);
  }
  Isa widest = IsaLevels().front();
  for (const Variant& v : AllVariants()) {
    if (v.op == op && v.direction == Direction::kForward && v.dtype == dtype &&
        !v.fused_residual && !v.native_params && v.device == Device::kCpu && v.isa <= cap &&
        v.isa > widest) {
      widest = v.isa;
    }
  }
  return widest;
}

TEST(DispatchTest, DetectsTheHostIsa) {
  if (expected_host_isa.empty()) GTEST_SKIP() << "no --expect_host_isa for this target";
  EXPECT_STREQ(IsaName(HostIsa()), expected_host_isa.c_str());
}

TEST(DispatchTest, PicksTheWidestAllowedIsa) {
  for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
    auto picked = PickVariant({Op::kLayerNorm, Direction::kForward, dtype, false, 1024, 64});
    ASSERT_TRUE(picked.ok()) << picked.status();
    EXPECT_EQ((*picked)->isa, ExpectedIsa(Op::kLayerNorm, dtype)) << (*picked)->name;
    EXPECT_TRUE(HostSupports((*picked)->isa));
  }
}

TEST(DispatchTest, VerboseModePrintsTheChoiceAndWhy) {
  const char* verbose = std::getenv("HALNORM_VERBOSE");
  testing::internal::CaptureStderr();
  auto picked = PickVariant({Op::kLayerNorm, Direction::kForward, HALNORM_F32, false, 1024, 64});
  std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(picked.ok());
  if (verbose != nullptr && std::strstr(verbose, "dispatch") != nullptr) {
    EXPECT_THAT(printed, testing::HasSubstr("halnorm dispatch: layer_norm fwd f32 hidden=1024"));
    EXPECT_THAT(printed, testing::HasSubstr((*picked)->name));
    EXPECT_THAT(printed, testing::HasSubstr(std::string("cpu ") + IsaName(HostIsa())));
  } else {
    EXPECT_EQ(printed, "");
  }
}

TEST(DispatchTest, ForcedVariantMustFitTheCall) {
  for (const Variant& v : AllVariants()) {
    KernelRequest fitting{v.op, v.direction, v.dtype, v.fused_residual, 1024, 64};
    fitting.native_params = v.native_params;
    KernelRequest wrong_dtype = fitting, wrong_residual = fitting, wrong_params = fitting;
    wrong_dtype.dtype = v.dtype == HALNORM_F32 ? HALNORM_BF16 : HALNORM_F32;
    wrong_residual.fused_residual = !v.fused_residual;
    wrong_params.native_params = !v.native_params;
    for (const KernelRequest& wrong : {wrong_dtype, wrong_residual, wrong_params}) {
      EXPECT_EQ(CheckForcedVariant(v, wrong).code(), absl::StatusCode::kInvalidArgument) << v.name;
    }
    absl::Status fits = CheckForcedVariant(v, fitting);
    EXPECT_EQ(fits.ok(), HostSupports(v.isa)) << v.name << ": " << fits;
  }
}

// 16-bit weight and bias go to a native-params variant of the plain pick's
// config (one table entry serves both) on calls of a few rows; calls of
// more rows, DRAM-sized ones (and other dtypes, directions, residual calls)
// convert them and run the plain variant.
TEST(DispatchTest, SmallForwardsWith16BitParamsPickNativeParamsVariants) {
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (halnorm_dtype dtype : {HALNORM_F16, HALNORM_BF16}) {
      for (int64_t rows : {int64_t{1}, kNativeParamsMaxRows}) {
        KernelRequest request{op, Direction::kForward, dtype, false, 1024, rows};
        ASSERT_TRUE(NativeParamsPay(request)) << rows;
        auto plain = PickVariant(request);
        request.native_params = true;
        auto native = PickVariant(request);
        ASSERT_TRUE(plain.ok() && native.ok()) << plain.status() << native.status();
        EXPECT_FALSE((*plain)->native_params) << (*plain)->name;
        EXPECT_TRUE((*native)->native_params) << (*native)->name;
        EXPECT_EQ((*native)->config_index, (*plain)->config_index) << (*native)->name;
        EXPECT_STREQ((*native)->target, (*plain)->target) << (*native)->name;
      }
      EXPECT_FALSE(
          NativeParamsPay({op, Direction::kForward, dtype, false, 1024, kNativeParamsMaxRows + 1}));
      if (std::getenv("HALNORM_STREAMING_STORES") == nullptr) {  // the default policy
        const int64_t dram_hidden = StreamingMinFootprint() / (2 * 2) + 1;  // one row
        EXPECT_FALSE(NativeParamsPay({op, Direction::kForward, dtype, false, dram_hidden, 1}));
      }
      EXPECT_FALSE(NativeParamsPay({op, Direction::kForward, dtype, true, 1024, 16}));
      EXPECT_FALSE(NativeParamsPay({op, Direction::kBackward, dtype, false, 1024, 16}));
    }
    EXPECT_FALSE(NativeParamsPay({op, Direction::kForward, HALNORM_F32, false, 1024, 16}));
  }
}

}  // namespace
}  // namespace halnorm::internal

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--expect_isa=", 13) == 0) {
      halnorm::internal::expected_isa = argv[i] + 13;
    }
    if (std::strncmp(argv[i], "--expect_host_isa=", 18) == 0) {
      halnorm::internal::expected_host_isa = argv[i] + 18;
    }
  }
  return RUN_ALL_TESTS();
}
