// One training step of a pre-norm transformer block whose norms are halnorm
// calls, with its hand-written backward pass checked against central finite
// differences of the loss.
//
//   bazel run //examples/transformer_block -- [--arch=gpt2|llama]
//
// Exit status: 0 gradients match, 1 they do not, 2 usage or halnorm error.
// --fault=norm_dbias|residual_grad|skip_grad plants a backward bug (the
// tests use it to show the check catches each one).
#include <cstdio>
#include <string>

#include "examples/common/grad_check.h"
#include "examples/common/tensor.h"
#include "examples/transformer_block/transformer_block.h"

namespace examples {
namespace {

struct Flags {
  Arch arch = Arch::kGpt2;
  Fault fault = Fault::kNone;
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--arch=gpt2") {
      flags->arch = Arch::kGpt2;
    } else if (arg == "--arch=llama") {
      flags->arch = Arch::kLlama;
    } else if (arg == "--fault=norm_dbias") {
      flags->fault = Fault::kNormBiasGrad;
    } else if (arg == "--fault=residual_grad") {
      flags->fault = Fault::kResidualGrad;
    } else if (arg == "--fault=skip_grad") {
      flags->fault = Fault::kSkipGrad;
    } else {
      std::fprintf(stderr,
                   "unknown argument %s\nusage: %s [--arch=gpt2|llama] "
                   "[--fault=norm_dbias|residual_grad|skip_grad]\n",
                   argv[i], argv[0]);
      return false;
    }
  }
  if (flags->arch == Arch::kLlama && flags->fault == Fault::kNormBiasGrad) {
    std::fprintf(stderr, "--fault=norm_dbias: RMSNorm has no bias\n");
    return false;
  }
  return true;
}

int Run(const Flags& flags) {
  const BlockConfig config = SmallConfig(flags.arch);
  const AttentionShape& s = config.attention;
  Rng rng(2024);
  BlockParams params = InitParams(config, &rng);
  Tensor x = RandomTensor({s.batch, s.seq, config.channels()}, 0.0, 1.0, &rng);
  // loss = sum(out * probe): a fixed random probe makes dL/dout = probe, so
  // every output element carries a distinct gradient.
  const Tensor probe = RandomTensor(x.shape, 0.0, 1.0, &rng);

  BlockActivations saved;
  const double loss = Dot(BlockForward(config, params, x, &saved), probe);
  Tensor dx;
  BlockParams grads = ZeroGradients(params);
  BlockBackward(config, params, saved, probe, flags.fault, &dx, &grads);

  const bool gpt2 = flags.arch == Arch::kGpt2;
  std::printf("transformer block, %s: B=%lld T=%lld C=%lld heads=%lld mlp=%lld\n",
              gpt2 ? "GPT-2 (LayerNorm, GELU MLP)" : "Llama (RMSNorm, SwiGLU MLP)",
              static_cast<long long>(s.batch), static_cast<long long>(s.seq),
              static_cast<long long>(config.channels()), static_cast<long long>(s.heads),
              static_cast<long long>(config.mlp_hidden));
  std::printf("loss = sum(out * probe) = %.9f\n", loss);

  std::vector<GradTensor> checked = {{"x", &x, &dx}};
  AppendParameters(params.Named(), grads.Named(), &checked);
  // Noise bound: the f32 norm outputs feed attention and the MLP, so the
  // loss carries more rounding noise than truncation error at h = 2^-5.
  return RunGradCheck(checked, 0x1p-4, [&] {
    BlockActivations scratch;
    return Dot(BlockForward(config, params, x, &scratch), probe);
  });
}

}  // namespace
}  // namespace examples

int main(int argc, char** argv) {
  examples::Flags flags;
  if (!examples::ParseFlags(argc, argv, &flags)) return 2;
  return examples::Run(flags);
}
