// What a call on HALNORM_CUDA tensors needs besides its kernel: the kernel
// buffers pointing at device memory, the caller's context and stream made
// current for the call, and stream-ordered device scratch.
#ifndef HALNORM_RUNTIME_CUDA_TENSORS_H_
#define HALNORM_RUNTIME_CUDA_TENSORS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "HalideRuntime.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_call_context.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

// The most blocks a CUDA launch has along grid y or z (x: 2^31 - 1). The
// GPU kernels put the row-norm kernels' b lines, and LayerNorm2d's samples
// (and the backward's channels), there: larger calls run in pieces.
constexpr int64_t kCudaMaxGridYZ = 65535;

// Turns a buffer whose `host` holds a CUDA device pointer (as RowBatch and
// KernelParam build them from the caller's tensors) into a device buffer: the
// kernel uses that memory in place, nothing is copied.
void MoveToCudaDevice(halide_buffer_t* buffer);

// A call's weight and bias (either may be null), as CudaCall::ToF32 leaves
// them: f32, converted copies held in the scratch tensors where made.
struct ParamsF32 {
  const halnorm_tensor* weight;
  const halnorm_tensor* bias;
  halnorm_tensor weight_scratch{}, bias_scratch{};
};

// The call's context (the one owning x's memory) and stream, current until
// the end of the call, and its scratch, freed in stream order at the end
// (cuMemFreeAsync: no synchronization with the caller's stream).
class CudaCall {
 public:
  // Errors: no CUDA driver or GPU; x's data is not device memory.
  static absl::StatusOr<std::unique_ptr<CudaCall>> Begin(const halnorm_tensor& x, void* stream);
  ~CudaCall();

  const CudaDriver& driver() const { return driver_; }
  CUcontext context() const { return context_; }
  void* stream() const { return stream_; }

  // `count` floats of device memory, uninitialized, valid until the call ends.
  absl::StatusOr<float*> Scratch(int64_t count);

  // Zeroes `bytes` of device memory at `data` (in stream order).
  absl::Status Zero(void* data, int64_t bytes);

  // The per-feature parameter `t` (contiguous) as the f32 values the
  // kernels read: itself when f32, else a converted copy in scratch (in
  // stream order). `t` null: null.
  absl::StatusOr<const halnorm_tensor*> AsF32(const halnorm_tensor* t, halnorm_tensor* scratch);
  // Both of `params` through AsF32.
  absl::Status ToF32(ParamsF32& params);

  // Where the kernel's f32 dweight/dbias for `out` go: out's own memory
  // when f32, else scratch, which FinishParam then stores into `out`.
  absl::StatusOr<float*> F32Output(const halnorm_tensor& out);
  absl::Status FinishParam(const float* values, const halnorm_tensor& out);

 private:
  CudaCall(const CudaDriver& driver, CUcontext context, void* stream);

  const CudaDriver& driver_;
  CUcontext context_;
  void* stream_;
  ScopedCudaCall scope_;
  std::vector<CUdeviceptr> scratch_;
};

// The memory a KernelParam's placeholder points at for a call on `x`: x's
// own (CPU kernels never read it). On CUDA (`cuda` non-null) with a
// parameter absent (`any_absent`), GPU kernels load both sides of
// has_weight's select, so it must hold `count` aligned f32 values: x's
// memory where it does (a 16-bit view at an odd element faulted), else call
// scratch. Once per call: the call's absent params share it.
absl::StatusOr<const void*> ParamPlaceholder(CudaCall* cuda, const halnorm_tensor& x, int64_t count,
                                             bool any_absent);

// A GPU backward's dweight (or dbias): `blocks` blocks of `count` f32 sums,
// one per kernel call and row line, added in SumColumnsOnCuda's fixed
// order. One block goes straight into out when it is f32 (else into
// scratch, converted at Finish); several go to scratch and are added into
// out at Finish. out null: scratch that the kernels write and nothing reads.
class CudaParamSums {
 public:
  // Allocates before the call writes any output, so that failing here
  // leaves nothing written.
  static absl::StatusOr<CudaParamSums> Make(CudaCall& cuda, const halnorm_tensor* out,
                                            int64_t count, int64_t blocks);

  float* blocks() const { return blocks_; }
  // out = the blocks' sum, in out's dtype (in stream order).
  absl::Status Finish();

 private:
  CudaParamSums(CudaCall& cuda, const halnorm_tensor* out, int64_t count, int64_t blocks)
      : cuda_(&cuda), out_(out), count_(count), block_count_(blocks) {}

  CudaCall* cuda_;
  const halnorm_tensor* out_;
  int64_t count_, block_count_;
  float* blocks_ = nullptr;
  float* total_ = nullptr;  // several blocks: where they are added
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CUDA_TENSORS_H_
