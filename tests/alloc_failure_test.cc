// Host allocation failures inside a call: this test replaces the global
// operator new with one that fails on demand, on the calling thread only,
// and fails each allocation a call makes in turn: alone (the error path can
// allocate) and together with every later one (it cannot). Every entry point
// must then return HALNORM_ERROR_KERNEL with halnorm_last_error() saying
// "out of memory", print nothing, not abort, and leave every output as it
// was. Each call runs on a fresh thread, so per-thread scratch (the
// backward's dweight/dbias partials) is allocated anew and fails too.
// (Allocations inside the Halide kernels: halide_alloc_failure_test.cc.)
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_file.h"
#include "tests/layer_norm2d_cases.h"
#include "tests/row_norm_cases.h"
#include "tests/row_norm_tensors.h"
#include "tests/test_tensors.h"
#include "tests/tuning_test_support.h"

namespace {

// The calling thread's failure plan; nothing fails on other threads.
thread_local bool armed = false;
thread_local int64_t allocations = 0;  // since armed
thread_local int64_t fail_at = -1;     // this allocation fails...
thread_local bool fail_later = false;  // ...and, if set, every later one
thread_local size_t failed_bytes = 0;  // what the first failure asked for

}  // namespace

void* operator new(std::size_t bytes) {
  if (armed) {
    const int64_t k = allocations++;
    if (k == fail_at || (fail_later && k > fail_at)) {
      if (k == fail_at) failed_bytes = bytes;
      throw std::bad_alloc();
    }
  }
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
// Never failed: a nothrow allocation has a fallback by design (libstdc++'s
// std::stable_sort, which dispatch uses, then sorts in place).
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return std::malloc(bytes == 0 ? 1 : bytes);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace halnorm {
namespace {

using internal::Direction;
using internal::Op;
using testutil::LayerNorm2dCase;
using testutil::RowNormCase;
using testutil::TestTensor;

// One entry point's call on tensors it owns; Run() is the C call alone
// (the armed region must hold no allocation of the test's own).
class Call {
 public:
  virtual ~Call() = default;
  virtual int Run() = 0;
  // Every output intact: all sentinel (tuning: the table in use unchanged).
  virtual bool OutputsUntouched() const {
    for (const std::optional<TestTensor>* t : outputs_) {
      if (*t && !testutil::AllSentinel(**t)) return false;
    }
    return true;
  }

 protected:
  std::vector<const std::optional<TestTensor>*> outputs_;
};

halnorm_tensor* View(std::optional<TestTensor>& t) { return testutil::ViewOrNull(t); }

// LayerNorm/RMSNorm forward on a RowNormCase's tensors.
class RowForward : public Call {
 public:
  explicit RowForward(const RowNormCase& c) : c_(c) {
    using namespace testutil;
    const bool layer = c.op == Op::kLayerNorm;
    x_ = NormalActivation(c, {}, kXSeed);
    if (c.residual) {
      residual_ = NormalActivation(c, {}, kResidualSeed);
      residual_out_ = ActivationTensor(c, {});
    }
    weight_ = WeightTensor(c, c.weight);
    bias_ = BiasTensor(c, layer && c.bias);
    y_ = ActivationTensor(c, {});
    mean_ = StatisticsTensor(c, layer && c.mean);
    rstd_ = StatisticsTensor(c, c.rstd);
    outputs_ = {&y_, &residual_out_, &mean_, &rstd_};
  }
  int Run() override {
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    opt.weight_offset = c_.weight_offset;
    opt.residual = View(residual_);
    opt.residual_out = View(residual_out_);
    if (c_.op == Op::kRmsNorm) {
      return halnorm_rms_norm_forward(View(x_), View(weight_), &opt, View(y_), View(rstd_));
    }
    return halnorm_layer_norm_forward(View(x_), View(weight_), View(bias_), &opt, View(y_),
                                      View(mean_), View(rstd_));
  }

 private:
  RowNormCase c_;
  std::optional<TestTensor> x_, residual_, weight_, bias_, y_, residual_out_, mean_, rstd_;
};

// LayerNorm/RMSNorm backward; mean/rstd need only be valid numbers here.
class RowBackward : public Call {
 public:
  explicit RowBackward(const RowNormCase& c) : c_(c) {
    using namespace testutil;
    const bool layer = c.op == Op::kLayerNorm;
    dy_ = NormalActivation(c, {}, kDySeed);
    x_ = NormalActivation(c, {}, kXSeed);
    mean_ = StatisticsTensor(c, layer);
    rstd_ = StatisticsTensor(c, true);
    if (mean_) FillNormal(*mean_, 7);
    FillNormal(*rstd_, 8, /*offset=*/1.0, /*scale=*/0.1);
    weight_ = WeightTensor(c, c.weight);
    if (c.residual) residual_ = NormalActivation(c, {}, kResidualGradientSeed);
    dx_ = ActivationTensor(c, {});
    dweight_ = ParamTensor(c, c.dweight);
    dbias_ = ParamTensor(c, layer && c.dbias);
    outputs_ = {&dx_, &dweight_, &dbias_};
  }
  int Run() override {
    halnorm_norm_options opt;
    halnorm_norm_options_init(&opt);
    opt.residual = View(residual_);
    if (c_.op == Op::kRmsNorm) {
      return halnorm_rms_norm_backward(View(dy_), View(x_), View(rstd_), View(weight_), &opt,
                                       View(dx_), View(dweight_));
    }
    return halnorm_layer_norm_backward(View(dy_), View(x_), View(mean_), View(rstd_), View(weight_),
                                       &opt, View(dx_), View(dweight_), View(dbias_));
  }

 private:
  RowNormCase c_;
  std::optional<TestTensor> dy_, x_, mean_, rstd_, weight_, residual_, dx_, dweight_, dbias_;
};

// LayerNorm2d forward (no statistics requested) or backward.
class LayerNorm2d : public Call {
 public:
  explicit LayerNorm2d(const LayerNorm2dCase& c) : c_(c) {
    using namespace testutil;
    const bool forward = c.direction == Direction::kForward;
    auto activation = [&] {
      return TestTensor(ActivationShape(c), ActivationStrides(c), 0, c.dtype);
    };
    auto channel = [&] { return TestTensor({c.shape.c}, {}, 0, ParamDtype(c)); };
    auto statistics = [&] { return TestTensor(LayerNorm2dStatisticsShape(c)); };
    x_ = activation();
    FillNormal(*x_, 1);
    weight_ = channel();
    FillNormal(*weight_, 2, 1.0, 0.5);
    out_ = activation();
    if (forward) {
      bias_ = channel();
      FillNormal(*bias_, 3);
    } else {
      dy_ = activation();
      FillNormal(*dy_, 4);
      mean_ = statistics();
      rstd_ = statistics();
      FillNormal(*mean_, 5);
      FillNormal(*rstd_, 6, 1.0, 0.1);
      dweight_ = channel();
      dbias_ = channel();
    }
    outputs_ = {&out_, &dweight_, &dbias_};
  }
  int Run() override {
    if (c_.direction == Direction::kForward) {
      return halnorm_layer_norm2d_forward(View(x_), View(weight_), View(bias_), c_.axes, 1e-5f,
                                          View(out_), nullptr, nullptr);
    }
    return halnorm_layer_norm2d_backward(View(dy_), View(x_), View(mean_), View(rstd_),
                                         View(weight_), c_.axes, View(out_), View(dweight_),
                                         View(dbias_));
  }

 private:
  LayerNorm2dCase c_;
  std::optional<TestTensor> x_, dy_, weight_, bias_, out_, mean_, rstd_, dweight_, dbias_;
};

class LoadTuningCall : public Call {
 public:
  explicit LoadTuningCall(std::string path) : path_(std::move(path)) {}
  int Run() override { return halnorm_load_tuning_file(path_.c_str()); }
  bool OutputsUntouched() const override {
    return std::string(halnorm_tuning_source()) == "built-in table";
  }

 private:
  std::string path_;
};

struct Scenario {
  std::string name;
  std::function<std::unique_ptr<Call>()> make;
};

void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }

const internal::Variant& KindOf(Op op, Direction direction, halnorm_dtype dtype, bool fused) {
  for (const internal::Variant& v : internal::AllVariants()) {
    if (v.op == op && v.direction == direction && v.dtype == dtype && v.fused_residual == fused &&
        !v.native_params && v.device == internal::Device::kCpu) {
      return v;
    }
  }
  std::abort();  // the registry lacks a kind every build has
}

template <typename C, typename Case>
Scenario Make(std::string name, Case c) {
  return {std::move(name), [c] { return std::make_unique<C>(c); }};
}

LayerNorm2dCase Case2d(Direction direction, halnorm_axes axes, bool channels_last,
                       halnorm_dtype dtype, reference::Nchw shape) {
  LayerNorm2dCase c;
  c.direction = direction;
  c.axes = axes;
  c.channels_last = channels_last;
  c.dtype = dtype;
  c.shape = shape;
  c.params_f32 = dtype == HALNORM_F32;
  return c;
}

// Calls that allocate: 16-bit or offset parameters (converted to f32),
// statistics the caller did not ask for (scratch), backward partials,
// LayerNorm2d's per-feature expansions and sums, and the tuning file.
std::vector<Scenario> Scenarios() {
  const Direction fwd = Direction::kForward, bwd = Direction::kBackward;
  std::vector<Scenario> s;

  RowNormCase ln = testutil::MatrixCase(KindOf(Op::kLayerNorm, fwd, HALNORM_BF16, false), 8, 300);
  ln.params_f32 = false;
  ln.weight_offset = 1.f;
  ln.mean = ln.rstd = false;
  s.push_back(Make<RowForward>("layer_norm_fwd_bf16", ln));
  RowNormCase rms = testutil::MatrixCase(KindOf(Op::kRmsNorm, fwd, HALNORM_F16, true), 4, 128);
  rms.params_f32 = false;
  rms.rstd = false;
  s.push_back(Make<RowForward>("rms_norm_fwd_residual_f16", rms));
  RowNormCase ln_bwd =
      testutil::MatrixCase(KindOf(Op::kLayerNorm, bwd, HALNORM_F32, false), 64, 256);
  ln_bwd.params_f32 = false;
  s.push_back(Make<RowBackward>("layer_norm_bwd_f32", ln_bwd));
  RowNormCase rms_bwd =
      testutil::MatrixCase(KindOf(Op::kRmsNorm, bwd, HALNORM_BF16, false), 16, 512);
  rms_bwd.residual = true;
  s.push_back(Make<RowBackward>("rms_norm_bwd_bf16", rms_bwd));
  // No rows: dweight/dbias are zeros, from a buffer of zeros.
  s.push_back(Make<RowBackward>(
      "layer_norm_bwd_no_rows",
      testutil::MatrixCase(KindOf(Op::kLayerNorm, bwd, HALNORM_F32, false), 0, 32)));

  const std::pair<const char*, LayerNorm2dCase> cases2d[] = {
      {"layer_norm2d_fwd_c_nchw", Case2d(fwd, HALNORM_AXES_C, false, HALNORM_F32, {2, 16, 5, 7})},
      {"layer_norm2d_fwd_c_nhwc", Case2d(fwd, HALNORM_AXES_C, true, HALNORM_F16, {2, 8, 3, 3})},
      {"layer_norm2d_fwd_chw", Case2d(fwd, HALNORM_AXES_CHW, false, HALNORM_F16, {2, 4, 3, 3})},
      {"layer_norm2d_fwd_hw", Case2d(fwd, HALNORM_AXES_HW, false, HALNORM_F32, {2, 3, 4, 4})},
      {"layer_norm2d_bwd_c_nchw", Case2d(bwd, HALNORM_AXES_C, false, HALNORM_F32, {2, 16, 5, 7})},
      {"layer_norm2d_bwd_c_nhwc", Case2d(bwd, HALNORM_AXES_C, true, HALNORM_BF16, {2, 8, 3, 3})},
      {"layer_norm2d_bwd_chw", Case2d(bwd, HALNORM_AXES_CHW, true, HALNORM_F32, {2, 4, 3, 3})},
      {"layer_norm2d_bwd_hw", Case2d(bwd, HALNORM_AXES_HW, false, HALNORM_F16, {2, 3, 4, 4})},
  };
  for (const auto& [name, c] : cases2d) s.push_back(Make<LayerNorm2d>(name, c));

  s.push_back({"load_tuning_file", [] {
                 return std::make_unique<LoadTuningCall>(
                     testutil::WriteTestFile("alloc.tuning", internal::TuningFile{}.ToText()));
               }});
  return s;
}

// What one call did with allocation k failing.
struct Outcome {
  bool failed_an_allocation = false;  // the call made more than k allocations
  int code = -1;
  std::string message;
  bool outputs_untouched = false;
  size_t failed_bytes = 0;
};

// Runs `call` on a fresh thread with allocation k failing (and every later
// one if `fail_later`).
Outcome RunFailing(Call& call, int64_t k, bool later) {
  Outcome outcome;
  std::thread thread([&] {
    allocations = 0;
    fail_at = k;
    fail_later = later;
    armed = true;
    const int code = call.Run();
    armed = false;
    outcome.failed_an_allocation = allocations > k;
    outcome.code = code;
    outcome.failed_bytes = failed_bytes;
    outcome.message = halnorm_last_error();
  });
  thread.join();
  outcome.outputs_untouched = call.OutputsUntouched();
  return outcome;
}

class AllocationFailureTest : public ::testing::TestWithParam<Scenario> {
 protected:
  // Fails allocations 0, 1, 2, ... until the call makes fewer; returns how
  // many allocation points it found.
  int64_t Sweep(bool later) {
    std::vector<std::string> sizes;
    int64_t k = 0;
    for (;; ++k) {
      std::unique_ptr<Call> call = GetParam().make();
      const Outcome o = RunFailing(*call, k, later);
      if (!o.failed_an_allocation) {
        EXPECT_EQ(o.code, HALNORM_OK) << "with all " << k << " allocations made: " << o.message;
        break;
      }
      sizes.push_back(absl::StrCat(o.failed_bytes));
      SCOPED_TRACE(absl::StrCat("allocation ", k, " (", o.failed_bytes, " bytes) failing",
                                later ? " with every later one" : ""));
      EXPECT_EQ(o.code, HALNORM_ERROR_KERNEL) << o.message;
      EXPECT_THAT(o.message, ::testing::HasSubstr("out of memory"));
      EXPECT_TRUE(o.outputs_untouched) << "an output was written";
    }
    RecordProperty("allocation_bytes", absl::StrJoin(sizes, " "));
    return k;
  }
};

TEST_P(AllocationFailureTest, EachFailingAllocationIsAnErrorCode) {
  // Once first: one-time initialization (dispatch tables) is not per call.
  ASSERT_EQ(GetParam().make()->Run(), HALNORM_OK) << halnorm_last_error();
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
  ::testing::internal::CaptureStderr();
  const int64_t points = Sweep(/*later=*/false);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_GE(points, 1) << "the call allocates nothing: the scenario tests nothing";
}

TEST_P(AllocationFailureTest, NoMemoryLeftEvenForTheErrorMessage) {
  ASSERT_EQ(GetParam().make()->Run(), HALNORM_OK) << halnorm_last_error();
  ASSERT_EQ(halnorm_load_tuning_file(nullptr), HALNORM_OK);
  ::testing::internal::CaptureStderr();
  const int64_t points = Sweep(/*later=*/true);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_GE(points, 1);
}

INSTANTIATE_TEST_SUITE_P(EntryPoints, AllocationFailureTest, ::testing::ValuesIn(Scenarios()),
                         [](const ::testing::TestParamInfo<Scenario>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace halnorm
