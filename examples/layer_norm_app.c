/* A plain C app using halnorm through its C ABI: LayerNorm over a batch of
 * token embeddings, the statistics a backward pass would need, and what a bad
 * call reports.
 *
 *   bazel run //examples:layer_norm_app */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/halnorm_c.h"

enum { kTokens = 4, kHidden = 6 };

static halnorm_tensor tensor_2d(float* data, int64_t rows, int64_t cols) {
  halnorm_tensor t = {data, HALNORM_F32, HALNORM_CPU, 2, {rows, cols}, {cols, 1}};
  return t;
}

static halnorm_tensor tensor_1d(float* data, int64_t n) {
  halnorm_tensor t = {data, HALNORM_F32, HALNORM_CPU, 1, {n}, {1}};
  return t;
}

int main(void) {
  float x[kTokens * kHidden], y[kTokens * kHidden];
  float weight[kHidden], bias[kHidden], mean[kTokens], rstd[kTokens];
  for (int i = 0; i < kTokens * kHidden; i++) x[i] = 100.0f + (float)((i * 7) % 11) - 5.0f;
  for (int j = 0; j < kHidden; j++) {
    weight[j] = 1.0f + 0.1f * j;
    bias[j] = 0.01f * j;
  }
  halnorm_tensor xt = tensor_2d(x, kTokens, kHidden), yt = tensor_2d(y, kTokens, kHidden);
  halnorm_tensor wt = tensor_1d(weight, kHidden), bt = tensor_1d(bias, kHidden);
  halnorm_tensor mt = tensor_1d(mean, kTokens), rt = tensor_1d(rstd, kTokens);
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);

  if (halnorm_layer_norm_forward(&xt, &wt, &bt, &opt, &yt, &mt, &rt) != 0) {
    fprintf(stderr, "layer_norm_forward failed: %s\n", halnorm_last_error());
    return 1;
  }
  printf("LayerNorm of %d tokens x %d features (eps %g):\n", kTokens, kHidden, opt.eps);
  for (int t = 0; t < kTokens; t++) {
    printf("  token %d  mean %8.4f  rstd %7.4f  y =", t, mean[t], rstd[t]);
    for (int j = 0; j < kHidden; j++) printf(" %7.4f", y[t * kHidden + j]);
    printf("\n");
  }

  /* Self-check: with weight 1 and bias 0 removed, each row of y has mean ~0
   * and variance ~1. */
  for (int t = 0; t < kTokens; t++) {
    double m = 0, v = 0;
    for (int j = 0; j < kHidden; j++) m += (y[t * kHidden + j] - bias[j]) / weight[j];
    m /= kHidden;
    for (int j = 0; j < kHidden; j++) {
      double z = (y[t * kHidden + j] - bias[j]) / weight[j] - m;
      v += z * z;
    }
    v /= kHidden;
    if (fabs(m) > 1e-4 || fabs(v - 1.0) > 1e-3) {
      fprintf(stderr, "token %d: normalized mean %g variance %g\n", t, m, v);
      return 1;
    }
  }

  /* Bad input: a weight of the wrong size is rejected and y is left as is. */
  halnorm_tensor short_weight = tensor_1d(weight, kHidden - 1);
  int code = halnorm_layer_norm_forward(&xt, &short_weight, &bt, &opt, &yt, NULL, NULL);
  printf("wrong weight size -> error %d: %s\n", code, halnorm_last_error());
  return code == HALNORM_ERROR_INVALID_ARGUMENT ? 0 : 1;
}
