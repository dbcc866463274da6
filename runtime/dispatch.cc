#include "runtime/dispatch.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/builtin_tuning.h"
#include "runtime/cuda_dispatch.h"
#include "runtime/dispatch_tuning.h"
#include "runtime/status.h"
#include "runtime/streaming_stores.h"
#include "runtime/tuning_buckets.h"
#include "runtime/variant_index.h"

namespace halnorm::internal {

bool VerboseDispatch() {
  static const bool verbose = [] {
    const char* v = std::getenv("HALNORM_VERBOSE");
    return v != nullptr && std::strstr(v, "dispatch") != nullptr;
  }();
  return verbose;
}

namespace {

bool Fits(const Variant& v, const KernelRequest& r) {
  return v.op == r.op && v.direction == r.direction && v.dtype == r.dtype &&
         v.fused_residual == r.fused_residual && v.native_params == r.native_params;
}

std::string Describe(const KernelRequest& r) {
  return absl::StrCat(OpName(r.op), " ", DirectionName(r.direction),
                      r.fused_residual ? " +residual " : r.native_params ? " +native params " : " ",
                      DtypeName(r.dtype),
                      " hidden=", r.hidden, " rows=", r.rows);
}

// Where a pick came from, in PickVariant's order of preference.
enum class Reason { kTuningFile, kBuiltInTable, kDefault };

// Prints the choice and why; the first time, also what tuning is in use
// (the only way a rejected HALNORM_TUNING_FILE shows up on stderr).
// entry_row_bucket: the row bucket whose table entry was taken
// (TuningTable::Nearest).
void PrintChoice(const KernelRequest& request, const Variant& chosen, const TuningKey& key,
                 int entry_row_bucket, Reason reason, const DispatchTuning& tuning) {
  static std::once_flag once;
  std::call_once(once, [&tuning] {
    std::fprintf(stderr, "halnorm dispatch: tuning: %s\n", tuning.source.c_str());
  });
  std::string buckets = DescribeBuckets(key.op, key.hidden_bucket, key.row_bucket);
  if (reason != Reason::kDefault && entry_row_bucket != key.row_bucket) {
    absl::StrAppend(&buckets, " (no entry; the nearest: ",
                    DescribeBuckets(key.op, key.hidden_bucket, entry_row_bucket), ")");
  }
  std::string why;
  switch (reason) {
    case Reason::kTuningFile:
      why = absl::StrCat("tuning file ", tuning.file_path, ": ", buckets);
      break;
    case Reason::kBuiltInTable:
      why = absl::StrCat("built-in table ", BuiltInTuningSource(chosen.target), ": ", buckets);
      break;
    case Reason::kDefault:
      why = absl::StrCat("default config: no table entry for ", buckets);
      break;
  }
  const char* cap = std::getenv("HALNORM_MAX_ISA");
  std::fprintf(stderr, "halnorm dispatch: %s -> %s (%s; cpu %s%s%s)\n", Describe(request).c_str(),
               chosen.name, why.c_str(), IsaName(HostIsa()), cap ? ", HALNORM_MAX_ISA=" : "",
               cap ? cap : "");
}

}  // namespace

absl::StatusOr<const Variant*> PickVariant(const KernelRequest& request) {
  if (request.device == HALNORM_CUDA) {
    absl::StatusOr<const Variant*> chosen = PickCudaVariant(request);
    if (chosen.ok() && VerboseDispatch()) {
      const std::string why =
          request.op == Op::kLayerNorm2d
              ? absl::StrCat(request.rows, " pixels")
              : absl::StrCat("rows of whole ", request.row_vector_alignment, "-element vectors");
      std::fprintf(stderr, "halnorm dispatch: %s on HALNORM_CUDA -> %s (%s)\n",
                   Describe(request).c_str(), (*chosen)->name, why.c_str());
    }
    return chosen;
  }
  const VariantIndex& index = VariantIndex::Get();
  const VariantKind kind{request.op, request.direction, request.dtype, request.fused_residual,
                         request.native_params};
  const bool known_dtype = request.dtype >= 0 && request.dtype < kDtypeCount;
  const int target = known_dtype ? index.DispatchTarget(kind) : -1;
  if (target < 0) {
    return absl::FailedPreconditionError(absl::StrCat("no compiled kernel for ", Describe(request),
                                                      " runs on this CPU (",
                                                      IsaName(MaxDispatchIsa()), ")"));
  }
  // Tables key on the plain variant: a forward entry covers the fused and
  // native-params ones (the same configs).
  const TuningKey key{request.op,
                      request.direction,
                      request.dtype,
                      target,
                      HiddenBucket(request.op, request.hidden),
                      RowBucket(request.rows)};
  const DispatchTuning& tuning = CurrentDispatchTuning();
  const Variant* chosen = nullptr;
  Reason reason = Reason::kTuningFile;
  TuningTable::Entry entry{-1, key.row_bucket};
  if (tuning.file_table != nullptr) {
    entry = tuning.file_table->Nearest(key);
    chosen = index.Find(kind, target, entry.config);
  }
  if (chosen == nullptr) {
    reason = Reason::kBuiltInTable;
    entry = BuiltInTuningTable().Nearest(key);
    chosen = index.Find(kind, target, entry.config);
  }
  if (chosen == nullptr) {
    reason = Reason::kDefault;
    chosen = index.Find(kind, target, 0);
  }
  if (VerboseDispatch()) PrintChoice(request, *chosen, key, entry.row_bucket, reason, tuning);
  return chosen;
}

bool NativeParamsFit(const KernelRequest& request) {
  return request.device == HALNORM_CPU && request.op != Op::kLayerNorm2d &&
         request.direction == Direction::kForward && !request.fused_residual &&
         (request.dtype == HALNORM_F16 || request.dtype == HALNORM_BF16);
}

bool NativeParamsPay(const KernelRequest& request) {
  return NativeParamsFit(request) && request.rows <= kNativeParamsMaxRows &&
         !StreamsWithTwin(request);
}

absl::Status CheckForcedVariant(const Variant& variant, const KernelRequest& request) {
  if (!Fits(variant, request)) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant ", variant.name, " does not compute ", Describe(request)));
  }
  if (request.device == HALNORM_CUDA && variant.device != Device::kCuda) {
    return absl::InvalidArgumentError(absl::StrCat("variant ", variant.name, " runs on ",
                                                   DeviceName(variant.device),
                                                   ", not on HALNORM_CUDA tensors"));
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
