#include "runtime/cuda_tensors.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/cuda_channel_planes.h"
#include "runtime/cuda_param_convert.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

// Defined by Halide's runtime where it has the CUDA module (the x86-64
// build's); weak, so builds without it link (they have no CUDA variants and
// never call it).
extern "C" const halide_device_interface_t* halide_cuda_device_interface() __attribute__((weak));

namespace halnorm::internal {

void MoveToCudaDevice(halide_buffer_t* buffer) {
  buffer->device = reinterpret_cast<uintptr_t>(buffer->host);
  buffer->device_interface = halide_cuda_device_interface();
  buffer->host = nullptr;
}

absl::StatusOr<std::unique_ptr<CudaCall>> CudaCall::Begin(const halnorm_tensor& x, void* stream) {
  absl::StatusOr<const CudaDriver*> driver = LoadCudaDriver();
  if (!driver.ok()) return driver.status();
  absl::StatusOr<CUcontext> context = ContextForPointer(**driver, x.data, "x");
  if (!context.ok()) return context.status();
  std::unique_ptr<CudaCall> call(new CudaCall(**driver, *context, stream));
  HALNORM_RETURN_IF_ERROR(call->scope_.status());
  return call;
}

CudaCall::CudaCall(const CudaDriver& driver, CUcontext context, void* stream)
    : driver_(driver), context_(context), stream_(stream), scope_(driver, context, stream) {}

CudaCall::~CudaCall() {
  for (CUdeviceptr pointer : scratch_) {
    driver_.cuMemFreeAsync(pointer, static_cast<CUstream>(stream_));
  }
}

absl::StatusOr<float*> CudaCall::Scratch(int64_t count) {
  CUdeviceptr pointer = 0;
  HALNORM_RETURN_IF_ERROR(CudaCheck(
      driver_,
      driver_.cuMemAllocAsync(&pointer, static_cast<size_t>(count) * sizeof(float),
                              static_cast<CUstream>(stream_)),
      "cuMemAllocAsync (call scratch)"));
  scratch_.push_back(pointer);
  return reinterpret_cast<float*>(static_cast<uintptr_t>(pointer));
}

absl::StatusOr<const void*> ParamPlaceholder(CudaCall* cuda, const halnorm_tensor& x, int64_t count,
                                             bool any_absent) {
  if (cuda == nullptr || !any_absent) return static_cast<const void*>(x.data);
  // x's memory will do where it is aligned for the kernels' vector loads
  // and spans `count` f32 values: most calls, which then allocate nothing
  // (an allocation per call cost RMSNorm's forward, which has no bias, 3 us).
  constexpr uintptr_t kVectorBytes = 16;
  int64_t span = 1;
  for (int d = 0; d < x.rank; d++) span += (x.shape[d] - 1) * x.strides[d];
  if (reinterpret_cast<uintptr_t>(x.data) % kVectorBytes == 0 && NumElements(x) > 0 &&
      span * DtypeBytes(x.dtype) >= count * 4) {
    return static_cast<const void*>(x.data);
  }
  absl::StatusOr<float*> scratch = cuda->Scratch(std::max<int64_t>(count, 1));
  if (!scratch.ok()) return scratch.status();
  return static_cast<const void*>(*scratch);
}

absl::Status CudaCall::Zero(void* data, int64_t bytes) {
  return CudaCheck(driver_,
                   driver_.cuMemsetD8Async(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(data)),
                                           0, static_cast<size_t>(bytes),
                                           static_cast<CUstream>(stream_)),
                   "cuMemsetD8Async");
}

absl::StatusOr<const halnorm_tensor*> CudaCall::AsF32(const halnorm_tensor* t,
                                                      halnorm_tensor* scratch) {
  if (t == nullptr || t->dtype == HALNORM_F32) return t;
  const int64_t count = NumElements(*t);
  absl::StatusOr<float*> values = Scratch(count);
  if (!values.ok()) return values.status();
  HALNORM_RETURN_IF_ERROR(ConvertParamOnCuda(driver_, context_, static_cast<CUstream>(stream_),
                                             t->dtype, ParamConversion::kToF32, t->data, *values,
                                             count));
  *scratch = DenseTensor(*values, HALNORM_F32, HALNORM_CUDA,
                         std::vector<int64_t>(t->shape, t->shape + t->rank));
  return scratch;
}

absl::Status CudaCall::ToF32(ParamsF32& params) {
  for (auto [param, scratch] : {std::pair{&params.weight, &params.weight_scratch},
                                {&params.bias, &params.bias_scratch}}) {
    absl::StatusOr<const halnorm_tensor*> f32 = AsF32(*param, scratch);
    if (!f32.ok()) return f32.status();
    *param = *f32;
  }
  return absl::OkStatus();
}

absl::StatusOr<float*> CudaCall::F32Output(const halnorm_tensor& out) {
  if (out.dtype == HALNORM_F32) return static_cast<float*>(out.data);
  return Scratch(NumElements(out));
}

absl::Status CudaCall::FinishParam(const float* values, const halnorm_tensor& out) {
  if (out.dtype == HALNORM_F32) return absl::OkStatus();
  return ConvertParamOnCuda(driver_, context_, static_cast<CUstream>(stream_), out.dtype,
                            ParamConversion::kFromF32, values, out.data, NumElements(out));
}

absl::StatusOr<CudaParamSums> CudaParamSums::Make(CudaCall& cuda, const halnorm_tensor* out,
                                                  int64_t count, int64_t blocks) {
  CudaParamSums sums(cuda, out, count, blocks);
  const bool in_place = out != nullptr && blocks == 1;
  absl::StatusOr<float*> place = in_place ? cuda.F32Output(*out) : cuda.Scratch(count * blocks);
  if (!place.ok()) return place.status();
  sums.blocks_ = *place;
  if (out == nullptr || in_place) return sums;
  absl::StatusOr<float*> total = cuda.F32Output(*out);
  if (!total.ok()) return total.status();
  sums.total_ = *total;
  return sums;
}

absl::Status CudaParamSums::Finish() {
  if (out_ == nullptr) return absl::OkStatus();
  const float* sums = blocks_;
  if (block_count_ > 1) {
    HALNORM_RETURN_IF_ERROR(SumColumnsOnCuda(cuda_->driver(), cuda_->context(),
                                             static_cast<CUstream>(cuda_->stream()), blocks_,
                                             total_, count_, block_count_, 1, count_));
    sums = total_;
  }
  return cuda_->FinishParam(sums, *out_);
}

}  // namespace halnorm::internal
