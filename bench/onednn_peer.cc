#include "bench/onednn_peer.h"

#include <cstring>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"

extern "C" void omp_set_num_threads(int);  // libgomp, which Debian's oneDNN uses

namespace halnorm::bench {

using dnnl::layer_normalization_backward;
using dnnl::layer_normalization_forward;
using dnnl::memory;
using dnnl::normalization_flags;
using dnnl::prop_kind;

struct OneDnnLayerNorm::State {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
};

OneDnnLayerNorm::OneDnnLayerNorm(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnLayerNorm::~OneDnnLayerNorm() = default;

absl::Status OneDnnLayerNorm::Create(halnorm_dtype dtype, int64_t rows, int64_t hidden,
                                     bool backward, std::unique_ptr<OneDnnLayerNorm>* out) {
  return CreateStrided(dtype, {rows, hidden}, {hidden, 1}, backward, out);
}

// oneDNN normalizes over the last logical dimension, whatever its stride:
// NCHW over C is dims {N, HW, C} with strides {C*HW, 1, HW}.
absl::Status OneDnnLayerNorm::CreateOverChannels(halnorm_dtype dtype, int64_t batch,
                                                 int64_t channels, int64_t pixels, bool backward,
                                                 std::unique_ptr<OneDnnLayerNorm>* out) {
  return CreateStrided(dtype, {batch, pixels, channels}, {channels * pixels, 1, pixels}, backward,
                       out);
}

absl::Status OneDnnLayerNorm::CreateStrided(halnorm_dtype dtype, const std::vector<int64_t>& dims,
                                            const std::vector<int64_t>& strides, bool backward,
                                            std::unique_ptr<OneDnnLayerNorm>* out) {
  auto state = std::make_unique<State>();
  const memory::data_type data_type = dtype == HALNORM_BF16  ? memory::data_type::bf16
                                      : dtype == HALNORM_F16 ? memory::data_type::f16
                                                             : memory::data_type::f32;
  const memory::desc data(dims, data_type, strides);
  const memory::desc params({dims.back()}, memory::data_type::f32, memory::format_tag::a);
  const normalization_flags flags = normalization_flags::use_scale | normalization_flags::use_shift;
  try {
    const layer_normalization_forward::primitive_desc fwd(
        {prop_kind::forward_training, data, 1e-5f, flags}, state->engine);
    auto make = [&](const memory::desc& md, float value) {
      memory m(md, state->engine);
      // Deterministic values near `value` (bf16: bit patterns of ~1.0-1.7),
      // so no NaN or denormal skews the timing.
      const size_t bytes = md.get_size();
      std::vector<char> fill(bytes, 0);
      if (md.data_type() == memory::data_type::f32) {
        auto* f = reinterpret_cast<float*>(fill.data());
        for (size_t i = 0; i < bytes / sizeof(float); i++) f[i] = value + 0.001f * (i % 97);
      } else {
        auto* h = reinterpret_cast<uint16_t*>(fill.data());
        for (size_t i = 0; i < bytes / 2; i++) h[i] = 0x3f80 + (i % 97);  // ~1.0 .. 1.7
      }
      std::memcpy(m.get_data_handle(), fill.data(), bytes);
      return m;
    };
    auto& a = state->args;
    a[DNNL_ARG_SRC] = make(data, 0.5f);
    a[DNNL_ARG_MEAN] = make(fwd.mean_desc(), 0.f);
    a[DNNL_ARG_VARIANCE] = make(fwd.variance_desc(), 1.f);
    a[DNNL_ARG_SCALE] = make(params, 1.f);
    a[DNNL_ARG_SHIFT] = make(params, 0.f);
    if (!backward) {
      a[DNNL_ARG_DST] = make(data, 0.f);
      state->primitive = layer_normalization_forward(fwd);
    } else {
      const layer_normalization_backward::primitive_desc bwd(
          {prop_kind::backward, data, data, 1e-5f, flags}, state->engine, fwd);
      a[DNNL_ARG_DIFF_DST] = make(data, 0.1f);
      a[DNNL_ARG_DIFF_SRC] = make(data, 0.f);
      a[DNNL_ARG_DIFF_SCALE] = make(params, 0.f);
      a[DNNL_ARG_DIFF_SHIFT] = make(params, 0.f);
      state->primitive = layer_normalization_backward(bwd);
    }
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(absl::StrCat("oneDNN: ", e.what()));
  }
  out->reset(new OneDnnLayerNorm(std::move(state)));
  return absl::OkStatus();
}

void OneDnnLayerNorm::Run() {
  state_->primitive.execute(state_->stream, state_->args);
  state_->stream.wait();
}

void OneDnnLayerNorm::SetThreads(int threads) { omp_set_num_threads(threads); }

}  // namespace halnorm::bench
