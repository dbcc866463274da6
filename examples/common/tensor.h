// A dense row-major tensor of doubles, and a seeded random source.
//
// The example models compute in double so that central finite differences of
// their loss resolve small gradients; only the halnorm calls run in f32
// (halnorm_f32.h stages their operands).
#ifndef HALNORM_EXAMPLES_COMMON_TENSOR_H_
#define HALNORM_EXAMPLES_COMMON_TENSOR_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace examples {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(std::vector<int64_t> shape);  // zeros

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  bool empty() const { return data.empty(); }
  double& operator[](int64_t i) { return data[i]; }
  const double& operator[](int64_t i) const { return data[i]; }
  std::string ShapeString() const;  // "[2, 8, 32]"
};

// A model's tensors by name, in a fixed order.
using NamedTensors = std::vector<std::pair<std::string, Tensor*>>;

// Zeros shaped like `t`.
Tensor ZerosLike(const Tensor& t);

// Same-shape element-wise helpers; they abort on a shape mismatch (a bug in
// the model code, not a runtime condition).
void AddInPlace(Tensor* acc, const Tensor& t);  // acc += t
double Dot(const Tensor& a, const Tensor& b);   // sum a * b

// Deterministic on every platform: doubles are made from the engine's raw
// bits, not with std::uniform_real_distribution (implementation-defined).
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  double Uniform(double lo, double hi);
  int64_t Index(int64_t n);  // in [0, n)

 private:
  std::mt19937_64 engine_;
};

// Uniform in [center - spread, center + spread).
Tensor RandomTensor(std::vector<int64_t> shape, double center, double spread, Rng* rng);

}  // namespace examples

#endif  // HALNORM_EXAMPLES_COMMON_TENSOR_H_
