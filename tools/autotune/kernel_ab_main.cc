// tools/autotune:kernel_ab: times compiled-in variants and JIT kernels side
// by side (kernel_ab.h), for A/B-testing a schedule change before a build.
//
//   bazel run //tools/autotune:kernel_ab -- --op=layer_norm --direction=bwd
//     --dtype=bf16 --threads=1 --shapes=4096x1024,512x2048
//     --kernels='variant:layer_norm_bwd_bf16__x86_avx512_c1;vector_width=16,accumulators=4,stats_rows=1'
// (one command line)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/halnorm_c.h"
#include "tools/autotune/kernel_ab.h"

ABSL_FLAG(std::string, op, "layer_norm", "layer_norm, rms_norm or layer_norm2d");
ABSL_FLAG(std::string, direction, "fwd", "fwd or bwd");
ABSL_FLAG(std::string, dtype, "f32", "f32, f16 or bf16");
ABSL_FLAG(int, threads, 1, "threads for every kernel, compiled-in and JIT");
ABSL_FLAG(std::string, shapes, "4096x1024", "comma-separated MxN (NxCxHxW for layer_norm2d)");
ABSL_FLAG(std::string, kernels, "",
          "';'-separated kernels: variant:<name>, or knob=value,... for a JIT compile "
          "(generator=<name> times another registered generator)");
ABSL_FLAG(int, rounds, 7, "side-by-side rounds per shape");

namespace halnorm::autotune {
namespace {

using internal::Direction;
using internal::Op;

// Names as the variant registry spells them.
template <typename Enum, size_t kCount>
absl::Status ParseNamed(const char* flag, const std::string& text, const Enum (&values)[kCount],
                        const char* (*name)(Enum), Enum* out) {
  std::string known;
  for (Enum v : values) {
    if (text == name(v)) {
      *out = v;
      return absl::OkStatus();
    }
    absl::StrAppend(&known, known.empty() ? "" : ", ", name(v));
  }
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", text, "' is not one of ", known));
}

absl::StatusOr<AbOptions> OptionsFromFlags() {
  AbOptions o;
  constexpr Op kOps[] = {Op::kLayerNorm, Op::kRmsNorm, Op::kLayerNorm2d};
  constexpr Direction kDirections[] = {Direction::kForward, Direction::kBackward};
  constexpr halnorm_dtype kDtypes[] = {HALNORM_F32, HALNORM_F16, HALNORM_BF16};
  for (absl::Status s :
       {ParseNamed("op", absl::GetFlag(FLAGS_op), kOps, internal::OpName, &o.op),
        ParseNamed("direction", absl::GetFlag(FLAGS_direction), kDirections,
                   internal::DirectionName, &o.direction),
        ParseNamed("dtype", absl::GetFlag(FLAGS_dtype), kDtypes, internal::DtypeName, &o.dtype)}) {
    if (!s.ok()) return s;
  }
  const size_t rank = o.op == Op::kLayerNorm2d ? 4 : 2;
  for (absl::string_view text : absl::StrSplit(absl::GetFlag(FLAGS_shapes), ',', absl::SkipEmpty())) {
    std::vector<int64_t> shape;
    for (absl::string_view e : absl::StrSplit(text, 'x')) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(e, &n) || n < 1) {
        shape.clear();
        break;
      }
      shape.push_back(n);
    }
    if (shape.size() != rank) {
      return absl::InvalidArgumentError(absl::StrCat("--shapes: '", text, "' is not ",
                                                     rank == 4 ? "NxCxHxW" : "MxN"));
    }
    o.shapes.push_back(shape);
  }
  for (absl::string_view text : absl::StrSplit(absl::GetFlag(FLAGS_kernels), ';', absl::SkipEmpty())) {
    absl::StatusOr<AbKernel> k = ParseAbKernel(text);
    if (!k.ok()) return k.status();
    o.kernels.push_back(*k);
  }
  o.rounds = absl::GetFlag(FLAGS_rounds);
  if (o.rounds < 1) return absl::InvalidArgumentError("--rounds: at least 1");
  return o;
}

}  // namespace
}  // namespace halnorm::autotune

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Times compiled-in variants and JIT kernels side by side.");
  absl::ParseCommandLine(argc, argv);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 1) {
    std::fprintf(stderr, "kernel_ab: --threads: at least 1\n");
    return 2;
  }
  // JIT kernels run on Halide's own pool, which reads HL_NUM_THREADS when it
  // starts (at the first JIT call); unset, it takes every core, so a JIT
  // kernel "at 1 thread" ran on 2 and looked twice as fast as its
  // compiled-in twin.
  setenv("HL_NUM_THREADS", std::to_string(threads).c_str(), 1);
  halnorm_set_num_threads(threads);
  absl::StatusOr<halnorm::autotune::AbOptions> options = halnorm::autotune::OptionsFromFlags();
  if (!options.ok()) {
    std::fprintf(stderr, "kernel_ab: %s\n", std::string(options.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<std::vector<halnorm::autotune::AbRow>> rows = RunKernelAb(*options);
  if (!rows.ok()) {
    std::fprintf(stderr, "kernel_ab: %s\n", std::string(rows.status().message()).c_str());
    return 1;
  }
  std::printf("%d thread(s), median of %d side-by-side rounds\n%s", threads, options->rounds,
              FormatAb(*options, *rows).c_str());
  return 0;
}
