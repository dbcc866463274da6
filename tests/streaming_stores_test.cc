// Which variants have a streaming-stores twin, and when dispatch uses it
// (HALNORM_STREAMING_STORES, read once: one test target per setting).
#include "runtime/streaming_stores.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "runtime/thread_limit.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

std::string Policy() {
  const char* v = std::getenv("HALNORM_STREAMING_STORES");
  return v ? v : "auto";
}

// Kernels' parallel loops run on `n` threads while it lives.
class ThreadsForScope {
 public:
  explicit ThreadsForScope(int n) { SetThreadLimit(n); }
  ~ThreadsForScope() { SetThreadLimit(0); }
};

// Row norms on AVX targets, but not the native-params forwards: dispatch
// runs those on calls of a few rows only.
bool BuiltWithTwin(const Variant& v) {
  const bool row_norm = v.op == Op::kLayerNorm || v.op == Op::kRmsNorm;
  const std::string target = v.target;
  return row_norm && !v.native_params &&
         (target == "x86_avx2" || target == "x86_avx512" || target == "x86_avx512_bf16");
}

TEST(StreamingStoresTest, RowNormVariantsOfAvxTargetsHaveTwins) {
  for (const Variant& v : AllVariants()) {
    EXPECT_EQ(v.streaming_argv != nullptr, BuiltWithTwin(v)) << v.name;
    EXPECT_NE(v.streaming_argv, v.argv) << v.name;
  }
}

// The request whose tensors (x and y of f32) hold `bytes`.
KernelRequest ForwardOf(const Variant& v, int64_t bytes) {
  return {v.op, v.direction, HALNORM_F32, false, 1024, bytes / (2 * 1024 * 4)};
}

TEST(StreamingStoresTest, PolicyPicksTheTwin) {
  const ThreadsForScope one_thread(1);
  const std::string policy = Policy();
  for (const Variant& v : AllVariants()) {
    if (v.direction != Direction::kForward) continue;
    const KernelRequest large = ForwardOf(v, StreamingMinFootprint());
    const KernelRequest small = ForwardOf(v, StreamingMinFootprint() - 2 * 1024 * 4);
    const bool twin = v.streaming_argv != nullptr;
    const bool large_streams = policy == "always" || (policy == "auto" && !StoresBf16InSoftware(v));
    EXPECT_EQ(UseStreamingStores(large, v), twin && large_streams) << v.name;
    EXPECT_EQ(UseStreamingStores(small, v), twin && policy == "always") << v.name;
  }
}

TEST(StreamingStoresTest, FootprintCountsEveryActivationTensor) {
  if (Policy() != "auto") GTEST_SKIP() << "checks the auto threshold";
  for (const Variant& v : AllVariants()) {
    if (v.streaming_argv == nullptr || v.dtype != HALNORM_F32) continue;
    // rows x 1024 f32 tensors: 2 forward, 4 fused with the residual, 3 backward.
    const int64_t tensors =
        v.direction == Direction::kBackward ? 3 : (v.fused_residual ? 4 : 2);
    const int64_t row_bytes = tensors * 1024 * 4;
    const int64_t rows = (StreamingMinFootprint() + row_bytes - 1) / row_bytes;  // the first above
    KernelRequest r{v.op, v.direction, HALNORM_F32, v.fused_residual, 1024, rows};
    EXPECT_TRUE(UseStreamingStores(r, v)) << v.name;
    r.rows = rows - 1;
    EXPECT_FALSE(UseStreamingStores(r, v)) << v.name;
  }
}

// bf16 rounded in integer vector ops (x86_avx2) keeps plain stores under
// auto on one thread at any size, and streams on two; the AVX-512 targets'
// bf16 and other dtypes stream on any thread count.
TEST(StreamingStoresTest, Bf16ConvertedInSoftwareStreamsOnlyOnSeveralThreads) {
  if (Policy() != "auto") GTEST_SKIP() << "checks the auto rule";
  int software = 0;
  for (const Variant& v : AllVariants()) {
    if (v.streaming_argv == nullptr) continue;
    const std::string target = v.target;
    EXPECT_EQ(StoresBf16InSoftware(v), v.dtype == HALNORM_BF16 && target == "x86_avx2") << v.name;
    KernelRequest r{v.op, v.direction, v.dtype, v.fused_residual, 4096, 16384};
    EXPECT_TRUE(StreamsWithTwin(r)) << v.name;  // 128 MiB or more of tensors
    {
      const ThreadsForScope one_thread(1);
      EXPECT_EQ(UseStreamingStores(r, v), !StoresBf16InSoftware(v)) << v.name;
    }
    const ThreadsForScope two_threads(2);
    EXPECT_TRUE(UseStreamingStores(r, v)) << v.name;
    software += StoresBf16InSoftware(v);
  }
#if defined(__x86_64__)
  EXPECT_GT(software, 0);  // x86 builds have x86_avx2 bf16 twins
#endif
}

// f32 backward rows of N > 2048 stream from a quarter of the general line;
// shorter rows, and the forwards, keep it.
TEST(StreamingStoresTest, F32BackwardRowsThatFillL1StreamEarlier) {
  if (Policy() != "auto") GTEST_SKIP() << "checks the auto threshold";
  for (const Variant& v : AllVariants()) {
    if (v.streaming_argv == nullptr || v.dtype != HALNORM_F32) continue;
    const int tensors = v.direction == Direction::kBackward ? 3 : 2;
    for (const int64_t hidden : {1024, 2048, 3072, 4096, 8192, 65536}) {
      const bool earlier = v.direction == Direction::kBackward && hidden > 2048;
      const int64_t line = StreamingMinFootprint() / (earlier ? 4 : 1);
      const int64_t row_bytes = tensors * hidden * 4;
      const int64_t rows = (line + row_bytes - 1) / row_bytes;  // the first at or above the line
      KernelRequest r{v.op, v.direction, HALNORM_F32, false, hidden, rows};
      EXPECT_EQ(StreamingMinFootprint(r), line) << v.name << " N=" << hidden;
      EXPECT_TRUE(UseStreamingStores(r, v)) << v.name << " N=" << hidden;
      r.rows = rows - 1;
      EXPECT_FALSE(UseStreamingStores(r, v)) << v.name << " N=" << hidden;
      EXPECT_FALSE(StreamsWithTwin(r)) << v.name << " N=" << hidden;
    }
  }
}

}  // namespace
}  // namespace halnorm::internal
