// The public API called from 8 threads at once: mixed ops (LayerNorm and
// RMSNorm forward/backward, with a fused residual, LayerNorm2d over every
// axes), dtypes and shapes give bitwise the results of the same calls made
// one at a time, while another thread keeps changing the thread count and
// swapping the tuning file; halnorm_last_error() is per thread.
// (Dispatch's one-time initialization under a race: concurrency_init_test.cc.)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/builtin_tuning.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_file.h"
#include "runtime/variant_index.h"
#include "tests/layer_norm2d_problems.h"
#include "tests/row_norm_backward_problem.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_forward_problem.h"
#include "tests/start_barrier.h"
#include "tests/test_tensors.h"
#include "tests/tuning_test_support.h"

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using testutil::LayerNorm2dCase;
using testutil::RowNormCase;
using testutil::TestTensor;

constexpr int kThreads = 8;
constexpr int kRounds = 3;  // each thread runs every call at least this many times
constexpr int kSettingChanges = 12;  // thread counts and tuning tables, while calls run

// One call of the workload, owning its tensors; Run() calls the public API.
class Call {
 public:
  virtual ~Call() = default;
  virtual int Run() = 0;
  virtual std::vector<const TestTensor*> Outputs() const = 0;

  // Every byte of every output (padding too).
  std::vector<std::vector<uint8_t>> OutputBytes() const {
    std::vector<std::vector<uint8_t>> bytes;
    for (const TestTensor* t : Outputs()) bytes.push_back(t->bytes());
    return bytes;
  }
};

template <typename Problem, typename Case>
class ProblemCall : public Call {
 public:
  explicit ProblemCall(const Case& c) : problem_(c) {}
  int Run() override { return problem_.RunPublic(); }
  std::vector<const TestTensor*> Outputs() const override { return problem_.Outputs(); }

 private:
  Problem problem_;
};

// A CPU variant of the kind, for MatrixCase's defaults (dispatch picks the
// variant that runs).
const internal::Variant& KindOf(Op op, Direction direction, halnorm_dtype dtype, bool residual) {
  for (const internal::Variant& v : internal::AllVariants()) {
    if (v.op == op && v.direction == direction && v.dtype == dtype &&
        v.fused_residual == residual && !v.native_params && v.device == internal::Device::kCpu) {
      return v;
    }
  }
  ADD_FAILURE() << "no variant of that kind";
  return internal::AllVariants().front();
}

RowNormCase RowCase(Op op, Direction direction, halnorm_dtype dtype, bool residual, int64_t rows,
                    int64_t hidden) {
  const bool fused = direction == Direction::kForward && residual;
  RowNormCase c = testutil::MatrixCase(KindOf(op, direction, dtype, fused), rows, hidden);
  c.residual = residual;  // backward: a gradient arriving at residual_out
  return c;
}

LayerNorm2dCase Case2d(Direction direction, halnorm_axes axes, bool channels_last,
                       halnorm_dtype dtype, reference::Nchw shape) {
  LayerNorm2dCase c;
  c.direction = direction;
  c.axes = axes;
  c.channels_last = channels_last;
  c.dtype = dtype;
  c.shape = shape;
  return c;
}

using MakeCall = std::function<std::unique_ptr<Call>()>;

// The workload: every op and direction, each dtype, fused residuals, 16-bit
// parameters, decode-sized and multi-task shapes, every LayerNorm2d axes.
std::vector<MakeCall> Workload() {
  std::vector<MakeCall> calls;
  auto forward = [&](RowNormCase c) {
    calls.push_back(
        [c] { return std::make_unique<ProblemCall<testutil::ForwardProblem, RowNormCase>>(c); });
  };
  auto backward = [&](RowNormCase c) {
    calls.push_back(
        [c] { return std::make_unique<ProblemCall<testutil::BackwardProblem, RowNormCase>>(c); });
  };
  auto forward2d = [&](LayerNorm2dCase c) {
    calls.push_back([c] {
      return std::make_unique<ProblemCall<testutil::LayerNorm2dForwardProblem, LayerNorm2dCase>>(c);
    });
  };
  auto backward2d = [&](LayerNorm2dCase c) {
    calls.push_back([c] {
      return std::make_unique<ProblemCall<testutil::LayerNorm2dBackwardProblem, LayerNorm2dCase>>(
          c);
    });
  };
  const Direction fwd = Direction::kForward, bwd = Direction::kBackward;
  forward(RowCase(Op::kLayerNorm, fwd, HALNORM_F32, false, 64, 768));
  forward(RowCase(Op::kLayerNorm, fwd, HALNORM_F32, false, 512, 1024));  // many parallel tasks
  RowNormCase deep_norm = RowCase(Op::kLayerNorm, fwd, HALNORM_BF16, true, 33, 1000);
  deep_norm.residual_alpha = 2.4f;
  deep_norm.params_f32 = false;
  forward(deep_norm);
  RowNormCase half_params = RowCase(Op::kRmsNorm, fwd, HALNORM_F16, false, 17, 4099);
  half_params.params_f32 = false;
  forward(half_params);
  RowNormCase gemma = RowCase(Op::kRmsNorm, fwd, HALNORM_F32, true, 8, 2048);
  gemma.weight_offset = 1.f;
  forward(gemma);
  backward(RowCase(Op::kLayerNorm, bwd, HALNORM_F32, false, 256, 384));
  backward(RowCase(Op::kLayerNorm, bwd, HALNORM_F16, true, 40, 777));
  backward(RowCase(Op::kRmsNorm, bwd, HALNORM_BF16, false, 100, 512));
  backward(RowCase(Op::kRmsNorm, bwd, HALNORM_F32, false, 3, 16));  // decode-sized
  forward2d(Case2d(fwd, HALNORM_AXES_C, false, HALNORM_F32, {2, 32, 14, 14}));
  forward2d(Case2d(fwd, HALNORM_AXES_C, true, HALNORM_BF16, {2, 24, 7, 9}));
  forward2d(Case2d(fwd, HALNORM_AXES_CHW, false, HALNORM_F16, {3, 8, 5, 5}));
  forward2d(Case2d(fwd, HALNORM_AXES_HW, false, HALNORM_F32, {2, 6, 9, 9}));
  backward2d(Case2d(bwd, HALNORM_AXES_C, false, HALNORM_F32, {2, 32, 14, 14}));
  backward2d(Case2d(bwd, HALNORM_AXES_C, true, HALNORM_F32, {1, 48, 7, 7}));
  backward2d(Case2d(bwd, HALNORM_AXES_CHW, true, HALNORM_BF16, {2, 8, 6, 6}));
  backward2d(Case2d(bwd, HALNORM_AXES_HW, false, HALNORM_F16, {2, 5, 8, 8}));
  return calls;
}

// A tuning file that picks what the built-in table picks: swapping it in and
// out changes no result, so results stay comparable bitwise.
std::string BuiltInEquivalentTuningFile() {
  const internal::VariantIndex& index = internal::VariantIndex::Get();
  internal::TuningFile file;
  for (const internal::BuiltInTuningEntry& e : internal::BuiltInTuningEntries()) {
    if (!internal::InUse(e)) continue;  // another vendor's, or replaced by this one's
    const internal::Variant* v =
        index.Find({e.op, e.direction, e.dtype, false}, index.TargetIndex(e.target), e.config);
    if (v != nullptr) file.entries.push_back({e.hidden_bucket, e.row_bucket, v});
  }
  return testutil::WriteTestFile("built_in_equivalent.tuning", file.ToText());
}

// What one thread saw: per call and round, the code, whether
// halnorm_last_error() was empty after it, and whether its outputs matched.
struct ThreadLog {
  int rounds = 0, calls = 0, failed = 0, error_text_left = 0, mismatched = 0;
  std::string first_problem;
};

TEST(ConcurrencyTest, ConcurrentCallsAreBitwiseTheSerialOnes) {
  const std::vector<MakeCall> workload = Workload();
  // Serial: each call once, one at a time, on this thread.
  std::vector<std::vector<std::vector<uint8_t>>> serial;
  for (const MakeCall& make : workload) {
    std::unique_ptr<Call> call = make();
    ASSERT_EQ(call->Run(), HALNORM_OK) << halnorm_last_error();
    serial.push_back(call->OutputBytes());
  }
  // Concurrent: each thread owns a copy of every call and runs them in its
  // own shuffled order, checking each result at once: kRounds times, and
  // on until this thread has made all its setting changes (so they all
  // happen while calls run, however the threads are scheduled).
  std::vector<std::vector<std::unique_ptr<Call>>> copies(kThreads);
  for (auto& mine : copies) {
    for (const MakeCall& make : workload) mine.push_back(make());
  }
  const std::string tuning_file = BuiltInEquivalentTuningFile();
  ASSERT_EQ(halnorm_load_tuning_file(tuning_file.c_str()), HALNORM_OK) << halnorm_last_error();
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);

  testutil::StartBarrier start(kThreads + 1);
  std::atomic<bool> settings_done{false};
  std::vector<ThreadLog> logs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<size_t> order(workload.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::mt19937 shuffle(t);
      ThreadLog& log = logs[t];
      start.ArriveAndWait();
      for (int round = 0; round < kRounds || !settings_done.load(); ++round) {
        log.rounds++;
        std::shuffle(order.begin(), order.end(), shuffle);
        for (size_t i : order) {
          log.calls++;
          const int code = copies[t][i]->Run();
          const std::string error = halnorm_last_error();
          const bool mismatch = code == HALNORM_OK && copies[t][i]->OutputBytes() != serial[i];
          log.failed += code != HALNORM_OK;
          log.error_text_left += !error.empty();
          log.mismatched += mismatch;
          if ((code != HALNORM_OK || !error.empty() || mismatch) && log.first_problem.empty()) {
            log.first_problem = absl::StrCat("call ", i, " round ", round, ": code ", code,
                                             ", last error \"", error, "\"");
          }
        }
      }
    });
  }
  // Meanwhile: thread counts 1, 2, 3 and the default, and tuning swaps
  // (equivalent file, built-in table, a missing file that must fail and
  // leave its message with this thread alone).
  const std::string missing = testutil::TestFilePath("no_such.tuning");
  start.ArriveAndWait();
  for (int swaps = 0; swaps < kSettingChanges; swaps++) {
    halnorm_set_num_threads(swaps % 4);
    const char* path = swaps % 3 == 0   ? tuning_file.c_str()
                       : swaps % 3 == 1 ? nullptr
                                        : missing.c_str();
    const int code = halnorm_load_tuning_file(path);
    if (path == missing.c_str()) {
      EXPECT_EQ(code, HALNORM_ERROR_INVALID_ARGUMENT);
      EXPECT_THAT(halnorm_last_error(), ::testing::HasSubstr(missing));
    } else {
      EXPECT_EQ(code, HALNORM_OK) << halnorm_last_error();
    }
    std::this_thread::yield();
  }
  settings_done = true;
  for (std::thread& thread : threads) thread.join();
  halnorm_set_num_threads(0);
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);

  for (int t = 0; t < kThreads; ++t) {
    const ThreadLog& log = logs[t];
    EXPECT_GE(log.rounds, kRounds);
    EXPECT_EQ(log.calls, log.rounds * static_cast<int>(workload.size()));
    EXPECT_EQ(log.failed, 0) << "thread " << t << ": " << log.first_problem;
    EXPECT_EQ(log.error_text_left, 0) << "thread " << t << ": " << log.first_problem;
    EXPECT_EQ(log.mismatched, 0) << "thread " << t << ": " << log.first_problem;
  }
}

// Each thread's error stays its own while the others fail differently or
// succeed: thread t's bad call has a weight of t + 1 elements, and after
// every thread has made its next call, good or bad, the message is still
// the one naming t + 1.
TEST(ConcurrencyTest, LastErrorIsPerThread) {
  constexpr int64_t kHidden = 64;
  constexpr int kIterations = 50;
  testutil::StartBarrier barrier(kThreads);
  std::vector<int> wrong(kThreads, 0), cleared(kThreads, 0);
  std::vector<std::string> first_wrong(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TestTensor x({4, kHidden}), y({4, kHidden}), good_weight({kHidden}), bad_weight({t + 1});
      testutil::FillNormal(x, 1);
      testutil::FillNormal(good_weight, 2);
      halnorm_norm_options opt;
      halnorm_norm_options_init(&opt);
      const std::string expected = absl::StrCat("weight: shape [", t + 1, "]");
      for (int i = 0; i < kIterations; ++i) {
        // Odd threads succeed on odd iterations, when even ones fail.
        const bool fail = (i + t) % 2 == 0;
        const int code = halnorm_rms_norm_forward(
            x.view(), fail ? bad_weight.view() : good_weight.view(), &opt, y.view(), nullptr);
        barrier.ArriveAndWait();  // every thread has made its call
        const std::string message = halnorm_last_error();
        if (fail) {
          const bool ours =
              code == HALNORM_ERROR_INVALID_ARGUMENT && message.rfind(expected, 0) == 0;
          if (!ours && wrong[t]++ == 0) first_wrong[t] = message;
        } else {
          cleared[t] += code == HALNORM_OK && message.empty();
        }
        barrier.ArriveAndWait();  // every thread has read its message
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(wrong[t], 0) << "thread " << t << " read \"" << first_wrong[t] << "\"";
    EXPECT_EQ(cleared[t], kIterations / 2) << "thread " << t;
  }
}

}  // namespace
}  // namespace halnorm
