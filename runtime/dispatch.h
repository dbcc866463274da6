// Chooses which compiled variant runs a call.
#ifndef HALNORM_RUNTIME_DISPATCH_H_
#define HALNORM_RUNTIME_DISPATCH_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// What a call needs; the shape picks among configs once a tuning table exists.
struct KernelRequest {
  Op op;
  Direction direction;
  halnorm_dtype dtype;
  bool fused_residual;
  int64_t hidden;
  int64_t rows;
};

// Filters the registry by op, direction, dtype and the ISA the CPU allows
// (capped by HALNORM_MAX_ISA), then takes the ordered default: the widest
// ISA, then the first config. HALNORM_VERBOSE=dispatch prints the choice and
// why to stderr.
absl::StatusOr<const Variant*> PickVariant(const KernelRequest& request);

// A variant the caller forced (tests, benchmarks) fits the request and runs
// on this CPU.
absl::Status CheckForcedVariant(const Variant& variant, const KernelRequest& request);

// `forced` when given (after CheckForcedVariant), else PickVariant.
absl::StatusOr<const Variant*> ChooseVariant(const KernelRequest& request, const Variant* forced);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_DISPATCH_H_
