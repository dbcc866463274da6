// Whether a call writes its large outputs (y, residual_out, dx) with
// non-temporal stores: through the variant's streaming twin, built from the
// same kernel (tools/bazel/streaming_stores.py).
//
// Plain stores read each output line before writing it (write-allocate), so
// a forward call on DRAM-sized tensors moves 1.5x its logical bytes. Once a
// call's tensors are too large to stay cached anyway, streaming saves that.
#ifndef HALNORM_RUNTIME_STREAMING_STORES_H_
#define HALNORM_RUNTIME_STREAMING_STORES_H_

#include <cstdint>

#include "runtime/dispatch.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Bytes of a call's activation tensors (inputs and outputs of rows x hidden)
// from which it streams. LayerNorm f32 forward kernel alone, AMD EPYC 2-core
// VM (AVX2), GB/s plain -> streaming, 1 thread / 2 threads:
//   1024x1024   (8 MiB)   41.7 -> 36.9 / 69.0 -> 41.6
//   1536x1024  (12 MiB)   29.0 -> 30.6 / 67.7 -> 43.2
//   2048x1024  (16 MiB)   31.9 -> 32.6 / 35.8 -> 57.5
//   4096x2048  (64 MiB)   12.3 -> 15.5 / 23.4 -> 28.4
//   16384x4096 (512 MiB)  12.1 -> 16.6 / 22.6 -> 29.8
// Below it, the output is read again from cache by the next call or the
// caller.
inline constexpr int64_t kStreamingMinFootprint = int64_t{16} << 20;

// HALNORM_STREAMING_STORES=auto (the default: from kStreamingMinFootprint),
// always or never (read once). False when `chosen` has no streaming twin.
// HALNORM_VERBOSE=dispatch prints the decision.
bool UseStreamingStores(const KernelRequest& request, const Variant& chosen);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_STREAMING_STORES_H_
