// libFuzzer target over the C API (tools/fuzz.sh runs it; c_api_regression_test
// replays fuzz/corpus in every test run). Each input picks an entry point,
// its options and its tensor descriptors (tensor_maker.h); then the call
// must keep the contract of runtime/halnorm_c.h:
//  - a known status code; on error, a message and not one byte changed;
//  - on success, nothing written outside the outputs' elements, and no
//    output element shared with an input or with another output element.
// A broken contract aborts (a crash libFuzzer saves), as does any ASan or
// UBSan report from inside the library.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/byte_reader.h"
#include "fuzz/tensor_maker.h"
#include "runtime/halnorm_c.h"

namespace halnorm::fuzz {
namespace {

void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "halnorm contract broken: %s (last error: %s)\n", what,
               halnorm_last_error());
  std::abort();
}

std::vector<int64_t> ShapeOf(const halnorm_tensor* t) {
  if (t == nullptr || t->rank < 1 || t->rank > 4) return {1};
  return std::vector<int64_t>(t->shape, t->shape + t->rank);
}

// One call's arguments, by role, for the contract checks.
struct Call {
  std::vector<const halnorm_tensor*> inputs, outputs;
};

// HALNORM_FUZZ_VERBOSE=1: each call's descriptors on stderr, for triage.
void Describe(const TensorMaker& m, const Call& call, int status) {
  if (std::getenv("HALNORM_FUZZ_VERBOSE") == nullptr) return;
  auto print = [&](const char* role, const halnorm_tensor* t) {
    if (t == nullptr) return (void)std::fprintf(stderr, "  %s: null\n", role);
    std::fprintf(stderr, "  %s: dtype %d device %d rank %d data %+td shape [", role, t->dtype,
                 t->device, t->rank,
                 t->data ? static_cast<const uint8_t*>(t->data) - m.arena() : -1);
    for (int d = 0; d < 4; d++) std::fprintf(stderr, " %lld", static_cast<long long>(t->shape[d]));
    std::fprintf(stderr, "] strides [");
    for (int d = 0; d < 4; d++) std::fprintf(stderr, " %lld", static_cast<long long>(t->strides[d]));
    std::fprintf(stderr, "]\n");
  };
  std::fprintf(stderr, "call -> %d %s\n", status, status ? halnorm_last_error() : "");
  for (const halnorm_tensor* t : call.inputs) print("in ", t);
  for (const halnorm_tensor* t : call.outputs) print("out", t);
}

halnorm_norm_options FuzzedOptions(ByteReader& in) {
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  static constexpr int kNormalizedRanks[] = {1, 1, 1, 1, 2, 3, 4, 0, -1, 5};
  opt.normalized_rank = in.Pick(kNormalizedRanks);
  if (in.Byte() >= 200) opt.eps = in.Float();
  if (in.Byte() >= 200) opt.weight_offset = in.Float();
  if (in.Byte() >= 200) opt.residual_alpha = in.Float();
  // Only CUDA calls may use it: a CPU call must not touch it.
  if (in.Byte() >= 240) opt.cuda_stream = reinterpret_cast<void*>(uintptr_t{0xdead0000});
  return opt;
}

// x's trailing normalized dims (the parameters' shape) and leading ones (the
// statistics'), as a valid call would have them.
void SplitShape(const std::vector<int64_t>& shape, int normalized_rank,
                std::vector<int64_t>* trailing, std::vector<int64_t>* leading) {
  const int rank = static_cast<int>(shape.size());
  const int k = normalized_rank < 1 ? 1 : normalized_rank > rank ? rank : normalized_rank;
  trailing->assign(shape.end() - k, shape.end());
  leading->assign(shape.begin(), shape.end() - k);
  if (leading->empty()) leading->push_back(1);
}

int RowNorm(ByteReader& in, TensorMaker& m, bool layer_norm, bool backward, Call* call) {
  halnorm_tensor* x = m.MakeX();
  const std::vector<int64_t> shape = ShapeOf(x);
  const halnorm_dtype dtype = x != nullptr ? x->dtype : HALNORM_F32;
  halnorm_norm_options opt = FuzzedOptions(in);
  std::vector<int64_t> trailing, leading;
  SplitShape(shape, opt.normalized_rank, &trailing, &leading);
  const halnorm_dtype param_dtype = in.Byte() % 4 == 0 ? dtype : HALNORM_F32;
  auto maybe = [&](const std::vector<int64_t>& s, halnorm_dtype d) {
    return in.Byte() < 200 ? m.Make(s, d) : nullptr;
  };
  halnorm_tensor* weight = maybe(trailing, param_dtype);
  if (!backward) {
    halnorm_tensor* bias = layer_norm ? maybe(trailing, param_dtype) : nullptr;
    const bool fused = in.Byte() >= 160;
    const halnorm_tensor* residual = fused ? m.Make(shape, dtype) : nullptr;
    halnorm_tensor* residual_out = fused || in.Byte() >= 250 ? m.Make(shape, dtype) : nullptr;
    opt.residual = residual;
    opt.residual_out = residual_out;
    halnorm_tensor* y = m.Make(shape, dtype);
    halnorm_tensor* mean = layer_norm ? maybe(leading, HALNORM_F32) : nullptr;
    halnorm_tensor* rstd = maybe(leading, HALNORM_F32);
    call->inputs = {x, weight, bias, residual};
    call->outputs = {y, mean, rstd, residual_out};
    return layer_norm ? halnorm_layer_norm_forward(x, weight, bias, &opt, y, mean, rstd)
                      : halnorm_rms_norm_forward(x, weight, &opt, y, rstd);
  }
  halnorm_tensor* dy = m.Make(shape, dtype);
  halnorm_tensor* mean = layer_norm ? m.Make(leading, HALNORM_F32) : nullptr;
  halnorm_tensor* rstd = m.Make(leading, HALNORM_F32);
  // In the backward pass opt->residual is a gradient added to dx.
  const halnorm_tensor* residual_grad = in.Byte() >= 192 ? m.Make(shape, dtype) : nullptr;
  opt.residual = residual_grad;
  halnorm_tensor* dx = m.Make(shape, dtype);
  halnorm_tensor* dweight = maybe(trailing, param_dtype);
  halnorm_tensor* dbias = layer_norm ? maybe(trailing, param_dtype) : nullptr;
  call->inputs = {dy, x, mean, rstd, weight, residual_grad};
  call->outputs = {dx, dweight, dbias};
  return layer_norm
             ? halnorm_layer_norm_backward(dy, x, mean, rstd, weight, &opt, dx, dweight, dbias)
             : halnorm_rms_norm_backward(dy, x, rstd, weight, &opt, dx, dweight);
}

int LayerNorm2d(ByteReader& in, TensorMaker& m, bool backward, Call* call) {
  halnorm_tensor* x = m.MakeX();
  const std::vector<int64_t> shape = ShapeOf(x);
  const halnorm_dtype dtype = x != nullptr ? x->dtype : HALNORM_F32;
  static constexpr int kAxes[] = {HALNORM_AXES_C, HALNORM_AXES_CHW, HALNORM_AXES_HW, 3, -1};
  const auto axes = static_cast<halnorm_axes>(in.Pick(kAxes));
  const float eps = in.Byte() >= 200 ? in.Float() : 1e-5f;
  const int64_t n = shape[0], c = shape.size() == 4 ? shape[1] : 1;
  const int64_t h = shape.size() == 4 ? shape[2] : 1, w = shape.size() == 4 ? shape[3] : 1;
  const std::vector<int64_t> stats = axes == HALNORM_AXES_CHW ? std::vector<int64_t>{n}
                                     : axes == HALNORM_AXES_HW ? std::vector<int64_t>{n, c}
                                                               : std::vector<int64_t>{n, h, w};
  const halnorm_dtype param_dtype = in.Byte() % 4 == 0 ? dtype : HALNORM_F32;
  halnorm_tensor* weight = in.Byte() < 220 ? m.Make({c}, param_dtype) : nullptr;
  halnorm_tensor* mean = m.Make(stats, HALNORM_F32);
  halnorm_tensor* rstd = m.Make(stats, HALNORM_F32);
  if (!backward) {
    halnorm_tensor* bias = in.Byte() < 220 ? m.Make({c}, param_dtype) : nullptr;
    halnorm_tensor* y = m.Make(shape, dtype);
    call->inputs = {x, weight, bias};
    call->outputs = {y, mean, rstd};
    return halnorm_layer_norm2d_forward(x, weight, bias, axes, eps, y, mean, rstd);
  }
  halnorm_tensor* dy = m.Make(shape, dtype);
  halnorm_tensor* dx = m.Make(shape, dtype);
  halnorm_tensor* dweight = in.Byte() < 200 ? m.Make({c}, param_dtype) : nullptr;
  halnorm_tensor* dbias = in.Byte() < 200 ? m.Make({c}, param_dtype) : nullptr;
  call->inputs = {dy, x, mean, rstd, weight};
  call->outputs = {dx, dweight, dbias};
  return halnorm_layer_norm2d_backward(dy, x, mean, rstd, weight, axes, dx, dweight, dbias);
}

// The rest of the input as a tuning file: a parser of untrusted text.
void TuningFile(ByteReader& in) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(dir != nullptr ? dir : "/tmp") + "/halnorm_fuzz_tuning_" + std::to_string(getpid());
  size_t size;
  const uint8_t* text = in.Rest(&size);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return;
  std::fwrite(text, 1, size, f);
  std::fclose(f);
  const int status = halnorm_load_tuning_file(path.c_str());
  Require(status == HALNORM_OK || status == HALNORM_ERROR_INVALID_ARGUMENT, "tuning file status");
  Require(status == HALNORM_OK || halnorm_last_error()[0] != '\0', "tuning file error message");
  Require(halnorm_tuning_source() != nullptr, "tuning source");
  Require(halnorm_load_tuning_file(nullptr) == HALNORM_OK, "back to the built-in table");
  std::remove(path.c_str());
}

// What a successful call wrote: only its outputs' elements, none of them
// shared with an input or another output element.
void CheckSuccess(const TensorMaker& m, const Call& call, const std::vector<uint8_t>& before) {
  std::vector<uint8_t> output_byte(TensorMaker::kArenaBytes, 0);
  for (const halnorm_tensor* out : call.outputs) {
    for (const ArenaRange& r : m.ElementRanges(out)) {
      for (size_t i = r.lo; i < r.hi; i++) {
        Require(output_byte[i] == 0, "an output element overlaps another output element");
        output_byte[i] = 1;
      }
    }
  }
  for (const halnorm_tensor* input : call.inputs) {
    for (const ArenaRange& r : m.ElementRanges(input)) {
      for (size_t i = r.lo; i < r.hi; i++) {
        Require(output_byte[i] == 0, "an output element aliases an input");
      }
    }
  }
  for (size_t i = 0; i < TensorMaker::kArenaBytes; i++) {
    Require(output_byte[i] != 0 || m.arena()[i] == before[i], "wrote outside the outputs");
  }
}

}  // namespace
}  // namespace halnorm::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  halnorm_set_num_threads(1);  // fast, and the same work whatever the machine
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halnorm::fuzz;
  ByteReader in(data, size);
  const uint8_t op = in.Byte() % 7;
  if (op == 6) {
    TuningFile(in);
    return 0;
  }
  TensorMaker maker(in);
  const std::vector<uint8_t> before(maker.arena(), maker.arena() + TensorMaker::kArenaBytes);
  Call call;
  const int status = op < 4 ? RowNorm(in, maker, /*layer_norm=*/op < 2, /*backward=*/op % 2, &call)
                            : LayerNorm2d(in, maker, /*backward=*/op == 5, &call);
  Describe(maker, call, status);
  Require(status >= HALNORM_OK && status <= HALNORM_ERROR_KERNEL, "unknown status code");
  if (status != HALNORM_OK) {
    Require(halnorm_last_error()[0] != '\0', "an error without a message");
    Require(std::memcmp(before.data(), maker.arena(), before.size()) == 0,
            "an error, yet memory changed");
    return 0;
  }
  CheckSuccess(maker, call, before);
  return 0;
}
