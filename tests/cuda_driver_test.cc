// The CUDA driver layer (runtime/cuda_driver.h) and the Halide CUDA hooks
// (runtime/cuda_call_context.h).
//
// CudaDriverTest runs for real only where a GPU and its driver (libcuda.so.1)
// exist, e.g. an H100 machine. Everywhere else (dev machines, CI) each of its
// tests checks that loading the driver failed with "CUDA is not available:
// ..." and is reported SKIPPED with that message. The tests against a fake
// driver (error texts, the per-thread call state) run everywhere.
#include "runtime/cuda_driver.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/cuda_call_context.h"

namespace halnorm::internal {
namespace {

// Opaque handles the fake driver and the hooks pass around, never dereferenced.
CUcontext FakeContext(uintptr_t id) { return reinterpret_cast<CUcontext>(id); }
void* FakeStream(uintptr_t id) { return reinterpret_cast<void*>(id); }

CUcontext AcquiredContext(bool create, int* result) {
  CUcontext context = FakeContext(0xbad);
  *result = halide_cuda_acquire_context(nullptr, &context, create);
  return context;
}

CUstream Stream() {
  CUstream stream = nullptr;
  EXPECT_EQ(halide_cuda_get_stream(nullptr, nullptr, &stream), 0);
  return stream;
}

// --- Without a GPU: a fake driver with a context stack and two error texts.

std::vector<CUcontext>& FakeContextStack() {
  static auto* const stack = new std::vector<CUcontext>;
  return *stack;
}

CudaDriver FakeDriver() {
  CudaDriver driver;
  driver.cuGetErrorString = [](CUresult error, const char** text) -> CUresult {
    *text = error == 2 ? "out of memory" : nullptr;
    return *text != nullptr ? 0 : 1;  // 1 = CUDA_ERROR_INVALID_VALUE: unknown code
  };
  driver.cuCtxPushCurrent_v2 = [](CUcontext context) -> CUresult {
    FakeContextStack().push_back(context);
    return 0;
  };
  driver.cuCtxPopCurrent_v2 = [](CUcontext* context) -> CUresult {
    *context = FakeContextStack().back();
    FakeContextStack().pop_back();
    return 0;
  };
  return driver;
}

TEST(CudaCheckTest, SuccessIsOk) { EXPECT_TRUE(CudaCheck(FakeDriver(), 0, "cuInit").ok()); }

TEST(CudaCheckTest, NamesTheCallTheDriversTextAndTheCode) {
  const absl::Status status = CudaCheck(FakeDriver(), 2, "cuMemAlloc");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(), "cuMemAlloc failed: out of memory (CUDA error 2)");
}

TEST(CudaCheckTest, UnknownCodesStillSayWhatFailed) {
  EXPECT_EQ(CudaCheck(FakeDriver(), 12345, "cuMemFree").message(),
            "cuMemFree failed: unknown CUDA error (CUDA error 12345)");
}

TEST(ScopedCudaCallTest, HooksReturnTheCallsContextAndStream) {
  const CudaDriver driver = FakeDriver();
  {
    ScopedCudaCall call(driver, FakeContext(0x10), FakeStream(0x20));
    ASSERT_TRUE(call.status().ok()) << call.status();
    EXPECT_EQ(FakeContextStack(), std::vector<CUcontext>{FakeContext(0x10)});
    int result = -1;
    EXPECT_EQ(AcquiredContext(/*create=*/true, &result), FakeContext(0x10));
    EXPECT_EQ(result, 0);
    EXPECT_EQ(Stream(), FakeStream(0x20));
    EXPECT_EQ(halide_cuda_release_context(nullptr), 0);
  }
  EXPECT_TRUE(FakeContextStack().empty());
  EXPECT_EQ(Stream(), nullptr);
}

TEST(ScopedCudaCallTest, InnerCallWinsUntilItEnds) {
  const CudaDriver driver = FakeDriver();
  ScopedCudaCall outer(driver, FakeContext(0x10), FakeStream(0x20));
  {
    ScopedCudaCall inner(driver, FakeContext(0x11), nullptr);
    int result = -1;
    EXPECT_EQ(AcquiredContext(/*create=*/true, &result), FakeContext(0x11));
    EXPECT_EQ(Stream(), nullptr);
    EXPECT_EQ(FakeContextStack().size(), 2u);
  }
  int result = -1;
  EXPECT_EQ(AcquiredContext(/*create=*/true, &result), FakeContext(0x10));
  EXPECT_EQ(Stream(), FakeStream(0x20));
  EXPECT_EQ(FakeContextStack().size(), 1u);
}

TEST(ScopedCudaCallTest, OtherThreadsDoNotSeeTheCall) {
  const CudaDriver driver = FakeDriver();
  ScopedCudaCall call(driver, FakeContext(0x10), FakeStream(0x20));
  void* seen = FakeStream(0xbad);
  std::thread([&seen] { seen = Stream(); }).join();
  EXPECT_EQ(seen, nullptr);
}

TEST(ScopedCudaCallTest, NullContextIsAnError) {
  const CudaDriver driver = FakeDriver();
  ScopedCudaCall call(driver, nullptr, nullptr);
  EXPECT_EQ(call.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(FakeContextStack().empty());
}

// Outside any call and with no current context (no driver here, or a GPU
// machine where nothing made one current), Halide must not get a context.
TEST(HalideCudaHooksTest, NoContextOutsideACallWithoutACurrentOne) {
  int result = 0;
  EXPECT_EQ(AcquiredContext(/*create=*/true, &result), nullptr);
  EXPECT_NE(result, 0);
  // create == false only asks whether one exists: "none" is a valid answer.
  EXPECT_EQ(AcquiredContext(/*create=*/false, &result), nullptr);
  EXPECT_EQ(result, 0);
}

// --- With a GPU: the real driver.

constexpr size_t kBytes = 1 << 20;

// kBytes of device memory allocated, and freed at scope exit, in `context`.
class DeviceBytes {
 public:
  DeviceBytes(const CudaDriver& driver, CUcontext context) : driver_(driver), context_(context) {
    ScopedCudaCall current(driver_, context_, nullptr);
    status_ = CudaCheck(driver_, driver_.cuMemAlloc_v2(&address_, kBytes), "cuMemAlloc");
  }
  ~DeviceBytes() {
    if (address_ == 0) return;
    ScopedCudaCall current(driver_, context_, nullptr);
    driver_.cuMemFree_v2(address_);
  }

  const absl::Status& status() const { return status_; }
  CUdeviceptr address() const { return address_; }
  const void* pointer() const { return reinterpret_cast<const void*>(address_); }

 private:
  const CudaDriver& driver_;
  CUcontext context_;
  CUdeviceptr address_ = 0;
  absl::Status status_;
};

class CudaDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<const CudaDriver*> driver = LoadCudaDriver();
    if (!driver.ok()) {
      ASSERT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition) << driver.status();
      ASSERT_TRUE(absl::StartsWith(driver.status().message(), "CUDA is not available"))
          << driver.status();
      GTEST_SKIP() << driver.status().message();
    }
    driver_ = *driver;
    ASSERT_EQ(CurrentContext(), nullptr) << "an earlier test left a context current";
    // Retained per test and never released: the process ends soon anyway.
    ASSERT_TRUE(Check(driver_->cuDeviceGet(&device_, 0), "cuDeviceGet"));
    ASSERT_TRUE(Check(driver_->cuDevicePrimaryCtxRetain(&primary_, device_), "cuDevicePrimaryCtx"));
  }

  ::testing::AssertionResult Check(CUresult result, absl::string_view what) {
    const absl::Status status = CudaCheck(*driver_, result, what);
    if (status.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << status;
  }

  CUcontext CurrentContext() {
    CUcontext current = FakeContext(0xbad);
    EXPECT_TRUE(Check(driver_->cuCtxGetCurrent(&current), "cuCtxGetCurrent"));
    return current;
  }

  const CudaDriver* driver_ = nullptr;
  CUdevice device_ = -1;
  CUcontext primary_ = nullptr;  // device 0's
};

TEST_F(CudaDriverTest, LoadsOnceAndFindsADevice) {
  EXPECT_EQ(*LoadCudaDriver(), driver_);
  char name[256] = {};
  ASSERT_TRUE(Check(driver_->cuDeviceGetName(name, static_cast<int>(sizeof(name)), device_),
                    "cuDeviceGetName"));
  int major = 0;
  constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  ASSERT_TRUE(Check(driver_->cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device_),
                    "cuDeviceGetAttribute"));
  EXPECT_GE(major, 3);
  RecordProperty("device", absl::StrCat(name, ", sm_", major, "x"));
}

TEST_F(CudaDriverTest, CopiesRoundTripThroughDeviceMemory) {
  DeviceBytes a(*driver_, primary_);
  DeviceBytes b(*driver_, primary_);
  ASSERT_TRUE(a.status().ok()) << a.status();
  ASSERT_TRUE(b.status().ok()) << b.status();
  std::vector<uint8_t> pattern(kBytes);
  for (size_t i = 0; i < kBytes; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + (i >> 11));
  std::vector<uint8_t> back(kBytes, 0);

  ScopedCudaCall call(*driver_, primary_, nullptr);
  ASSERT_TRUE(call.status().ok()) << call.status();
  ASSERT_TRUE(Check(driver_->cuMemsetD8_v2(b.address(), 0x5a, kBytes), "cuMemsetD8"));
  ASSERT_TRUE(Check(driver_->cuMemcpyDtoH_v2(back.data(), b.address(), kBytes), "cuMemcpyDtoH"));
  EXPECT_EQ(back, std::vector<uint8_t>(kBytes, 0x5a));

  ASSERT_TRUE(Check(driver_->cuMemcpyHtoD_v2(a.address(), pattern.data(), kBytes), "HtoD"));
  ASSERT_TRUE(Check(driver_->cuMemcpyDtoD_v2(b.address(), a.address(), kBytes), "DtoD"));
  ASSERT_TRUE(Check(driver_->cuMemcpyDtoH_v2(back.data(), b.address(), kBytes), "DtoH"));
  EXPECT_TRUE(back == pattern) << "first difference at byte "
                               << (std::mismatch(back.begin(), back.end(), pattern.begin()).first -
                                   back.begin());
  EXPECT_TRUE(Check(driver_->cuCtxSynchronize(), "cuCtxSynchronize"));
}

TEST_F(CudaDriverTest, EventsTimeWorkOnTheDefaultStream) {
  DeviceBytes a(*driver_, primary_);
  ASSERT_TRUE(a.status().ok()) << a.status();
  ScopedCudaCall call(*driver_, primary_, nullptr);
  CUevent start = nullptr;
  CUevent end = nullptr;
  ASSERT_TRUE(Check(driver_->cuEventCreate(&start, 0), "cuEventCreate"));
  ASSERT_TRUE(Check(driver_->cuEventCreate(&end, 0), "cuEventCreate"));
  ASSERT_TRUE(Check(driver_->cuEventRecord(start, nullptr), "cuEventRecord"));
  ASSERT_TRUE(Check(driver_->cuMemsetD8_v2(a.address(), 0, kBytes), "cuMemsetD8"));
  ASSERT_TRUE(Check(driver_->cuEventRecord(end, nullptr), "cuEventRecord"));
  ASSERT_TRUE(Check(driver_->cuEventSynchronize(end), "cuEventSynchronize"));
  float milliseconds = -1;
  ASSERT_TRUE(Check(driver_->cuEventElapsedTime(&milliseconds, start, end), "ElapsedTime"));
  EXPECT_GE(milliseconds, 0);
  EXPECT_TRUE(Check(driver_->cuStreamSynchronize(nullptr), "cuStreamSynchronize"));
  EXPECT_TRUE(Check(driver_->cuEventDestroy_v2(start), "cuEventDestroy"));
  EXPECT_TRUE(Check(driver_->cuEventDestroy_v2(end), "cuEventDestroy"));
}

TEST_F(CudaDriverTest, ContextForDeviceMemoryIsThePrimaryOrTheCurrentContext) {
  DeviceBytes a(*driver_, primary_);
  ASSERT_TRUE(a.status().ok()) << a.status();
  absl::StatusOr<CUcontext> context = ContextForPointer(*driver_, a.pointer(), "x");
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(*context, primary_);  // nothing current: the device's primary context

  ScopedCudaCall call(*driver_, primary_, nullptr);
  context = ContextForPointer(*driver_, a.pointer(), "x");
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(*context, primary_);
}

TEST_F(CudaDriverTest, ContextForHostMemoryNamesTheArgument) {
  std::vector<float> host(1024, 1.0f);
  absl::StatusOr<CUcontext> context = ContextForPointer(*driver_, host.data(), "weight");
  EXPECT_EQ(context.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(), "weight: data is not CUDA device memory");

  context = ContextForPointer(*driver_, nullptr, "bias");
  EXPECT_EQ(context.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(), "bias: data is not CUDA device memory");
}

TEST_F(CudaDriverTest, ScopedCallMakesItsContextCurrentAndRestoresNone) {
  {
    ScopedCudaCall call(*driver_, primary_, FakeStream(0x20));  // the stream is only passed on
    ASSERT_TRUE(call.status().ok()) << call.status();
    EXPECT_EQ(CurrentContext(), primary_);
    int result = -1;
    EXPECT_EQ(AcquiredContext(/*create=*/true, &result), primary_);
    EXPECT_EQ(result, 0);
    EXPECT_EQ(Stream(), FakeStream(0x20));
  }
  EXPECT_EQ(CurrentContext(), nullptr);
  int result = 0;
  EXPECT_EQ(AcquiredContext(/*create=*/true, &result), nullptr);
  EXPECT_NE(result, 0);
  EXPECT_EQ(Stream(), nullptr);
}

TEST_F(CudaDriverTest, OutsideACallHooksUseTheCallersCurrentContext) {
  ASSERT_TRUE(Check(driver_->cuCtxPushCurrent_v2(primary_), "cuCtxPushCurrent"));
  {
    ScopedCudaCall call(*driver_, primary_, nullptr);
    EXPECT_EQ(CurrentContext(), primary_);
  }
  EXPECT_EQ(CurrentContext(), primary_);  // the caller's push is still in place
  int result = -1;
  EXPECT_EQ(AcquiredContext(/*create=*/true, &result), primary_);
  EXPECT_EQ(result, 0);
  CUcontext popped = nullptr;
  ASSERT_TRUE(Check(driver_->cuCtxPopCurrent_v2(&popped), "cuCtxPopCurrent"));
  EXPECT_EQ(popped, primary_);
  EXPECT_EQ(CurrentContext(), nullptr);
}

TEST_F(CudaDriverTest, HalideGetsItsDriverSymbolsFromOurs) {
  EXPECT_EQ(halide_cuda_get_symbol(nullptr, "cuMemAlloc_v2"),
            reinterpret_cast<void*>(driver_->cuMemAlloc_v2));
  EXPECT_EQ(halide_cuda_get_symbol(nullptr, "cuNoSuchFunction"), nullptr);
}

}  // namespace
}  // namespace halnorm::internal
