// Trivial Halide Generator: output(x) = input(x) * 2 + 1.
#include "Halide.h"

namespace {

class SmokeGen : public Halide::Generator<SmokeGen> {
 public:
  Input<Buffer<int32_t>> input{"input", 1};
  Output<Buffer<int32_t>> output{"output", 1};

  void generate() { output(x) = input(x) * 2 + 1; }

 private:
  Halide::Var x{"x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(SmokeGen, smoke_gen)
