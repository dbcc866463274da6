#include "rms_norm_layer.h"

#include <stdexcept>
#include <string>

#include "runtime/halnorm_c.h"

namespace {

halnorm_tensor Matrix(const std::vector<float>& data, int64_t hidden) {
  const int64_t rows = static_cast<int64_t>(data.size()) / hidden;
  return {const_cast<float*>(data.data()), HALNORM_F32, HALNORM_CPU, 2, {rows, hidden}, {hidden, 1}};
}

halnorm_tensor Vector(const std::vector<float>& data) {
  return {const_cast<float*>(data.data()), HALNORM_F32, HALNORM_CPU, 1,
          {static_cast<int64_t>(data.size())}, {1}};
}

void Check(int status, const char* call) {
  if (status != HALNORM_OK) {
    throw std::invalid_argument(std::string(call) + ": " + halnorm_last_error());
  }
}

}  // namespace

RmsNormLayer::RmsNormLayer(int64_t hidden, float eps)
    : hidden_(hidden), eps_(eps), weight_(hidden, 1.0f), weight_grad_(hidden, 0.0f) {}

std::vector<float> RmsNormLayer::Forward(const std::vector<float>& x) {
  saved_x_ = x;
  saved_rstd_.assign(x.size() / hidden_, 0.0f);
  std::vector<float> y(x.size());
  halnorm_tensor xt = Matrix(saved_x_, hidden_), yt = Matrix(y, hidden_);
  halnorm_tensor wt = Vector(weight_), rt = Vector(saved_rstd_);
  halnorm_norm_options options;
  halnorm_norm_options_init(&options);
  options.eps = eps_;
  Check(halnorm_rms_norm_forward(&xt, &wt, &options, &yt, &rt), "halnorm_rms_norm_forward");
  return y;
}

std::vector<float> RmsNormLayer::Backward(const std::vector<float>& dy) {
  std::vector<float> dx(dy.size()), dweight(hidden_);
  halnorm_tensor dyt = Matrix(dy, hidden_), xt = Matrix(saved_x_, hidden_);
  halnorm_tensor dxt = Matrix(dx, hidden_), rt = Vector(saved_rstd_);
  halnorm_tensor wt = Vector(weight_), dwt = Vector(dweight);
  halnorm_norm_options options;
  halnorm_norm_options_init(&options);
  Check(halnorm_rms_norm_backward(&dyt, &xt, &rt, &wt, &options, &dxt, &dwt),
        "halnorm_rms_norm_backward");
  for (int64_t j = 0; j < hidden_; ++j) weight_grad_[j] += dweight[j];
  return dx;
}
