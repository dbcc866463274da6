#include "examples/common/tensor.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace examples {
namespace {

int64_t Product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void CheckSameShape(const Tensor& a, const Tensor& b, const char* what) {
  if (a.shape != b.shape) {
    std::fprintf(stderr, "%s: shape %s vs %s\n", what, a.ShapeString().c_str(),
                 b.ShapeString().c_str());
    std::abort();
  }
}

}  // namespace

Tensor::Tensor(std::vector<int64_t> s) : shape(std::move(s)), data(Product(shape), 0.0) {}

std::string Tensor::ShapeString() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); i++) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Tensor ZerosLike(const Tensor& t) { return Tensor(t.shape); }

void AddInPlace(Tensor* acc, const Tensor& t) {
  CheckSameShape(*acc, t, "AddInPlace");
  for (int64_t i = 0; i < t.numel(); i++) acc->data[i] += t.data[i];
}

double Dot(const Tensor& a, const Tensor& b) {
  CheckSameShape(a, b, "Dot");
  double sum = 0;
  for (int64_t i = 0; i < a.numel(); i++) sum += a.data[i] * b.data[i];
  return sum;
}

double Rng::Uniform(double lo, double hi) {
  const double unit = static_cast<double>(engine_() >> 11) * 0x1.0p-53;  // [0, 1)
  return lo + (hi - lo) * unit;
}

int64_t Rng::Index(int64_t n) { return static_cast<int64_t>(engine_() % static_cast<uint64_t>(n)); }

Tensor RandomTensor(std::vector<int64_t> shape, double center, double spread, Rng* rng) {
  Tensor t(std::move(shape));
  for (double& v : t.data) v = rng->Uniform(center - spread, center + spread);
  return t;
}

}  // namespace examples
