#include "runtime/kernel_param.h"

#include "runtime/converted_params.h"
#include "runtime/row_batch.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

namespace {

// In place: a native-params kernel's tensor, or contiguous f32 with no offset.
bool UsableInPlace(const halnorm_tensor* t, float offset, halnorm_dtype kernel_dtype) {
  return t != nullptr && t->dtype == kernel_dtype && t->strides[t->rank - 1] == 1 &&
         offset == 0.f;
}

// The f32 values the kernel reads: this thread's kept copy
// (converted_params.h), or, for a source too large to keep, this call's.
const float* F32Values(const halnorm_tensor& t, int64_t count, float offset,
                       std::unique_ptr<float[]>& owned) {
  if (count * DtypeBytes(t.dtype) <= kMaxKeptParamBytes) return KeptF32Param(t, count, offset);
  // Not zero-filled first: at decode shapes that memset is a visible cost.
  owned.reset(new float[count]);
  ToF32WithOffset(t, count, offset, owned.get());
  return owned.get();
}

}  // namespace

KernelParam::KernelParam(const halnorm_tensor* t, int64_t count, const void* placeholder,
                         float offset, halnorm_dtype kernel_dtype)
    : present_(t != nullptr),
      converted_(present_ && !UsableInPlace(t, offset, kernel_dtype)),
      data_(!present_    ? placeholder
            : converted_ ? static_cast<const void*>(F32Values(*t, count, offset, owned_))
                         : t->data),
      dtype_(converted_ ? HALNORM_F32 : kernel_dtype),
      buffer_(data_, HalideType(dtype_), {{count, 1}}) {}

halnorm_tensor KernelParam::OverRowsOf(const halnorm_tensor& x, int leading) const {
  halnorm_tensor rows = x;
  rows.data = const_cast<void*>(data_);
  rows.dtype = dtype_;
  int64_t stride = 1;
  for (int d = x.rank - 1; d >= 0; d--) {
    rows.strides[d] = d < leading ? 0 : stride;
    stride *= x.shape[d];
  }
  return rows;
}

}  // namespace halnorm::internal
