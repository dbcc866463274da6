#include "runtime/cuda_dispatch.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

const std::vector<const Variant*>& CudaVariants() {
  static const auto* const variants = [] {
    auto* out = new std::vector<const Variant*>;
    for (const Variant& v : AllVariants()) {
      if (v.device == Device::kCuda) out->push_back(&v);
    }
    return out;
  }();
  return *variants;
}

// The block width for a row of `hidden` elements (see the header).
int ThreadsFor(int64_t hidden) {
  if (hidden <= 1024) return 32;
  if (hidden <= 4096) return 256;
  return 512;
}

}  // namespace

int RowVectorAlignment(int64_t hidden, int leading,
                       std::initializer_list<const halnorm_tensor*> rows) {
  auto made_of = [&](int64_t vector) {
    for (const halnorm_tensor* t : rows) {
      if (t == nullptr) continue;
      if (reinterpret_cast<uintptr_t>(t->data) % (vector * DtypeBytes(t->dtype)) != 0 ||
          hidden % vector != 0) {
        return false;
      }
      for (int d = 0; d < leading; d++) {
        if (t->strides[d] % vector != 0) return false;
      }
    }
    return true;
  };
  int vector = 8;
  while (vector > 1 && !made_of(vector)) vector /= 2;
  return vector;
}

absl::StatusOr<const Variant*> PickCudaVariant(const KernelRequest& request) {
  const Variant* widest = nullptr;
  const Variant* sized = nullptr;
  const Variant* any_layout = nullptr;
  for (const Variant* v : CudaVariants()) {
    if (v->op != request.op || v->direction != request.direction || v->dtype != request.dtype ||
        v->fused_residual != request.fused_residual) {
      continue;
    }
    const int threads = ConfigKnob(*v, "threads");
    const int vector = ConfigKnob(*v, "vector_width");
    if (vector <= 1) {
      any_layout = v;
    } else if (vector > request.row_vector_alignment) {
      continue;
    } else if (threads == ThreadsFor(request.hidden)) {
      sized = v;
    } else if (widest == nullptr || threads > ConfigKnob(*widest, "threads")) {
      widest = v;
    }
  }
  const Variant* chosen = sized ? sized : widest;
  if (chosen == nullptr) chosen = any_layout;
  if (chosen == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        OpName(request.op), " ", DirectionName(request.direction), " ", DtypeName(request.dtype),
        request.fused_residual ? " with a fused residual" : "",
        ": this build has no CUDA kernel for it (HALNORM_CUDA)"));
  }
  return chosen;
}

}  // namespace halnorm::internal
