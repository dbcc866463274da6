#include "runtime/streaming_stores.h"

#include <cstdio>

#include "runtime/cache_size.h"
#include "runtime/env_choice.h"
#include "runtime/tensor_checks.h"
#include "runtime/thread_limit.h"

namespace halnorm::internal {
namespace {

EnvChoice PolicyFromEnvironment() {
  static const EnvChoice policy = ReadEnvChoice("HALNORM_STREAMING_STORES");
  return policy;
}

// Bytes of the activation-sized tensors a call reads and writes (backward:
// dy, x and dx; a residual gradient, when given, is not counted).
int64_t Footprint(const KernelRequest& r) {
  const int64_t tensors = r.direction == Direction::kForward ? (r.fused_residual ? 4 : 2) : 3;
  return tensors * r.rows * r.hidden * DtypeBytes(r.dtype);
}

}  // namespace

int64_t StreamingMinFootprint() {
  const int64_t cache = LastLevelCacheBytes();
  return cache > 0 ? 2 * cache : int64_t{16} << 20;
}

int64_t StreamingMinFootprint(const KernelRequest& request) {
  const bool l1_filling_rows =
      request.op != Op::kLayerNorm2d && request.direction == Direction::kBackward &&
      request.dtype == HALNORM_F32 && request.hidden > 2048;
  return l1_filling_rows ? StreamingMinFootprint() / 4 : StreamingMinFootprint();
}

bool StreamsWithTwin(const KernelRequest& request) {
  switch (PolicyFromEnvironment()) {
    case EnvChoice::kAuto:
      return Footprint(request) >= StreamingMinFootprint(request);
    case EnvChoice::kAlways:
      return true;
    case EnvChoice::kNever:
      return false;
  }
  return false;
}

bool StoresBf16InSoftware(const Variant& variant) {
  return variant.dtype == HALNORM_BF16 && variant.isa == Isa::kAvx2;
}

bool UseStreamingStores(const KernelRequest& request, const Variant& chosen) {
  if (chosen.streaming_argv == nullptr) return false;
  const bool automatic = PolicyFromEnvironment() == EnvChoice::kAuto;
  const bool conversion_bound = StoresBf16InSoftware(chosen) && ThreadsPerLoop() < 2;
  const bool streaming = StreamsWithTwin(request) && !(automatic && conversion_bound);
  if (VerboseDispatch()) {
    const int64_t footprint = Footprint(request);
    std::fprintf(stderr,
                 "halnorm dispatch: %s stores (%lld KiB of tensors; streaming from %lld KiB%s)\n",
                 streaming ? "streaming" : "cached", static_cast<long long>(footprint >> 10),
                 static_cast<long long>(StreamingMinFootprint(request) >> 10),
                 !automatic         ? ", HALNORM_STREAMING_STORES set"
                 : conversion_bound ? ", but not bf16 converted in software on one thread"
                                    : "");
  }
  return streaming;
}

}  // namespace halnorm::internal
