// LayerNorm forward and backward through the public C API on a real tensor
// of more than 2^31 elements: [262148, 8192] f16, 2^31 + 2^15 elements
// (4 GiB), which no single kernel call addresses (32-bit offsets), so the
// runtime runs it in pieces of rows (runtime/row_batch.h). Checks:
//  - every output element written (outputs start as NaN; all finite after);
//  - sampled rows, those on both sides of each piece boundary among them,
//    against the float64 reference (tests/reference), with the policy
//    tolerance (tests/tolerance.h); dweight/dbias against the reference's
//    sums over all rows;
//  - the rows around each boundary bitwise equal to the same rows run as a
//    small call of their own (the same variant, forced);
//  - the backward run again at 1 thread with pieces half as large: dx,
//    dweight and dbias bitwise the same (pieces start on dweight/dbias
//    chunk boundaries, so the chunk sums do not move).
// Memory: x, y (reused as dy) and dx, 4 GiB each, plus 1 GiB of dweight/dbias
// partial sums: about 13 GiB (tagged exclusive in BUILD). Fast tests of the
// same paths on small tensors: row_pieces_test.cc.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/dispatch.h"
#include "runtime/halnorm_c.h"
#include "runtime/row_norm.h"
#include "runtime/tensor_checks.h"
#include "runtime/variant_registry.h"
#include "tests/float16_conversions.h"
#include "tests/reference/row_norm_reference.h"
#include "tests/tolerance.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;

constexpr int64_t kRows = 262148;
constexpr int64_t kHidden = 8192;
constexpr int64_t kElements = kRows * kHidden;  // 2^31 + 2^15
static_assert(kElements > (int64_t{1} << 31), "more than 2^31 elements");
constexpr float kEps = 1e-5f;

// Where the pieces split (row_pieces_test.cc PlanPiecesTest pins them): the
// forward takes the most 16 KiB rows under 2^31 bytes, 131071; the backward
// rounds that down to its 16-row dweight/dbias chunks, 131056.
constexpr int64_t kForwardPieceRows = 131071;
constexpr int64_t kBackwardPieceRows = 131056;

// Memory the test needs, with some margin for the reference's buffers.
constexpr int64_t kNeededBytes = int64_t{14} << 30;

int64_t MemTotalBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    meminfo.ignore(1 << 10, '\n');
  }
  return 0;
}

int64_t PeakRssBytes() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// fn(begin, end) over [0, n) in one contiguous slice per hardware thread.
void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) {
    pool.emplace_back(fn, n * t / threads, n * (t + 1) / threads);
  }
  for (std::thread& thread : pool) thread.join();
}

uint64_t Mix(uint64_t v) {  // splitmix64's finalizer
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
  return v ^ (v >> 31);
}

// A deterministic f16 tensor, made as bits (a float conversion per element
// would take most of the test): +-[0.25, 4) with any mantissa, and rows
// whose share of negative elements is 1/2, 3/8, 1/4 or 1/8 (their means
// differ, up to about 1.1).
void FillF16(uint16_t* data, uint64_t seed) {
  ParallelFor(kRows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; r++) {
      const uint64_t row_bias = Mix(seed ^ (r * 0x9e3779b97f4a7c15ull)) & 3;
      uint16_t* row = data + r * kHidden;
      for (int64_t i = 0; i < kHidden; i++) {
        const uint64_t h = Mix((r * kHidden + i) * 0x9e3779b97f4a7c15ull + seed);
        const bool negative = (h & 0x8000) != 0 && ((h >> 20) & 3) >= row_bias;
        row[i] = static_cast<uint16_t>((negative ? 0x8000 : 0) | (h & 0x3ff) |
                                       ((13 + ((h >> 16) & 3)) << 10));
      }
    }
  });
}

// Every f16 value as a double, by its bits.
const std::vector<double>& HalfValues() {
  static const std::vector<double>* const values = [] {
    auto* table = new std::vector<double>(1 << 16);
    for (int bits = 0; bits < (1 << 16); bits++) {
      (*table)[bits] = testutil::HalfBitsToFloat(static_cast<uint16_t>(bits));
    }
    return table;
  }();
  return *values;
}

// Non-finite f16 elements (the NaN a buffer starts as, where nothing wrote).
int64_t CountNonFiniteF16(const uint16_t* data, int64_t count) {
  std::vector<int64_t> counts(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int> slot{0};
  ParallelFor(count, [&](int64_t begin, int64_t end) {
    int64_t n = 0;
    for (int64_t i = begin; i < end; i++) n += (data[i] & 0x7c00) == 0x7c00;
    counts[slot++] = n;
  });
  int64_t total = 0;
  for (int64_t n : counts) total += n;
  return total;
}

int64_t CountNonFinite(const std::vector<float>& values) {
  return std::count_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
}

// An order-dependent hash of the elements (16 slices hashed in parallel,
// then combined in order): equal hashes, equal bytes (but for a ~2^-64
// chance). `count` must be a multiple of 64.
uint64_t HashBytes(const uint16_t* data, int64_t count) {
  constexpr int kSlices = 16;
  uint64_t slice_hash[kSlices];
  ParallelFor(kSlices, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; s++) {
      const uint64_t* words = reinterpret_cast<const uint64_t*>(data + count * s / kSlices);
      const int64_t n = (count * (s + 1) / kSlices - count * s / kSlices) / 4;
      uint64_t h = s;
      for (int64_t i = 0; i < n; i++) h = Mix(h ^ words[i]);
      slice_hash[s] = h;
    }
  });
  uint64_t h = 0;
  for (uint64_t s : slice_hash) h = Mix(h ^ s);
  return h;
}

halnorm_tensor Tensor(void* data, halnorm_dtype dtype, std::vector<int64_t> shape) {
  return internal::DenseTensor(data, dtype, HALNORM_CPU, shape);
}

std::vector<double> RowAsDouble(const uint16_t* data, int64_t row) {
  std::vector<double> values(kHidden);
  for (int64_t i = 0; i < kHidden; i++) {
    values[i] = testutil::HalfBitsToFloat(data[row * kHidden + i]);
  }
  return values;
}

std::vector<float> RowAsFloat(const uint16_t* data, int64_t row) {
  std::vector<float> values(kHidden);
  for (int64_t i = 0; i < kHidden; i++)
    values[i] = testutil::HalfBitsToFloat(data[row * kHidden + i]);
  return values;
}

// Rows on both sides of each boundary, the first and last, and a few more.
std::vector<int64_t> SampledRows(int64_t piece_rows) {
  std::vector<int64_t> rows = {0, 1, kRows - 2, kRows - 1};
  for (int64_t boundary = piece_rows; boundary < kRows; boundary += piece_rows) {
    for (int64_t r : {boundary - 2, boundary - 1, boundary, boundary + 1}) rows.push_back(r);
  }
  std::mt19937_64 random(5);
  for (int i = 0; i < 8; i++) rows.push_back(static_cast<int64_t>(random() % kRows));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// The whole test's tensors (they take most of the machine, so one set).
class LargeTensorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
#ifdef __SANITIZE_ADDRESS__
    return;  // each test skips
#endif
    if (MemTotalBytes() < kNeededBytes) return;  // each test skips
    const auto start = std::chrono::steady_clock::now();
    x_ = new uint16_t[kElements];
    y_ = new uint16_t[kElements];
    FillF16(x_, 1);
    std::printf("filled x (%.1f GiB) in %.1f s\n", kElements * 2.0 / (1 << 30), Seconds(start));
    std::mt19937 random(3);
    std::normal_distribution<float> normal;
    weight_.resize(kHidden);
    bias_.resize(kHidden);
    for (float& w : weight_) w = 1.f + 0.25f * normal(random);
    for (float& b : bias_) b = 0.25f * normal(random);
  }

  static void TearDownTestSuite() {
    delete[] x_;
    delete[] y_;
    x_ = y_ = nullptr;
  }

  void SetUp() override {
#ifdef __SANITIZE_ADDRESS__
    GTEST_SKIP() << "not under AddressSanitizer (13 GiB plus shadow, instrumented loops over "
                    "2^31 elements): row_pieces_test runs the same pieces there";
#endif
    if (x_ == nullptr) {
      GTEST_SKIP() << "needs " << (kNeededBytes >> 30) << " GiB of memory, the machine has "
                   << (MemTotalBytes() >> 30);
    }
  }

  // Runs the forward (once per process): y, mean and rstd.
  static void RunForward() {
    if (forward_ran_) return;
    forward_ran_ = true;
    const auto fill_start = std::chrono::steady_clock::now();
    std::memset(y_, 0x7e, kElements * 2);  // f16 0x7e7e: NaN
    std::printf("y set to NaN in %.1f s\n", Seconds(fill_start));
    mean_.assign(kRows, std::nanf(""));
    rstd_.assign(kRows, std::nanf(""));
    halnorm_tensor x = Tensor(x_, HALNORM_F16, {kRows, kHidden});
    halnorm_tensor y = Tensor(y_, HALNORM_F16, {kRows, kHidden});
    halnorm_tensor weight = Tensor(weight_.data(), HALNORM_F32, {kHidden});
    halnorm_tensor bias = Tensor(bias_.data(), HALNORM_F32, {kHidden});
    halnorm_tensor mean = Tensor(mean_.data(), HALNORM_F32, {kRows});
    halnorm_tensor rstd = Tensor(rstd_.data(), HALNORM_F32, {kRows});
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    opt.eps = kEps;
    // At the kernels' own limit; the scope records what the call planned.
    internal::ScopedKernelSpanLimitForTesting recorded(internal::kKernelMaxSpanBytes);
    const auto start = std::chrono::steady_clock::now();
    forward_code_ = halnorm_layer_norm_forward(&x, &weight, &bias, &opt, &y, &mean, &rstd);
    forward_seconds_ = Seconds(start);
    forward_error_ = halnorm_last_error();
    forward_record_ = recorded.record();
    std::printf("forward: %.2f s\n", forward_seconds_);
  }

  static reference::Options ReferenceOptions() {
    reference::Options options;
    options.norm = reference::Norm::kLayerNorm;
    options.eps = kEps;
    return options;
  }

  static std::vector<double> AsDouble(const std::vector<float>& values) {
    return {values.begin(), values.end()};
  }

  static uint16_t* x_;
  static uint16_t* y_;  // y, then dy
  static std::vector<float> weight_, bias_, mean_, rstd_;
  static bool forward_ran_;
  static int forward_code_;
  static double forward_seconds_;
  static std::string forward_error_;
  static internal::PieceRecordForTesting forward_record_;
};

uint16_t* LargeTensorTest::x_ = nullptr;
uint16_t* LargeTensorTest::y_ = nullptr;
std::vector<float> LargeTensorTest::weight_, LargeTensorTest::bias_, LargeTensorTest::mean_,
    LargeTensorTest::rstd_;
bool LargeTensorTest::forward_ran_ = false;
int LargeTensorTest::forward_code_ = -1;
double LargeTensorTest::forward_seconds_ = 0;
std::string LargeTensorTest::forward_error_;
internal::PieceRecordForTesting LargeTensorTest::forward_record_;

TEST_F(LargeTensorTest, LayerNormForward) {
  RunForward();
  ASSERT_EQ(forward_code_, HALNORM_OK) << forward_error_;
  RecordProperty("forward_seconds", absl::StrCat(forward_seconds_));
  const auto checks_start = std::chrono::steady_clock::now();
  EXPECT_EQ(forward_record_.split_calls, 1) << "the call was not split";
  EXPECT_EQ(CountNonFiniteF16(y_, kElements), 0) << "y elements left unwritten (or not finite)";
  EXPECT_EQ(CountNonFinite(mean_), 0);
  EXPECT_EQ(CountNonFinite(rstd_), 0);

  const double tol = testutil::Tolerance(Op::kLayerNorm, Direction::kForward, HALNORM_F16);
  const std::vector<double> weight = AsDouble(weight_), bias = AsDouble(bias_);
  for (int64_t r : SampledRows(kForwardPieceRows)) {
    const std::vector<double> x = RowAsDouble(x_, r);
    const reference::ForwardResult want =
        reference::Forward(ReferenceOptions(), {1, kHidden, x, {}, weight, bias});
    const std::string row = absl::StrCat("row ", r);
    testutil::ExpectClose(RowAsFloat(y_, r), want.y, tol, row + " y");
    testutil::ExpectClose({mean_[r]}, want.mean, tol, row + " mean");
    testutil::ExpectClose({rstd_[r]}, want.rstd, tol, row + " rstd");
  }

  // The rows around each boundary, as a small call of their own on the
  // variant dispatch chose for the whole tensor.
  const absl::StatusOr<const internal::Variant*> variant = internal::PickVariant(
      {Op::kLayerNorm, Direction::kForward, HALNORM_F16, false, kHidden, kRows});
  ASSERT_TRUE(variant.ok()) << variant.status();
  for (int64_t boundary = kForwardPieceRows; boundary < kRows; boundary += kForwardPieceRows) {
    const int64_t first = boundary - 4, rows = std::min<int64_t>(8, kRows - first);
    std::vector<uint16_t> y_rows(rows * kHidden);
    std::vector<float> mean_rows(rows), rstd_rows(rows);
    halnorm_tensor x = Tensor(x_ + first * kHidden, HALNORM_F16, {rows, kHidden});
    halnorm_tensor y = Tensor(y_rows.data(), HALNORM_F16, {rows, kHidden});
    halnorm_tensor weight = Tensor(weight_.data(), HALNORM_F32, {kHidden});
    halnorm_tensor bias = Tensor(bias_.data(), HALNORM_F32, {kHidden});
    halnorm_tensor mean = Tensor(mean_rows.data(), HALNORM_F32, {rows});
    halnorm_tensor rstd = Tensor(rstd_rows.data(), HALNORM_F32, {rows});
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    opt.eps = kEps;
    const absl::Status status =
        internal::LayerNormForward(&x, &weight, &bias, &opt, &y, &mean, &rstd, *variant);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(std::memcmp(y_rows.data(), y_ + first * kHidden, rows * kHidden * 2), 0)
        << "y of rows " << first << ".." << first + rows - 1 << " differ from a small call's";
    EXPECT_EQ(std::memcmp(mean_rows.data(), mean_.data() + first, rows * 4), 0);
    EXPECT_EQ(std::memcmp(rstd_rows.data(), rstd_.data() + first, rows * 4), 0);
  }
  std::printf("forward checks: %.1f s\n", Seconds(checks_start));
  RecordProperty("peak_rss_mib", absl::StrCat(PeakRssBytes() >> 20));
}

TEST_F(LargeTensorTest, LayerNormBackward) {
  RunForward();  // mean and rstd of x
  ASSERT_EQ(forward_code_, HALNORM_OK) << forward_error_;
  uint16_t* const dy_data = y_;  // y is not needed any more
  const auto fill_start = std::chrono::steady_clock::now();
  FillF16(dy_data, 2);
  std::printf("filled dy in %.1f s\n", Seconds(fill_start));
  std::unique_ptr<uint16_t[]> dx_data(new uint16_t[kElements]);
  std::vector<float> dweight_data(kHidden), dbias_data(kHidden);
  halnorm_tensor dy = Tensor(dy_data, HALNORM_F16, {kRows, kHidden});
  halnorm_tensor x = Tensor(x_, HALNORM_F16, {kRows, kHidden});
  halnorm_tensor mean = Tensor(mean_.data(), HALNORM_F32, {kRows});
  halnorm_tensor rstd = Tensor(rstd_.data(), HALNORM_F32, {kRows});
  halnorm_tensor weight = Tensor(weight_.data(), HALNORM_F32, {kHidden});
  halnorm_tensor dx = Tensor(dx_data.get(), HALNORM_F16, {kRows, kHidden});
  halnorm_tensor dweight = Tensor(dweight_data.data(), HALNORM_F32, {kHidden});
  halnorm_tensor dbias = Tensor(dbias_data.data(), HALNORM_F32, {kHidden});
  // Runs the backward with every output NaN first; returns its seconds.
  auto run = [&](int64_t max_span_bytes, internal::PieceRecordForTesting* record) {
    std::memset(dx_data.get(), 0x7e, kElements * 2);
    std::fill(dweight_data.begin(), dweight_data.end(), std::nanf(""));
    std::fill(dbias_data.begin(), dbias_data.end(), std::nanf(""));
    internal::ScopedKernelSpanLimitForTesting limit(max_span_bytes);
    const auto start = std::chrono::steady_clock::now();
    const int code =
        halnorm_layer_norm_backward(&dy, &x, &mean, &rstd, &weight, nullptr, &dx, &dweight, &dbias);
    const double seconds = Seconds(start);
    EXPECT_EQ(code, HALNORM_OK) << halnorm_last_error();
    *record = limit.record();
    return seconds;
  };

  internal::PieceRecordForTesting record;
  const double seconds = run(internal::kKernelMaxSpanBytes, &record);
  if (HasFailure()) return;
  std::printf("backward: %.2f s\n", seconds);
  RecordProperty("backward_seconds", absl::StrCat(seconds));
  EXPECT_EQ(record.split_calls, 1) << "the call was not split";
  EXPECT_EQ(record.chunks_shrunk, 0);
  EXPECT_EQ(CountNonFiniteF16(dx_data.get(), kElements), 0) << "dx elements left unwritten";
  EXPECT_EQ(CountNonFinite(dweight_data), 0);
  EXPECT_EQ(CountNonFinite(dbias_data), 0);

  // Sampled rows of dx, and dweight/dbias over every row, against the
  // reference (given the forward's f32 mean and rstd, as the kernel is).
  const double tol = testutil::Tolerance(Op::kLayerNorm, Direction::kBackward, HALNORM_F16);
  const std::vector<double> weight_values = AsDouble(weight_);
  for (int64_t r : SampledRows(kBackwardPieceRows)) {
    const std::vector<double> dy_row = RowAsDouble(dy_data, r), x_row = RowAsDouble(x_, r);
    const std::vector<double> mean_row = {mean_[r]}, rstd_row = {rstd_[r]};
    const reference::BackwardResult want = reference::Backward(
        ReferenceOptions(), {1, kHidden, dy_row, x_row, mean_row, rstd_row, weight_values, {}});
    testutil::ExpectClose(RowAsFloat(dx_data.get(), r), want.dx, tol,
                          absl::StrCat("row ", r, " dx"));
  }
  // dweight/dbias over every row, in float64: the reference's formula
  // (row_norm_reference.h: the sums over rows of dy * xhat and of dy) as a
  // plain loop (reference::Backward, which computes dx too, takes minutes
  // here), checked against reference::Backward on the first rows.
  const auto sums_start = std::chrono::steady_clock::now();
  const std::vector<double>& half = HalfValues();
  auto sums_over = [&](int64_t begin, int64_t end, std::vector<double>& dweight_sum,
                       std::vector<double>& dbias_sum) {
    dweight_sum.assign(kHidden, 0.0);
    dbias_sum.assign(kHidden, 0.0);
    for (int64_t r = begin; r < end; r++) {
      const double mean = mean_[r], rstd = rstd_[r];
      const uint16_t* dy_row = dy_data + r * kHidden;
      const uint16_t* x_row = x_ + r * kHidden;
      for (int64_t i = 0; i < kHidden; i++) {
        const double g = half[dy_row[i]];
        dweight_sum[i] += g * ((half[x_row[i]] - mean) * rstd);
        dbias_sum[i] += g;
      }
    }
  };
  {
    constexpr int64_t kCheckRows = 64;
    std::vector<double> dweight_loop, dbias_loop, dy_block, x_block;
    sums_over(0, kCheckRows, dweight_loop, dbias_loop);
    for (int64_t i = 0; i < kCheckRows * kHidden; i++) {
      dy_block.push_back(half[dy_data[i]]);
      x_block.push_back(half[x_[i]]);
    }
    const std::vector<double> mean_block(mean_.begin(), mean_.begin() + kCheckRows);
    const std::vector<double> rstd_block(rstd_.begin(), rstd_.begin() + kCheckRows);
    const reference::BackwardResult block = reference::Backward(
        ReferenceOptions(),
        {kCheckRows, kHidden, dy_block, x_block, mean_block, rstd_block, weight_values, {}});
    for (int64_t i = 0; i < kHidden; i++) {
      ASSERT_NEAR(dweight_loop[i], block.dweight[i], 1e-9 * (std::abs(block.dweight[i]) + 1));
      ASSERT_NEAR(dbias_loop[i], block.dbias[i], 1e-9 * (std::abs(block.dbias[i]) + 1));
    }
  }
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::vector<double>> dweight_sums(threads), dbias_sums(threads);
  ParallelFor(threads, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; t++) {
      sums_over(kRows * t / threads, kRows * (t + 1) / threads, dweight_sums[t], dbias_sums[t]);
    }
  });
  std::vector<double> dweight_want(kHidden, 0.0), dbias_want(kHidden, 0.0);
  for (int t = 0; t < threads; t++) {
    for (int64_t i = 0; i < kHidden; i++) {
      dweight_want[i] += dweight_sums[t][i];
      dbias_want[i] += dbias_sums[t][i];
    }
  }
  std::printf("float64 dweight/dbias over all rows: %.1f s\n", Seconds(sums_start));
  const double sum_tol =
      testutil::RowSumTolerance(Op::kLayerNorm, Direction::kBackward, HALNORM_F16, kRows);
  testutil::ExpectClose(dweight_data, dweight_want, sum_tol, "dweight");
  testutil::ExpectClose(dbias_data, dbias_want, sum_tol, "dbias");

  // The rows around each boundary, as a small call of their own.
  const absl::StatusOr<const internal::Variant*> variant = internal::PickVariant(
      {Op::kLayerNorm, Direction::kBackward, HALNORM_F16, false, kHidden, kRows});
  ASSERT_TRUE(variant.ok()) << variant.status();
  for (int64_t boundary = kBackwardPieceRows; boundary < kRows; boundary += kBackwardPieceRows) {
    const int64_t first = boundary - 4, rows = std::min<int64_t>(8, kRows - first);
    std::vector<uint16_t> dx_rows(rows * kHidden);
    halnorm_tensor dy_view = Tensor(dy_data + first * kHidden, HALNORM_F16, {rows, kHidden});
    halnorm_tensor x_view = Tensor(x_ + first * kHidden, HALNORM_F16, {rows, kHidden});
    halnorm_tensor mean_view = Tensor(mean_.data() + first, HALNORM_F32, {rows});
    halnorm_tensor rstd_view = Tensor(rstd_.data() + first, HALNORM_F32, {rows});
    halnorm_tensor dx_view = Tensor(dx_rows.data(), HALNORM_F16, {rows, kHidden});
    const absl::Status status =
        internal::LayerNormBackward(&dy_view, &x_view, &mean_view, &rstd_view, &weight, nullptr,
                                    &dx_view, nullptr, nullptr, *variant);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(std::memcmp(dx_rows.data(), dx_data.get() + first * kHidden, rows * kHidden * 2), 0)
        << "dx of rows " << first << ".." << first + rows - 1 << " differ from a small call's";
  }

  // Again at 1 thread, in pieces of under 2^30 bytes (65520 rows): every
  // output bitwise the same.
  const uint64_t dx_hash = HashBytes(dx_data.get(), kElements);
  const std::vector<float> dweight_first = dweight_data, dbias_first = dbias_data;
  halnorm_set_num_threads(1);
  const double one_thread_seconds = run((int64_t{1} << 30) - 1, &record);
  halnorm_set_num_threads(0);
  std::printf("backward, 1 thread, smaller pieces: %.2f s\n", one_thread_seconds);
  EXPECT_EQ(record.split_calls, 1);
  EXPECT_EQ(record.chunks_shrunk, 0);
  EXPECT_EQ(HashBytes(dx_data.get(), kElements), dx_hash) << "dx differs";
  EXPECT_EQ(std::memcmp(dweight_data.data(), dweight_first.data(), kHidden * 4), 0)
      << "dweight differs";
  EXPECT_EQ(std::memcmp(dbias_data.data(), dbias_first.data(), kHidden * 4), 0) << "dbias differs";
  const int64_t peak = PeakRssBytes();
  std::printf("peak RSS: %.2f GiB\n", peak / double(int64_t{1} << 30));
  RecordProperty("peak_rss_mib", absl::StrCat(peak >> 20));
}

}  // namespace
}  // namespace halnorm
