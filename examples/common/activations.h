// Scalar activations and their derivatives (what the backward passes need).
#ifndef HALNORM_EXAMPLES_COMMON_ACTIVATIONS_H_
#define HALNORM_EXAMPLES_COMMON_ACTIVATIONS_H_

#include <cmath>

namespace examples {

inline constexpr double kPi = 3.14159265358979323846;

// GPT-2's GELU, the tanh approximation: 0.5 x (1 + tanh(s (x + 0.044715 x^3))).
inline double GeluTanh(double x) {
  const double s = std::sqrt(2.0 / kPi);
  return 0.5 * x * (1.0 + std::tanh(s * (x + 0.044715 * x * x * x)));
}
inline double GeluTanhGrad(double x) {
  const double s = std::sqrt(2.0 / kPi);
  const double t = std::tanh(s * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * s * (1.0 + 3 * 0.044715 * x * x);
}

// The exact GELU (ConvNeXt, nn.GELU()): x Phi(x).
inline double GeluErf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
inline double GeluErfGrad(double x) {
  const double phi = std::exp(-0.5 * x * x) / std::sqrt(2.0 * kPi);
  return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))) + x * phi;
}

// SiLU (Llama's SwiGLU gate): x sigmoid(x).
inline double Silu(double x) { return x / (1.0 + std::exp(-x)); }
inline double SiluGrad(double x) {
  const double sig = 1.0 / (1.0 + std::exp(-x));
  return sig * (1.0 + x * (1.0 - sig));
}

}  // namespace examples

#endif  // HALNORM_EXAMPLES_COMMON_ACTIVATIONS_H_
