#include "runtime/cuda_call_context.h"

#include <dlfcn.h>

#include "HalideRuntime.h"

namespace halnorm::internal {
namespace {

// The context and stream of the halnorm call running on this thread; null
// context: none is running.
thread_local CUcontext call_context = nullptr;
thread_local CUstream call_stream = nullptr;

}  // namespace

bool InScopedCudaCall() { return call_context != nullptr; }

ScopedCudaCall::ScopedCudaCall(const CudaDriver& driver, CUcontext context, void* stream)
    : driver_(driver), previous_context_(call_context), previous_stream_(call_stream) {
  call_context = context;
  call_stream = static_cast<CUstream>(stream);
  if (context == nullptr) {
    status_ = absl::InvalidArgumentError("ScopedCudaCall: no CUDA context");
    return;
  }
  // Halide pushes the context around its own calls; this also covers the
  // runtime's own driver calls in between (copies, allocations, events).
  status_ = CudaCheck(driver_, driver_.cuCtxPushCurrent_v2(context), "cuCtxPushCurrent");
  pushed_ = status_.ok();
}

ScopedCudaCall::~ScopedCudaCall() {
  if (pushed_) {
    CUcontext popped = nullptr;
    driver_.cuCtxPopCurrent_v2(&popped);  // nothing to report it to in a destructor
  }
  call_context = previous_context_;
  call_stream = previous_stream_;
}

}  // namespace halnorm::internal

// Not in a namespace (anonymous or otherwise): these must be the global C
// symbols Halide's runtime references, so the linker picks them over its weak
// defaults. That happens when the static library is linked (alwayslink), so
// libhalnorm.so's version script may keep them local.
extern "C" {

int halide_cuda_acquire_context(void* /*user_context*/, CUctx_st** ctx, bool create) {
  using halnorm::internal::call_context;
  if (call_context != nullptr) {
    *ctx = call_context;
    return halide_error_code_success;
  }
  // No halnorm call on this thread: Halide is tidying up (releasing device
  // state, at exit too). Use the caller's current context, never a new one.
  *ctx = nullptr;
  absl::StatusOr<const halnorm::internal::CudaDriver*> driver = halnorm::internal::LoadCudaDriver();
  if (driver.ok() && (*driver)->cuCtxGetCurrent(ctx) == 0 && *ctx != nullptr) {
    return halide_error_code_success;
  }
  *ctx = nullptr;
  // create == false asks "is there one?": none is a valid answer (Halide then
  // skips the cleanup). create == true needs a context: fail, as Halide
  // requires a non-null context with success.
  return create ? halide_error_code_generic_error : halide_error_code_success;
}

int halide_cuda_release_context(void* /*user_context*/) { return halide_error_code_success; }

int halide_cuda_get_stream(void* /*user_context*/, CUctx_st* /*ctx*/, CUstream_st** stream) {
  *stream = halnorm::internal::call_stream;  // null outside a call: the legacy default stream
  return halide_error_code_success;
}

void* halide_cuda_get_symbol(void* /*user_context*/, const char* name) {
  absl::StatusOr<const halnorm::internal::CudaDriver*> driver = halnorm::internal::LoadCudaDriver();
  return driver.ok() ? dlsym((*driver)->library, name) : nullptr;
}

}  // extern "C"
