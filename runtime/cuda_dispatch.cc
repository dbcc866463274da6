#include "runtime/cuda_dispatch.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

constexpr int64_t kBytesPerThread = 64;

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

// Rows from this many bytes take 1024 threads (below: at most 512).
constexpr int64_t kBlockOf1024RowBytes = 128 * 1024;

// log2 of the threads that suit a row of `row_bytes` (see the header).
int ThreadsLog2For(int64_t row_bytes) {
  if (row_bytes >= kBlockOf1024RowBytes) return 10;
  int log2 = 5;
  while (log2 < 9 && (int64_t{2} << log2) * kBytesPerThread <= row_bytes) log2++;
  return log2;
}

int Log2(int power_of_two) {
  int log2 = 0;
  while ((1 << (log2 + 1)) <= power_of_two) log2++;
  return log2;
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

namespace {

// LayerNorm2d's channel-norm kernels: blocks of pixels_per_task pixels. The
// largest block that still leaves every SM of a large GPU (an H100 has 132)
// a block; else the smallest. A rule of thumb: not measured on a GPU yet.
constexpr int64_t kChannelNormMinBlocks = 132;

const Variant* PickCudaChannelVariant(const KernelRequest& request) {
  const Variant* chosen = nullptr;
  bool chosen_fills = false;
  int64_t chosen_pixels = 0;
  for (const Variant* v : CudaVariants()) {
    if (v->op != request.op || v->direction != request.direction || v->dtype != request.dtype) {
      continue;
    }
    const int64_t pixels = ConfigKnob(*v, "pixels_per_task");
    const bool fills = request.rows / pixels >= kChannelNormMinBlocks;
    const bool better = chosen == nullptr || (fills && !chosen_fills) ||
                        (fills && pixels > chosen_pixels) ||
                        (!fills && !chosen_fills && pixels < chosen_pixels);
    if (better) {
      chosen = v;
      chosen_fills = fills;
      chosen_pixels = pixels;
    }
  }
  return chosen;
}

const Variant* PickCudaRowVariant(const KernelRequest& request) {
  const int wanted = ThreadsLog2For(request.hidden * DtypeBytes(request.dtype));
  const Variant* best = nullptr;
  int best_distance = 0;
  const Variant* any_layout = nullptr;
  for (const Variant* v : CudaVariants()) {
    if (v->op != request.op || v->direction != request.direction || v->dtype != request.dtype ||
        v->fused_residual != request.fused_residual) {
      continue;
    }
    const int vector = ConfigKnob(*v, "vector_width");
    if (vector <= 1) {
      any_layout = v;
      continue;
    }
    if (vector > request.row_vector_alignment) continue;
    // The nearest threads in powers of two; fewer on a tie.
    const int threads_log2 = Log2(ConfigKnob(*v, "threads"));
    const int distance = std::abs(threads_log2 - wanted) * 2 + (threads_log2 > wanted ? 1 : 0);
    if (best == nullptr || distance < best_distance) {
      best = v;
      best_distance = distance;
    }
  }
  return best ? best : any_layout;
}

}  // namespace

absl::StatusOr<const Variant*> PickCudaVariant(const KernelRequest& request) {
  const Variant* chosen = request.op == Op::kLayerNorm2d ? PickCudaChannelVariant(request)
                                                         : PickCudaRowVariant(request);
  if (chosen == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        OpName(request.op), " ", DirectionName(request.direction), " ", DtypeName(request.dtype),
        request.fused_residual ? " with a fused residual" : "",
        ": this build has no CUDA kernel for it (HALNORM_CUDA)"));
  }
  return chosen;
}

}  // namespace halnorm::internal
