// Small kernels of the runtime's own on CUDA (parameter conversions,
// per-channel expansions and sums): written as PTX text, a thread per
// element, loaded into each context on first use and kept there.
#ifndef HALNORM_RUNTIME_CUDA_PTX_H_
#define HALNORM_RUNTIME_CUDA_PTX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace halnorm::internal {

// The PTX header every module here starts with (sm_80's PTX, which newer
// GPUs' drivers compile for themselves).
constexpr char kPtxHeader[] = ".version 7.0\n.target sm_80\n.address_size 64\n";

// One .entry: its u64 parameters `params` are loaded into registers %<name>;
// %i is the thread's global index, and threads with %i >= %count return at
// once (so `count` must be among params). `body` then runs with the
// registers declared here: %s and %d (64-bit addresses), %j, %k, %t (64-bit
// scratch), %half (b16), %bits (b32), %value and %sum (f32), %done (pred),
// and ends at the label <name>_end.
std::string PtxEntry(const std::string& name, const std::vector<std::string>& params,
                     const std::string& body);

// Function `name` of the module `ptx` (text that lives as long as the
// process) in `context`, which must be current. The module is loaded once
// per context; `what` names it in errors.
absl::StatusOr<CUfunction> PtxFunction(const CudaDriver& driver, CUcontext context,
                                       const std::string& ptx, const char* name, const char* what);

// Runs `function` on `stream` with a thread for each of `count` elements
// (none when count is 0). params: pointers to its parameters' values.
absl::Status LaunchPerElement(const CudaDriver& driver, CUfunction function, CUstream stream,
                              uint64_t count, void** params, const char* what);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_PTX_H_
