// Which CUDA config dispatch picks for a row (runtime/cuda_dispatch.h): the
// threads follow the row's bytes, unaligned rows take vector_width = 1; and
// for LayerNorm2d's channel-norm kernels, by the pixels of the call.
// Needs no GPU: it only reads the variant registry. Builds without CUDA
// kernels (aarch64, halnorm_gpu_kernels=off) skip it.
#include "runtime/cuda_dispatch.h"

#include "gtest/gtest.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

struct Expected {
  halnorm_dtype dtype;
  int64_t hidden;
  int alignment;  // KernelRequest::row_vector_alignment
  int threads;
  int vector_width;
};

class CudaDispatchTest : public ::testing::TestWithParam<Expected> {};

TEST_P(CudaDispatchTest, PicksConfigForRowBytes) {
  if (!BuildHasDevice(Device::kCuda)) GTEST_SKIP() << "this build has no CUDA kernels";
  const Expected& e = GetParam();
  for (Op op : {Op::kLayerNorm, Op::kRmsNorm}) {
    for (Direction direction : {Direction::kForward, Direction::kBackward}) {
      const KernelRequest request{op,       direction, e.dtype,      false,
                                  e.hidden, 4096,      HALNORM_CUDA, e.alignment};
      absl::StatusOr<const Variant*> v = PickCudaVariant(request);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_EQ((*v)->device, Device::kCuda);
      EXPECT_EQ((*v)->op, op);
      EXPECT_EQ((*v)->direction, direction);
      EXPECT_EQ((*v)->dtype, e.dtype);
      EXPECT_EQ(ConfigKnob(**v, "threads"), e.threads) << (*v)->name;
      EXPECT_EQ(ConfigKnob(**v, "vector_width"), e.vector_width) << (*v)->name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CudaDispatchTest,
    ::testing::Values(
        // Each thread gets 64-127 bytes of the row, up to 512 threads;
        // 1024 from 128 KiB rows.
        Expected{HALNORM_BF16, 768, 8, 32, 4}, Expected{HALNORM_F32, 768, 8, 32, 4},
        Expected{HALNORM_BF16, 2048, 8, 64, 4}, Expected{HALNORM_F32, 1024, 8, 64, 4},
        Expected{HALNORM_F16, 4096, 8, 128, 4}, Expected{HALNORM_F32, 2048, 8, 128, 4},
        Expected{HALNORM_BF16, 8192, 8, 256, 4}, Expected{HALNORM_F32, 4096, 8, 256, 4},
        Expected{HALNORM_BF16, 16384, 4, 512, 4}, Expected{HALNORM_F32, 16384, 8, 512, 4},
        Expected{HALNORM_F32, 32768, 8, 1024, 4}, Expected{HALNORM_BF16, 32768, 8, 512, 4},
        Expected{HALNORM_BF16, 65536, 8, 1024, 4}, Expected{HALNORM_F32, 1 << 20, 8, 1024, 4},
        // Rows that are not whole aligned vectors of 4.
        Expected{HALNORM_BF16, 4096, 2, 128, 1}, Expected{HALNORM_F32, 1001, 1, 128, 1},
        Expected{HALNORM_F32, 16, 1, 128, 1}));

// ConvNeXt-T's stages at batch 1 and 8: 256-pixel blocks once every SM of
// a large GPU (132) gets one, 64-pixel ones below.
TEST(CudaChannelDispatchTest, PicksBlockForPixels) {
  if (!BuildHasDevice(Device::kCuda)) GTEST_SKIP() << "this build has no CUDA kernels";
  struct Case {
    int64_t pixels;  // N*H*W
    int pixels_per_task;
  };
  for (const Case& c : {Case{56 * 56, 64}, Case{8 * 56 * 56, 64}, Case{8 * 7 * 7, 64},
                        Case{8 * 64 * 64, 64}, Case{132 * 256, 256}, Case{64 * 64 * 64, 256}}) {
    for (Direction direction : {Direction::kForward, Direction::kBackward}) {
      for (halnorm_dtype dtype : {HALNORM_F32, HALNORM_F16, HALNORM_BF16}) {
        const KernelRequest request{Op::kLayerNorm2d, direction,   dtype, false, 96,
                                    c.pixels,         HALNORM_CUDA};
        absl::StatusOr<const Variant*> v = PickCudaVariant(request);
        ASSERT_TRUE(v.ok()) << v.status();
        EXPECT_EQ((*v)->device, Device::kCuda);
        EXPECT_EQ((*v)->op, Op::kLayerNorm2d);
        EXPECT_EQ((*v)->direction, direction);
        EXPECT_EQ((*v)->dtype, dtype);
        EXPECT_EQ(ConfigKnob(**v, "pixels_per_task"), c.pixels_per_task)
            << (*v)->name << " for " << c.pixels << " pixels";
      }
    }
  }
}

}  // namespace
}  // namespace halnorm::internal
