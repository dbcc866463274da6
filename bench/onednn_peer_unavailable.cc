// OneDnnLayerNorm where the build has no oneDNN: ARM64 builds, since Debian
// cannot install libdnnl-dev:arm64 beside the amd64 one (their dnnl_config.h
// differ). Every Create fails, so the benchmarks report the peer as absent.
#include "bench/onednn_peer.h"

namespace halnorm::bench {
namespace {

absl::Status Unavailable() {
  return absl::UnavailableError("oneDNN is not in this build (ARM64: no Debian libdnnl-dev:arm64)");
}

}  // namespace

struct OneDnnLayerNorm::State {};

absl::Status OneDnnLayerNorm::Create(halnorm_dtype, int64_t, int64_t, bool,
                                     std::unique_ptr<OneDnnLayerNorm>*) {
  return Unavailable();
}

absl::Status OneDnnLayerNorm::CreateOverChannels(halnorm_dtype, int64_t, int64_t, int64_t, bool,
                                                 std::unique_ptr<OneDnnLayerNorm>*) {
  return Unavailable();
}

absl::Status OneDnnLayerNorm::CreateStrided(halnorm_dtype, const std::vector<int64_t>&,
                                            const std::vector<int64_t>&, bool,
                                            std::unique_ptr<OneDnnLayerNorm>*) {
  return Unavailable();
}

OneDnnLayerNorm::OneDnnLayerNorm(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnLayerNorm::~OneDnnLayerNorm() = default;
void OneDnnLayerNorm::Run() {}
void OneDnnLayerNorm::SetThreads(int) {}

}  // namespace halnorm::bench
