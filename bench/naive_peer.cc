#include "bench/naive_peer.h"

#include <cmath>
#include <thread>
#include <vector>

namespace halnorm::bench {
namespace {

template <typename Rows>
void SplitRows(int64_t rows, int threads, Rows body) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; t++) {
    pool.emplace_back([=] { body(rows * t / threads, rows * (t + 1) / threads); });
  }
  body(0, rows / threads);
  for (auto& th : pool) th.join();
}

}  // namespace

NaiveRowNorm::NaiveRowNorm(bool rms, int64_t rows, int64_t hidden)
    : rms_(rms),
      rows_(rows),
      hidden_(hidden),
      x_(rows * hidden),
      y_(x_.size()),
      dy_(x_.size()),
      dx_(x_.size()),
      weight_(hidden, 1.f),
      bias_(hidden, 0.f),
      mean_(rows),
      rstd_(rows),
      dweight_(hidden),
      dbias_(hidden) {
  for (size_t i = 0; i < x_.size(); i++) {
    x_[i] = 0.01f * static_cast<float>(i % 97);
    dy_[i] = 0.02f * static_cast<float>(i % 89) - 0.5f;
  }
}

void NaiveRowNorm::ForwardRows(int64_t begin, int64_t end) {
  for (int64_t r = begin; r < end; r++) {
    const float* x = &x_[r * hidden_];
    float* y = &y_[r * hidden_];
    float mean = 0.f;
    if (!rms_) {
      for (int64_t n = 0; n < hidden_; n++) mean += x[n];
      mean /= hidden_;
    }
    float var = 0.f;
    for (int64_t n = 0; n < hidden_; n++) var += (x[n] - mean) * (x[n] - mean);
    const float rstd = 1.f / std::sqrt(var / hidden_ + 1e-5f);
    for (int64_t n = 0; n < hidden_; n++) y[n] = (x[n] - mean) * rstd * weight_[n] + bias_[n];
    mean_[r] = mean;
    rstd_[r] = rstd;
  }
}

void NaiveRowNorm::BackwardRows(int64_t begin, int64_t end, float* dweight, float* dbias) {
  for (int64_t r = begin; r < end; r++) {
    const float* x = &x_[r * hidden_];
    const float* dy = &dy_[r * hidden_];
    float* dx = &dx_[r * hidden_];
    float sum_g = 0.f, sum_g_xhat = 0.f;
    for (int64_t n = 0; n < hidden_; n++) {
      const float g = dy[n] * weight_[n];
      sum_g += g;
      sum_g_xhat += g * (x[n] - mean_[r]) * rstd_[r];
    }
    if (rms_) sum_g = 0.f;
    for (int64_t n = 0; n < hidden_; n++) {
      const float xhat = (x[n] - mean_[r]) * rstd_[r];
      dx[n] = rstd_[r] * (dy[n] * weight_[n] - sum_g / hidden_ - xhat * sum_g_xhat / hidden_);
      dweight[n] += dy[n] * xhat;
      dbias[n] += dy[n];
    }
  }
}

void NaiveRowNorm::Forward(int threads) {
  SplitRows(rows_, threads, [this](int64_t b, int64_t e) { ForwardRows(b, e); });
}

// Each thread sums dweight/dbias over its rows; the per-thread sums are
// added at the end.
void NaiveRowNorm::Backward(int threads) {
  std::vector<std::vector<float>> dweight(threads, std::vector<float>(hidden_, 0.f));
  std::vector<std::vector<float>> dbias = dweight;
  SplitRows(rows_, threads, [&](int64_t b, int64_t e) {
    const int t = static_cast<int>(b * threads / rows_);
    BackwardRows(b, e, dweight[t].data(), dbias[t].data());
  });
  for (int t = 1; t < threads; t++) {
    for (int64_t n = 0; n < hidden_; n++) {
      dweight[0][n] += dweight[t][n];
      dbias[0][n] += dbias[t][n];
    }
  }
  dweight_.assign(dweight[0].begin(), dweight[0].end());
  dbias_.assign(dbias[0].begin(), dbias[0].end());
}

}  // namespace halnorm::bench
