// The runtime's own CUDA kernels: their PTX assembles with ptxas for sm_80
// and sm_90 (skipped without a CUDA toolkit). On a GPU (skipped without
// one), the parameter conversions (runtime/cuda_param_convert.h) give the
// host conversions' bits for every 16-bit pattern and for f32 values around
// every rounding case, and the channel planes (runtime/cuda_channel_planes.h)
// the host loops' values, bitwise.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/cuda_channel_planes.h"
#include "runtime/cuda_param_convert.h"
#include "runtime/half_float.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

std::string FindPtxas() {
  for (const char* candidate : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"}) {
    if (std::ifstream(candidate).good()) return candidate;
  }
  return "";
}

struct Module {
  const char* name;
  const std::string& (*ptx)();
};

class PtxAssemblesTest : public ::testing::TestWithParam<Module> {};

TEST_P(PtxAssemblesTest, ForSm80AndSm90) {
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "SKIPPED: no CUDA toolkit here (no ptxas)";
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  const std::string ptx = absl::StrCat(dir, "/", GetParam().name, ".ptx");
  std::ofstream(ptx) << GetParam().ptx();
  for (const char* arch : {"sm_80", "sm_90"}) {
    const std::string command =
        absl::StrCat(ptxas, " -arch=", arch, " -o ", dir, "/", arch, ".cubin ", ptx, " 2>&1");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
}

INSTANTIATE_TEST_SUITE_P(Modules, PtxAssemblesTest,
                         ::testing::Values(Module{"param_convert", ParamConvertPtx},
                                           Module{"channel_planes", ChannelPlanesPtx}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CudaParamConvertTest, RefusesF32) {
  EXPECT_EQ(ConvertParamOnCuda(CudaDriver{}, nullptr, nullptr, HALNORM_F32, ParamConversion::kToF32,
                               nullptr, nullptr, 1)
                .code(),
            absl::StatusCode::kInvalidArgument);
}

class OnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<const CudaDriver*> driver = LoadCudaDriver();
    if (!driver.ok()) GTEST_SKIP() << driver.status().message();
    driver_ = *driver;
    absl::StatusOr<CUcontext> context = PrimaryContext(*driver_, 0);
    ASSERT_TRUE(context.ok()) << context.status();
    context_ = *context;
    ASSERT_EQ(driver_->cuCtxSetCurrent(context_), 0);
  }

  // Runs the conversion on a device copy of `in` (count elements of
  // in_bytes each) and returns the out_bytes-element result's bytes.
  std::vector<uint8_t> Convert(halnorm_dtype dtype, ParamConversion conversion, const void* in,
                               int64_t count) {
    const bool to_f32 = conversion == ParamConversion::kToF32;
    const size_t in_bytes = count * (to_f32 ? 2 : 4), out_bytes = count * (to_f32 ? 4 : 2);
    CUdeviceptr src = 0, dst = 0;
    EXPECT_EQ(driver_->cuMemAlloc_v2(&src, in_bytes), 0);
    EXPECT_EQ(driver_->cuMemAlloc_v2(&dst, out_bytes), 0);
    EXPECT_EQ(driver_->cuMemcpyHtoD_v2(src, in, in_bytes), 0);
    absl::Status status =
        ConvertParamOnCuda(*driver_, context_, nullptr, dtype, conversion,
                           reinterpret_cast<void*>(src), reinterpret_cast<void*>(dst), count);
    EXPECT_TRUE(status.ok()) << status;
    std::vector<uint8_t> out(out_bytes);
    EXPECT_EQ(driver_->cuMemcpyDtoH_v2(out.data(), dst, out_bytes), 0);
    driver_->cuMemFree_v2(src);
    driver_->cuMemFree_v2(dst);
    return out;
  }

  // A device copy of `values` (freed at the end of the test).
  float* Upload(const std::vector<float>& values) {
    CUdeviceptr pointer = 0;
    EXPECT_EQ(driver_->cuMemAlloc_v2(&pointer, std::max<size_t>(4, 4 * values.size())), 0);
    EXPECT_EQ(driver_->cuMemcpyHtoD_v2(pointer, values.data(), 4 * values.size()), 0);
    allocations_.push_back(pointer);
    return reinterpret_cast<float*>(pointer);
  }
  std::vector<float> Download(const float* data, size_t count) {
    std::vector<float> out(count);
    EXPECT_EQ(driver_->cuMemcpyDtoH_v2(out.data(), reinterpret_cast<CUdeviceptr>(data), 4 * count),
              0);
    return out;
  }
  void TearDown() override {
    for (CUdeviceptr pointer : allocations_) driver_->cuMemFree_v2(pointer);
  }

  const CudaDriver* driver_ = nullptr;
  CUcontext context_ = nullptr;
  std::vector<CUdeviceptr> allocations_;
};

std::vector<float> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.f, 1000.f);
  std::vector<float> values(count);
  for (float& v : values) v = normal(random);
  return values;
}

TEST_F(OnGpu, EveryHalfPatternToF32) {
  std::vector<uint16_t> patterns(1 << 16);
  for (size_t i = 0; i < patterns.size(); i++) patterns[i] = static_cast<uint16_t>(i);
  for (halnorm_dtype dtype : {HALNORM_F16, HALNORM_BF16}) {
    const std::vector<uint8_t> out =
        Convert(dtype, ParamConversion::kToF32, patterns.data(), patterns.size());
    for (size_t i = 0; i < patterns.size(); i++) {
      float got;
      std::memcpy(&got, out.data() + 4 * i, 4);
      const float want = dtype == HALNORM_F16 ? HalfToFloat(patterns[i]) : Bf16ToFloat(patterns[i]);
      if (want != want) {
        EXPECT_NE(got, got) << DtypeName(dtype) << " pattern " << i;
      } else {
        EXPECT_EQ(std::memcmp(&got, &want, 4), 0) << DtypeName(dtype) << " pattern " << i;
      }
    }
  }
}

TEST_F(OnGpu, F32ToHalfRoundsAsTheHost) {
  // Every 16-bit pattern widened, plus neighbours and midpoints between
  // them (ties to even), plus random bits (NaNs, infinities, subnormals).
  std::vector<float> values;
  for (uint32_t i = 0; i < (1u << 16); i++) {
    for (uint32_t low : {0u, 1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t bits = (i << 16) | low;
      float v;
      std::memcpy(&v, &bits, 4);
      values.push_back(v);
    }
    values.push_back(HalfToFloat(static_cast<uint16_t>(i)));
  }
  std::mt19937 random(7);
  for (int i = 0; i < (1 << 16); i++) {
    const uint32_t bits = random();
    float v;
    std::memcpy(&v, &bits, 4);
    values.push_back(v);
  }
  for (halnorm_dtype dtype : {HALNORM_F16, HALNORM_BF16}) {
    const std::vector<uint8_t> out =
        Convert(dtype, ParamConversion::kFromF32, values.data(), values.size());
    int mismatches = 0;
    for (size_t i = 0; i < values.size() && mismatches < 10; i++) {
      uint16_t got;
      std::memcpy(&got, out.data() + 2 * i, 2);
      const uint16_t want = dtype == HALNORM_F16 ? FloatToHalf(values[i]) : FloatToBf16(values[i]);
      const bool got_nan = dtype == HALNORM_F16 ? HalfToFloat(got) != HalfToFloat(got)
                                                : Bf16ToFloat(got) != Bf16ToFloat(got);
      if (values[i] != values[i] ? !got_nan : got != want) {
        ADD_FAILURE() << DtypeName(dtype) << " " << values[i] << ": got 0x" << std::hex << got
                      << ", want 0x" << want;
        mismatches++;
      }
    }
  }
}

// [C][per_channel] planes (inner = per_channel) and [per_channel][C] ones
// (inner = 1), against the host's index arithmetic.
TEST_F(OnGpu, ExpandChannelsRepeatsEachChannel) {
  const int64_t channels = 5, per_channel = 300;
  const std::vector<float> values = RandomValues(channels, 1);
  for (int64_t inner : {per_channel, int64_t{1}}) {
    const std::vector<float> zeros(channels * per_channel);
    float* plane = Upload(zeros);
    ASSERT_TRUE(ExpandChannelsOnCuda(*driver_, context_, nullptr, Upload(values), plane,
                                     channels * per_channel, inner, channels)
                    .ok());
    const std::vector<float> got = Download(plane, zeros.size());
    for (int64_t i = 0; i < channels * per_channel; i++) {
      ASSERT_EQ(got[i], values[(i / inner) % channels]) << "inner " << inner << ", i " << i;
    }
  }
}

// The sums in their fixed order (large values, so another order would round
// differently), over columns laid out either way and over one row.
TEST_F(OnGpu, SumColumnsAddsInOrder) {
  const int64_t columns = 7;
  for (int64_t rows : {int64_t{1}, int64_t{1000}}) {
    const std::vector<float> values = RandomValues(columns * rows, 2);
    for (bool interleaved : {false, true}) {
      const int64_t column_stride = interleaved ? 1 : rows;
      const int64_t row_stride = interleaved ? columns : 1;
      float* sums = Upload(std::vector<float>(columns));
      ASSERT_TRUE(SumColumnsOnCuda(*driver_, context_, nullptr, Upload(values), sums, columns, rows,
                                   column_stride, row_stride)
                      .ok());
      const std::vector<float> got = Download(sums, columns);
      for (int64_t c = 0; c < columns; c++) {
        // 32 strided sums in row order, folded by halving.
        float lanes[32] = {};
        for (int64_t r = 0; r < rows; r++)
          lanes[r % 32] += values[c * column_stride + r * row_stride];
        for (int half = 16; half >= 1; half /= 2) {
          for (int l = 0; l < half; l++) lanes[l] += lanes[l + half];
        }
        EXPECT_EQ(got[c], lanes[0]) << "rows " << rows << ", interleaved " << interleaved;
      }
    }
  }
}

}  // namespace
}  // namespace halnorm::internal
