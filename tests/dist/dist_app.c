/* A C program built from the //:dist tarball alone, with plain gcc and
 * pkg-config (tests/dist/dist_test.sh builds it against libhalnorm.so and against
 * libhalnorm.a). It runs LayerNorm and RMSNorm forward and backward on fixed
 * pseudo-random data and writes every input and output to <dir>/<name>.f32
 * (raw floats), for dist_reference_check.cc to compare with tests/reference.
 *
 *   dist_app <dir> */
#include <halnorm_c.h>
#include <stdio.h>
#include <string.h>

/* An odd hidden size: the kernels' vector tails run too. */
enum { kRows = 48, kHidden = 1000, kElements = kRows * kHidden };

static float x[kElements], y[kElements], dy[kElements], dx[kElements];
static float weight[kHidden], bias[kHidden], dweight[kHidden], dbias[kHidden];
static float mean[kRows], rstd[kRows];

static const char* out_dir;

static int save(const char* name, const float* data, size_t count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.f32", out_dir, name);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(data, sizeof(float), count, f) != count || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    return 1;
  }
  return 0;
}

static halnorm_tensor matrix(float* data) {
  halnorm_tensor t = {data, HALNORM_F32, HALNORM_CPU, 2, {kRows, kHidden}, {kHidden, 1}};
  return t;
}

static halnorm_tensor vector(float* data, int64_t n) {
  halnorm_tensor t = {data, HALNORM_F32, HALNORM_CPU, 1, {n}, {1}};
  return t;
}

/* Uniform in [-1, 1): a fixed LCG, so every build sees the same data. */
static float next_uniform(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

static int check(int status, const char* call) {
  if (status != 0) fprintf(stderr, "%s failed (%d): %s\n", call, status, halnorm_last_error());
  return status != 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  unsigned state = 12345;
  for (int i = 0; i < kElements; i++) {
    x[i] = 3.0f + 2.0f * next_uniform(&state); /* a mean far from 0 */
    dy[i] = next_uniform(&state);
  }
  for (int j = 0; j < kHidden; j++) {
    weight[j] = 1.0f + 0.5f * next_uniform(&state);
    bias[j] = 0.1f * next_uniform(&state);
  }

  halnorm_tensor xt = matrix(x), yt = matrix(y), dyt = matrix(dy), dxt = matrix(dx);
  halnorm_tensor wt = vector(weight, kHidden), bt = vector(bias, kHidden);
  halnorm_tensor dwt = vector(dweight, kHidden), dbt = vector(dbias, kHidden);
  halnorm_tensor mt = vector(mean, kRows), rt = vector(rstd, kRows);
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);

  int failed = save("x", x, kElements) || save("dy", dy, kElements) ||
               save("weight", weight, kHidden) || save("bias", bias, kHidden);

  failed = failed || check(halnorm_layer_norm_forward(&xt, &wt, &bt, &opt, &yt, &mt, &rt),
                           "halnorm_layer_norm_forward");
  failed = failed || save("layer_norm_y", y, kElements) || save("layer_norm_mean", mean, kRows) ||
           save("layer_norm_rstd", rstd, kRows);
  failed = failed || check(halnorm_layer_norm_backward(&dyt, &xt, &mt, &rt, &wt, &opt, &dxt,
                                                       &dwt, &dbt),
                           "halnorm_layer_norm_backward");
  failed = failed || save("layer_norm_dx", dx, kElements) ||
           save("layer_norm_dweight", dweight, kHidden) || save("layer_norm_dbias", dbias, kHidden);

  failed = failed || check(halnorm_rms_norm_forward(&xt, &wt, &opt, &yt, &rt),
                           "halnorm_rms_norm_forward");
  failed = failed || save("rms_norm_y", y, kElements) || save("rms_norm_rstd", rstd, kRows);
  failed = failed || check(halnorm_rms_norm_backward(&dyt, &xt, &rt, &wt, &opt, &dxt, &dwt),
                           "halnorm_rms_norm_backward");
  failed = failed || save("rms_norm_dx", dx, kElements) ||
           save("rms_norm_dweight", dweight, kHidden);
  if (failed) return 1;

  /* A bad call: an error naming the argument, and y untouched. */
  float y_before = y[0];
  halnorm_tensor short_weight = vector(weight, kHidden - 1);
  int status = halnorm_rms_norm_forward(&xt, &short_weight, &opt, &yt, NULL);
  if (status != HALNORM_ERROR_INVALID_ARGUMENT || strncmp(halnorm_last_error(), "weight", 6) != 0 ||
      y[0] != y_before) {
    fprintf(stderr, "a short weight gave status %d, \"%s\"\n", status, halnorm_last_error());
    return 1;
  }
  printf("dist_app: %d x %d LayerNorm and RMSNorm, forward and backward, written to %s\n", kRows,
         kHidden, out_dir);
  return 0;
}
