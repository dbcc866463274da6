#include "runtime/dispatch.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/status.h"

namespace halnorm::internal {
namespace {

bool VerboseDispatch() {
  static const bool verbose = [] {
    const char* v = std::getenv("HALNORM_VERBOSE");
    return v != nullptr && std::strstr(v, "dispatch") != nullptr;
  }();
  return verbose;
}

bool Fits(const Variant& v, const KernelRequest& r) {
  return v.op == r.op && v.direction == r.direction && v.dtype == r.dtype &&
         v.fused_residual == r.fused_residual;
}

std::string Describe(const KernelRequest& r) {
  return absl::StrCat(OpName(r.op), " ", DirectionName(r.direction),
                      r.fused_residual ? " +residual " : " ", DtypeName(r.dtype),
                      " hidden=", r.hidden, " rows=", r.rows);
}

}  // namespace

absl::StatusOr<const Variant*> PickVariant(const KernelRequest& request) {
  const Isa allowed = MaxDispatchIsa();
  const Variant* best = nullptr;
  for (const Variant& v : AllVariants()) {
    if (!Fits(v, request) || v.isa > allowed) continue;
    if (best == nullptr || v.isa > best->isa) best = &v;
  }
  if (best == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("no compiled kernel for ", Describe(request),
                                                      " runs on this CPU (", IsaName(allowed),
                                                      ")"));
  }
  if (VerboseDispatch()) {
    const char* cap = std::getenv("HALNORM_MAX_ISA");
    std::fprintf(stderr,
                 "halnorm dispatch: %s -> %s (default order: widest ISA allowed; cpu %s%s%s)\n",
                 Describe(request).c_str(), best->name, IsaName(HostIsa()),
                 cap ? ", HALNORM_MAX_ISA=" : "", cap ? cap : "");
  }
  return best;
}

absl::Status CheckForcedVariant(const Variant& variant, const KernelRequest& request) {
  if (!Fits(variant, request)) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant ", variant.name, " does not compute ", Describe(request)));
  }
  if (!HostSupports(variant.isa)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "variant ", variant.name, " needs ", IsaName(variant.isa), ", which this CPU lacks"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Variant*> ChooseVariant(const KernelRequest& request, const Variant* forced) {
  if (forced == nullptr) return PickVariant(request);
  HALNORM_RETURN_IF_ERROR(CheckForcedVariant(*forced, request));
  return forced;
}

}  // namespace halnorm::internal
