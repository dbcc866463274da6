// Normalizes a few token embeddings with the RMSNorm layer and prints them.
//   cd examples/external_workspace && bazel run //:app
#include <cstdio>
#include <vector>

#include "rms_norm_layer.h"

int main() {
  constexpr int kTokens = 3, kHidden = 8;
  RmsNormLayer layer(kHidden, 1e-6f);
  std::vector<float> x(kTokens * kHidden);
  for (int i = 0; i < kTokens * kHidden; ++i) x[i] = static_cast<float>(i % 5) - 2.0f + 0.25f * (i / kHidden);
  std::vector<float> y = layer.Forward(x);
  for (int t = 0; t < kTokens; ++t) {
    std::printf("token %d:", t);
    for (int j = 0; j < kHidden; ++j) std::printf(" %7.4f", y[t * kHidden + j]);
    std::printf("\n");
  }
  return 0;
}
