// Which CUDA context and stream Halide's CUDA runtime uses: the caller's.
//
// Halide's default hooks create a context of their own and launch on its
// legacy default stream. Pointers the caller got from cudaMalloc (PyTorch's
// allocator included) live in the device's primary context and are not valid
// in another context, and work on another stream would race with the caller's
// own work. So we override the hooks with strong definitions: inside a halnorm
// call they return the context and cuda_stream that call runs on.
//
// Our kernels are compiled without Halide's user_context feature (the hooks
// get null), so the call's context and stream are kept per thread by
// ScopedCudaCall; Halide calls the hooks on the thread that runs the kernel.
#ifndef HALNORM_RUNTIME_CUDA_CALL_CONTEXT_H_
#define HALNORM_RUNTIME_CUDA_CALL_CONTEXT_H_

#include "absl/status/status.h"
#include "runtime/cuda_driver.h"

namespace halnorm::internal {

// For its lifetime, this thread's Halide CUDA calls use `context` and
// `stream` (null: the legacy default stream), and `context` is current
// (pushed, then popped, so the caller's current context is left as it was).
// Construct it around everything that may reach Halide's CUDA runtime for one
// library call: the kernel itself, copies, and freeing Halide's device state.
// Scopes nest; the inner one wins until it ends. Not movable: it must end on
// the thread and in the order it began.
// A ScopedCudaCall is in effect on this thread (a call on HALNORM_CUDA
// tensors set its context and stream up already).
bool InScopedCudaCall();

class ScopedCudaCall {
 public:
  ScopedCudaCall(const CudaDriver& driver, CUcontext context, void* stream);
  ~ScopedCudaCall();

  ScopedCudaCall(const ScopedCudaCall&) = delete;
  ScopedCudaCall& operator=(const ScopedCudaCall&) = delete;

  // Not OK when `context` could not be made current; don't run kernels then.
  const absl::Status& status() const { return status_; }

 private:
  const CudaDriver& driver_;
  CUcontext previous_context_;
  CUstream previous_stream_;
  bool pushed_ = false;
  absl::Status status_;
};

}  // namespace halnorm::internal

// Strong definitions of Halide 14's weak CUDA runtime hooks (signatures as in
// Halide's runtime; CUcontext/CUstream are these struct pointers there too).
// Halide calls them; tests may too. halide_cuda_get_symbol makes Halide use
// the driver LoadCudaDriver() loaded (libcuda.so.1) instead of dlopen-ing
// "libcuda.so", the development symlink that driver-only installs may lack.
extern "C" {
int halide_cuda_acquire_context(void* user_context, CUctx_st** ctx, bool create);
int halide_cuda_release_context(void* user_context);
int halide_cuda_get_stream(void* user_context, CUctx_st* ctx, CUstream_st** stream);
void* halide_cuda_get_symbol(void* user_context, const char* name);
}

#endif  // HALNORM_RUNTIME_CUDA_CALL_CONTEXT_H_
