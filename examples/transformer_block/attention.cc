#include "examples/transformer_block/attention.h"

#include <algorithm>
#include <cmath>

namespace examples {
namespace {

// Offsets into qkv [B, T, 3C], y [B, T, C] and probs [B, H, T, T].
struct Index {
  const AttentionShape& s;
  int64_t qkv(int64_t b, int64_t t, int part, int64_t h) const {
    return (b * s.seq + t) * 3 * s.channels() + part * s.channels() + h * s.head_dim;
  }
  int64_t out(int64_t b, int64_t t, int64_t h) const {
    return (b * s.seq + t) * s.channels() + h * s.head_dim;
  }
  int64_t prob(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return ((b * s.heads + h) * s.seq + i) * s.seq + j;
  }
};
constexpr int kQ = 0, kK = 1, kV = 2;

}  // namespace

Tensor CausalAttentionForward(const Tensor& qkv, const AttentionShape& s, Tensor* probs) {
  const Index at{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  Tensor y({s.batch, s.seq, s.channels()});
  *probs = Tensor({s.batch, s.heads, s.seq, s.seq});
  for (int64_t b = 0; b < s.batch; b++) {
    for (int64_t h = 0; h < s.heads; h++) {
      for (int64_t i = 0; i < s.seq; i++) {
        // Scores of query i against keys 0..i (causal), softmax with the
        // max subtracted for range.
        double* p = &(*probs)[at.prob(b, h, i, 0)];
        double max_score = -INFINITY;
        for (int64_t j = 0; j <= i; j++) {
          double dot = 0;
          for (int64_t d = 0; d < s.head_dim; d++) {
            dot += qkv[at.qkv(b, i, kQ, h) + d] * qkv[at.qkv(b, j, kK, h) + d];
          }
          p[j] = dot * scale;
          max_score = std::max(max_score, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j <= i; j++) sum += (p[j] = std::exp(p[j] - max_score));
        for (int64_t j = 0; j <= i; j++) p[j] /= sum;
        for (int64_t d = 0; d < s.head_dim; d++) {
          double acc = 0;
          for (int64_t j = 0; j <= i; j++) acc += p[j] * qkv[at.qkv(b, j, kV, h) + d];
          y[at.out(b, i, h) + d] = acc;
        }
      }
    }
  }
  return y;
}

Tensor CausalAttentionBackward(const Tensor& dy, const Tensor& qkv, const Tensor& probs,
                               const AttentionShape& s) {
  const Index at{s};
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  Tensor dqkv(qkv.shape);
  std::vector<double> dp(s.seq);
  for (int64_t b = 0; b < s.batch; b++) {
    for (int64_t h = 0; h < s.heads; h++) {
      for (int64_t i = 0; i < s.seq; i++) {
        const double* p = &probs[at.prob(b, h, i, 0)];
        const double* dyi = &dy[at.out(b, i, h)];
        // y_i = sum_j p_ij v_j: gradients of p_ij and v_j.
        double p_dot_dp = 0;
        for (int64_t j = 0; j <= i; j++) {
          double acc = 0;
          for (int64_t d = 0; d < s.head_dim; d++) {
            acc += dyi[d] * qkv[at.qkv(b, j, kV, h) + d];
            dqkv[at.qkv(b, j, kV, h) + d] += p[j] * dyi[d];
          }
          dp[j] = acc;
          p_dot_dp += p[j] * acc;
        }
        // Softmax backward, then the scaled dot product q_i . k_j.
        for (int64_t j = 0; j <= i; j++) {
          const double dscore = p[j] * (dp[j] - p_dot_dp) * scale;
          for (int64_t d = 0; d < s.head_dim; d++) {
            dqkv[at.qkv(b, i, kQ, h) + d] += dscore * qkv[at.qkv(b, j, kK, h) + d];
            dqkv[at.qkv(b, j, kK, h) + d] += dscore * qkv[at.qkv(b, i, kQ, h) + d];
          }
        }
      }
    }
  }
  return dqkv;
}

}  // namespace examples
