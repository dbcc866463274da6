// An RMSNorm layer as an app would write one over halnorm's C API: it owns
// its weight, keeps what its backward pass needs, and turns halnorm's error
// codes into exceptions carrying halnorm_last_error().
#ifndef HALNORM_CONSUMER_RMS_NORM_LAYER_H_
#define HALNORM_CONSUMER_RMS_NORM_LAYER_H_

#include <cstdint>
#include <vector>

class RmsNormLayer {
 public:
  RmsNormLayer(int64_t hidden, float eps);

  std::vector<float>& weight() { return weight_; }
  const std::vector<float>& weight_grad() const { return weight_grad_; }

  // x: rows x hidden, row-major. Returns y; keeps x and the per-row rstd.
  std::vector<float> Forward(const std::vector<float>& x);
  // Returns dx for the last Forward's x; accumulates into weight_grad().
  std::vector<float> Backward(const std::vector<float>& dy);

 private:
  int64_t hidden_;
  float eps_;
  std::vector<float> weight_, weight_grad_;
  std::vector<float> saved_x_, saved_rstd_;
};

#endif  // HALNORM_CONSUMER_RMS_NORM_LAYER_H_
