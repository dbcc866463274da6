// One training step of a ConvNeXt block whose LayerNorm is a halnorm
// LayerNorm2d call over channels, with its hand-written backward pass
// checked against central finite differences of the loss.
//
//   bazel run //examples/convnext_block
//
// Exit status: 0 gradients match, 1 they do not, 2 usage or halnorm error.
// --fault=norm_dbias|skip_grad plants a backward bug (the tests use it to
// show the check catches each one).
#include <cstdio>
#include <string>

#include "examples/common/grad_check.h"
#include "examples/common/tensor.h"
#include "examples/convnext_block/convnext_block.h"

namespace examples {
namespace {

bool ParseFlags(int argc, char** argv, ConvNextFault* fault) {
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--fault=norm_dbias") {
      *fault = ConvNextFault::kNormBiasGrad;
    } else if (arg == "--fault=skip_grad") {
      *fault = ConvNextFault::kSkipGrad;
    } else {
      std::fprintf(stderr, "unknown argument %s\nusage: %s [--fault=norm_dbias|skip_grad]\n",
                   argv[i], argv[0]);
      return false;
    }
  }
  return true;
}

int Run(ConvNextFault fault) {
  const ConvNextConfig config;
  Rng rng(2022);
  ConvNextParams params = InitParams(config, &rng);
  Tensor x =
      RandomTensor({config.batch, config.channels, config.height, config.width}, 0.0, 1.0, &rng);
  // loss = sum(out * probe): dL/dout = probe, distinct per element.
  const Tensor probe = RandomTensor(x.shape, 0.0, 1.0, &rng);

  ConvNextActivations saved;
  const double loss = Dot(ConvNextForward(config, params, x, &saved), probe);
  Tensor dx;
  ConvNextParams grads;
  ConvNextBackward(params, x, saved, probe, fault, &dx, &grads);

  std::printf(
      "ConvNeXt block (dwconv %lldx%lld, LayerNorm2d over C, MLP 4C, layer scale): "
      "x %s\n",
      static_cast<long long>(config.kernel), static_cast<long long>(config.kernel),
      x.ShapeString().c_str());
  std::printf("loss = sum(out * probe) = %.9f\n", loss);

  std::vector<GradTensor> checked = {{"x", &x, &dx}};
  AppendParameters(params.Named(), grads.Named(), &checked);
  // Truncation bound: one depthwise weight moves z at every pixel of its
  // channel, so the O(h^4) term dominates above h = 2^-5.
  return RunGradCheck(checked, 0x1p-5, [&] {
    ConvNextActivations scratch;
    return Dot(ConvNextForward(config, params, x, &scratch), probe);
  });
}

}  // namespace
}  // namespace examples

int main(int argc, char** argv) {
  examples::ConvNextFault fault = examples::ConvNextFault::kNone;
  if (!examples::ParseFlags(argc, argv, &fault)) return 2;
  return examples::Run(fault);
}
