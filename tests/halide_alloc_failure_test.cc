// Allocation failures inside the Halide kernels (halide_malloc, through
// halide_set_custom_malloc). Only the LayerNorm2d channel-norm kernels
// (AXES_C on NCHW) allocate: blocks of 4 * min(pixels_per_task, H*W) + 12
// bytes per pixel tile, in the forward for every tile, in the backward only
// for a partial tile (H*W not a multiple of pixels_per_task). The row-norm
// CPU kernels are built without asserts, which a failed halide_malloc would
// need, so they must allocate nothing (their hook count is checked to be 0
// below; runtime:kernels_without_asserts_test checks their objects for any
// call of halide_malloc). A failure must come back as an error naming the kernel
// and saying "Out of memory", on any thread count (the failing tile may run
// on a pool thread), with nothing printed. Outputs: the kernel fails
// midway, so tiles that finished stay written; every element is either
// untouched or its correct value, and dweight/dbias (stored after the
// kernel) are untouched.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "HalideRuntime.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/row_norm_backward_problem.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_forward_problem.h"
#include "tests/test_tensors.h"
#include "tests/variant_params.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Variant;
using testutil::TestTensor;

// The hook: counts calls; fails call `fail_at` (-1: none), or all of them.
std::atomic<int64_t> calls{0};
std::atomic<int64_t> fail_at{-1};
std::atomic<bool> fail_all{false};
std::atomic<size_t> first_bytes{0};

void* FailingMalloc(void* user_context, size_t bytes) {
  const int64_t k = calls++;
  if (k == 0) first_bytes = bytes;
  if (fail_all || k == fail_at) return nullptr;
  return halide_default_malloc(user_context, bytes);
}

class HalideMallocHook : public ::testing::Test {
 protected:
  void SetUp() override { previous_ = halide_set_custom_malloc(FailingMalloc); }
  void TearDown() override {
    halide_set_custom_malloc(previous_);
    halnorm_set_num_threads(0);
  }
  static void Plan(int64_t at, bool all) {
    calls = 0;
    fail_at = at;
    fail_all = all;
  }

 private:
  halide_malloc_t previous_ = nullptr;
};

// Element i of each output: untouched (sentinel) or bitwise the clean run's.
// Returns whether some but not all elements were written.
bool ExpectUntouchedOrCorrect(const TestTensor& got, const TestTensor& clean, const char* name) {
  const int64_t bytes = testutil::ElementBytes(got.dtype());
  int64_t wrong = 0, written = 0;
  for (int64_t i = 0; i < got.storage_elements(); ++i) {
    const bool same =
        std::memcmp(got.bytes().data() + i * bytes, clean.bytes().data() + i * bytes, bytes) == 0;
    wrong += !got.IsSentinel(i) && !same;
    written += !got.IsSentinel(i);
  }
  EXPECT_EQ(wrong, 0) << name << ": elements neither untouched nor correct";
  return written > 0 &&
         written < testutil::NumElements(absl::MakeConstSpan(got.view()->shape, got.view()->rank));
}

// One kernel's calls, clean and failing, with the checks above. Run(p)
// returns the status of a forced-variant call.
template <typename Problem, typename Case, typename Run>
void CheckKernel(const Case& c, const Variant& variant, Run run) {
  Problem clean(c);
  calls = 0;
  fail_at = -1;
  fail_all = false;
  ASSERT_TRUE(run(clean).ok());
  const int64_t allocations = calls.load();
  ::testing::Test::RecordProperty("halide_mallocs",
                                  allocations == 0 ? "0"
                                                   : absl::StrCat(allocations, ", the first of ",
                                                                  first_bytes.load(), " bytes"));
  if (variant.op != internal::Op::kLayerNorm2d) {
    EXPECT_EQ(allocations, 0) << "a row-norm kernel, built without asserts, allocates";
    return;
  }
  ASSERT_GT(allocations, 0) << "channel-norm kernels allocate";
  // Each allocation failing alone (up to 24 of them), then all, on 1 and 2
  // threads (with 2, the failing tile may run on a pool thread).
  const std::string expected =
      absl::StrCat("kernel ", variant.name, " failed: Out of memory (halide_malloc");
  int partial_writes = 0;
  for (int threads : {1, 2}) {
    halnorm_set_num_threads(threads);
    for (int64_t k = 0; k <= std::min<int64_t>(allocations, 24); ++k) {
      const bool all = k == std::min<int64_t>(allocations, 24);
      SCOPED_TRACE(absl::StrCat(threads, " threads, ", all ? "every allocation" : "allocation ",
                                all ? "" : absl::StrCat(k), " failing"));
      Problem failing(c);
      calls = 0;
      fail_at = all ? -1 : k;
      fail_all = all;
      ::testing::internal::CaptureStderr();
      const absl::Status status = run(failing);
      EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
      EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;  // HALNORM_ERROR_KERNEL
      EXPECT_THAT(std::string(status.message()), ::testing::StartsWith(expected));
      const std::vector<const TestTensor*> got = failing.Outputs(), want = clean.Outputs();
      for (size_t i = 0; i < got.size(); ++i) {
        partial_writes +=
            ExpectUntouchedOrCorrect(*got[i], *want[i], absl::StrCat("output ", i).c_str());
      }
      if constexpr (std::is_same_v<Problem, testutil::LayerNorm2dBackwardProblem>) {
        // (braces: EXPECT_TRUE is an if/else of its own)
        if (failing.dweight()) {
          EXPECT_TRUE(testutil::AllSentinel(*failing.dweight()));
        }
        if (failing.dbias()) {
          EXPECT_TRUE(testutil::AllSentinel(*failing.dbias()));
        }
      }
    }
  }
  ::testing::Test::RecordProperty("partially_written_outputs", partial_writes);
}

class HalideAllocFailureTest : public HalideMallocHook,
                               public ::testing::WithParamInterface<const Variant*> {};

// Shapes whose tiles do not divide H*W (the backward allocates only then),
// with several tiles per sample.
constexpr reference::Nchw kShape = {2, 16, 14, 14};

TEST_P(HalideAllocFailureTest, KernelAllocationFailureIsAnError) {
  const Variant& v = *GetParam();
  if (!internal::HostSupports(v.isa)) GTEST_SKIP() << "CPU lacks " << internal::IsaName(v.isa);
  if (v.op == internal::Op::kLayerNorm2d) {
    testutil::LayerNorm2dCase c;
    c.variant = &v;
    c.direction = v.direction;
    c.dtype = v.dtype;
    c.shape = kShape;
    if (v.direction == Direction::kForward) {
      CheckKernel<testutil::LayerNorm2dForwardProblem>(c, v, [](auto& p) { return p.Run(); });
    } else {
      CheckKernel<testutil::LayerNorm2dBackwardProblem>(c, v, [](auto& p) { return p.Run(); });
    }
    return;
  }
  const testutil::RowNormCase c = testutil::MatrixCase(v, 64, 1000);
  if (v.direction == Direction::kForward) {
    CheckKernel<testutil::ForwardProblem>(c, v, [&](auto& p) { return p.Run(&v); });
  } else {
    CheckKernel<testutil::BackwardProblem>(c, v, [&](auto& p) { return p.Run(&v); });
  }
}

std::vector<const Variant*> CpuVariants() {
  std::vector<const Variant*> variants;
  for (const Variant& v : internal::AllVariants()) {
    if (v.device == internal::Device::kCpu) variants.push_back(&v);
  }
  return variants;
}

INSTANTIATE_TEST_SUITE_P(CpuVariants, HalideAllocFailureTest, ::testing::ValuesIn(CpuVariants()),
                         [](const ::testing::TestParamInfo<const Variant*>& info) {
                           return std::string(info.param->name);
                         });

// Through the public API: the code and the message of halnorm_last_error().
TEST_F(HalideMallocHook, PublicCallReturnsKernelErrorCode) {
  testutil::LayerNorm2dCase c;
  c.shape = kShape;  // dispatched AXES_C over NCHW: a channel-norm kernel
  testutil::LayerNorm2dForwardProblem problem(c);
  Plan(-1, /*all=*/true);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(problem.RunPublic(), HALNORM_ERROR_KERNEL);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_GT(calls.load(), 0) << "the hook was never called";
  EXPECT_THAT(halnorm_last_error(), ::testing::HasSubstr("failed: Out of memory"));
  Plan(-1, /*all=*/false);
  EXPECT_EQ(problem.RunPublic(), HALNORM_OK) << halnorm_last_error();
  EXPECT_STREQ(halnorm_last_error(), "");
}

}  // namespace
}  // namespace halnorm
