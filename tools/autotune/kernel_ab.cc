#include "tools/autotune/kernel_ab.h"

#include <memory>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/norm_problem.h"
#include "runtime/tensor_checks.h"
#include "tools/autotune/jit_kernel.h"
#include "tools/autotune/measure.h"
#include "tools/autotune/schedule_search.h"
#include "tools/autotune/targets.h"

namespace halnorm::autotune {
namespace {

constexpr absl::string_view kVariantPrefix = "variant:";

std::string ShapeText(const std::vector<int64_t>& shape) { return absl::StrJoin(shape, "x"); }

// The kernel `k` stands for: the compiled-in variant, or a JIT compile
// (kept alive in `jit`).
absl::StatusOr<const internal::Variant*> Resolve(const AbKernel& k, const AbOptions& o,
                                                 const TargetInfo& host,
                                                 std::vector<std::unique_ptr<JitKernel>>& jit) {
  if (!k.variant.empty()) {
    const internal::Variant* v = internal::FindVariant(k.variant);
    if (v == nullptr) return absl::NotFoundError(absl::StrCat("no compiled-in variant ", k.variant));
    if (v->op != o.op || v->direction != o.direction || v->dtype != o.dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.variant, " is ", internal::OpName(v->op), " ",
                       internal::DirectionName(v->direction), " ", internal::DtypeName(v->dtype),
                       ", not the problem's ", internal::OpName(o.op), " ",
                       internal::DirectionName(o.direction), " ", internal::DtypeName(o.dtype)));
    }
    return v;
  }
  KernelSpec spec = SpecFor(host, o.op, o.direction, o.dtype, {});
  if (!k.generator.empty()) spec.generator = k.generator;
  for (const auto& [knob, value] : k.params) spec.params[knob] = value;
  absl::StatusOr<std::unique_ptr<JitKernel>> kernel = JitKernel::Compile(spec);
  if (!kernel.ok()) return kernel.status();
  jit.push_back(*std::move(kernel));
  return &jit.back()->variant();
}

}  // namespace

absl::StatusOr<AbKernel> ParseAbKernel(absl::string_view text) {
  AbKernel k;
  k.text = std::string(text);
  if (absl::StartsWith(text, kVariantPrefix)) {
    k.variant = std::string(text.substr(kVariantPrefix.size()));
    if (k.variant.empty()) return absl::InvalidArgumentError("--kernels: 'variant:' needs a name");
    return k;
  }
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--kernels: '", item, "' in '", text, "' is not knob=value"));
    }
    if (kv[0] == "generator") {
      k.generator = std::string(kv[1]);
    } else {
      k.params[std::string(kv[0])] = std::string(kv[1]);
    }
  }
  return k;
}

absl::StatusOr<std::vector<AbRow>> RunKernelAb(const AbOptions& o) {
  if (o.kernels.empty()) return absl::InvalidArgumentError("--kernels: none given");
  if (o.shapes.empty()) return absl::InvalidArgumentError("--shapes: none given");
  absl::StatusOr<TargetInfo> host = FindTarget("host");
  if (!host.ok()) return host.status();
  std::vector<std::unique_ptr<JitKernel>> jit;
  std::vector<const internal::Variant*> variants;
  for (const AbKernel& k : o.kernels) {
    absl::StatusOr<const internal::Variant*> v = Resolve(k, o, *host, jit);
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat(k.text, ": ", v.status().message()));
    variants.push_back(*v);
  }
  std::vector<AbRow> rows;
  for (const std::vector<int64_t>& shape : o.shapes) {
    std::mt19937 rng(1);
    bench::NormProblem problem(o.op, o.dtype, shape, rng);
    // The backward's mean and rstd.
    absl::Status forward = problem.Forward();
    if (!forward.ok()) return forward;
    std::vector<std::function<absl::Status()>> calls;
    for (const internal::Variant* v : variants) {
      calls.push_back([&problem, v] { return problem.Run(v->direction, v); });
    }
    SideBySideOptions timing;
    timing.rounds = o.rounds;
    timing.extra_rounds = 0;  // every kernel gets the same samples
    const SideBySideTimes times = TimeSideBySide(calls, timing);
    int64_t elements = 1;
    for (int64_t e : shape) elements *= e;
    const double accesses = o.direction == internal::Direction::kForward ? 2 : 3;
    AbRow row{shape, accesses * elements * internal::DtypeBytes(o.dtype), times.seconds};
    for (size_t k = 0; k < times.status.size(); k++) {
      if (!times.status[k].ok()) {
        return absl::InternalError(absl::StrCat(o.kernels[k].text, " on ", ShapeText(shape), ": ",
                                                times.status[k].message(), " ",
                                                TakeLastJitError()));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string FormatAb(const AbOptions& o, const std::vector<AbRow>& rows) {
  std::string out = absl::StrCat("kernels (", internal::OpName(o.op), " ",
                                 internal::DirectionName(o.direction), " ",
                                 internal::DtypeName(o.dtype), "):\n");
  for (size_t k = 0; k < o.kernels.size(); k++) {
    absl::StrAppend(&out, "  k", k, ": ", o.kernels[k].text, "\n");
  }
  absl::StrAppend(&out, "\n| shape |");
  for (size_t k = 0; k < o.kernels.size(); k++) absl::StrAppend(&out, " k", k, " us (GB/s, k0/k) |");
  absl::StrAppend(&out, "\n|---|");
  for (size_t k = 0; k < o.kernels.size(); k++) absl::StrAppend(&out, "---|");
  absl::StrAppend(&out, "\n");
  for (const AbRow& row : rows) {
    absl::StrAppend(&out, "| ", ShapeText(row.shape), " |");
    for (double s : row.seconds) {
      absl::StrAppendFormat(&out, " %.2f (%.1f, %.3f) |", s * 1e6, row.logical_bytes / s / 1e9,
                            row.seconds[0] / s);
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace halnorm::autotune
