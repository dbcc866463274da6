// oneDNN 2.6 layer normalization as a benchmark peer: the same problem as
// halnorm's (M rows x N, scale and shift, statistics kept for backward).
// oneDNN 2.6 has no RMSNorm flag, so there is no RMS peer here.
#ifndef HALNORM_BENCH_ONEDNN_PEER_H_
#define HALNORM_BENCH_ONEDNN_PEER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/halnorm_c.h"

namespace halnorm::bench {

class OneDnnLayerNorm {
 public:
  // Creates the primitive(s) and buffers; an error when oneDNN has no
  // implementation (e.g. bf16 on a CPU without avx512_core).
  static absl::Status Create(halnorm_dtype dtype, int64_t rows, int64_t hidden, bool backward,
                             std::unique_ptr<OneDnnLayerNorm>* out);
  // LayerNorm2d over the channels of an NCHW tensor, in place (no permute).
  static absl::Status CreateOverChannels(halnorm_dtype dtype, int64_t batch, int64_t channels,
                                         int64_t pixels, bool backward,
                                         std::unique_ptr<OneDnnLayerNorm>* out);
  ~OneDnnLayerNorm();

  // One forward (training: writes mean/variance) or backward pass.
  void Run();
  static void SetThreads(int threads);

 private:
  struct State;
  explicit OneDnnLayerNorm(std::unique_ptr<State> state);
  static absl::Status CreateStrided(halnorm_dtype dtype, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& strides, bool backward,
                                    std::unique_ptr<OneDnnLayerNorm>* out);
  std::unique_ptr<State> state_;
};

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_ONEDNN_PEER_H_
