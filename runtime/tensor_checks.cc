#include "runtime/tensor_checks.h"

#include <limits>

#include "absl/strings/str_join.h"
#include "runtime/status.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

// Kernels index with 32-bit offsets (Halide without large_buffers).
constexpr int64_t kMaxSpanBytes = std::numeric_limits<int32_t>::max();

std::string ShapeString(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::Span<const int64_t> Shape(const halnorm_tensor& t) {
  return absl::MakeConstSpan(t.shape, t.rank);
}

// Bytes from the first to one past the last element; 0 when empty.
int64_t SpanBytes(const halnorm_tensor& t) {
  if (NumElements(t) == 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < t.rank; d++) last += (t.shape[d] - 1) * t.strides[d];
  return (last + 1) * DtypeBytes(t.dtype);
}

bool Overlaps(const halnorm_tensor& a, const halnorm_tensor& b) {
  const int64_t a_bytes = SpanBytes(a), b_bytes = SpanBytes(b);
  if (a_bytes == 0 || b_bytes == 0) return false;
  auto a_lo = reinterpret_cast<uintptr_t>(a.data), b_lo = reinterpret_cast<uintptr_t>(b.data);
  return a_lo < b_lo + b_bytes && b_lo < a_lo + a_bytes;
}

}  // namespace

int64_t DtypeBytes(halnorm_dtype dtype) { return dtype == HALNORM_F32 ? 4 : 2; }

int64_t NumElements(const halnorm_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.rank; d++) n *= t.shape[d];
  return n;
}

absl::Status CheckTensor(const halnorm_tensor* t, const char* name) {
  if (t == nullptr) return InvalidArgument(name, ": tensor is null");
  if (t->device == HALNORM_CUDA) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": device HALNORM_CUDA is not available in this build (CPU only)"));
  }
  if (t->device != HALNORM_CPU) return InvalidArgument(name, ": unknown device ", t->device);
  if (t->dtype != HALNORM_F32 && t->dtype != HALNORM_F16 && t->dtype != HALNORM_BF16) {
    return InvalidArgument(name, ": unknown dtype ", t->dtype);
  }
  if (t->rank < 1 || t->rank > 4)
    return InvalidArgument(name, ": rank must be 1..4, got ", t->rank);
  // Bound the span with overflow checks: extents and strides come from the
  // caller and their products can exceed int64.
  int64_t last = 0, elements = 1;
  for (int d = 0; d < t->rank; d++) {
    if (t->shape[d] < 0) {
      return InvalidArgument(name, ": shape ", ShapeString(Shape(*t)), " has a negative dim");
    }
    if (t->strides[d] < 0) {
      return InvalidArgument(name, ": stride ", t->strides[d], " of dim ", d,
                             " is negative (not supported)");
    }
    int64_t reach;
    if (__builtin_mul_overflow(t->shape[d] > 0 ? t->shape[d] - 1 : 0, t->strides[d], &reach) ||
        __builtin_add_overflow(last, reach, &last) ||
        __builtin_mul_overflow(elements, t->shape[d], &elements)) {
      return InvalidArgument(name, ": shape ", ShapeString(Shape(*t)),
                             " with its strides overflows 64-bit offsets");
    }
  }
  if (elements == 0) return absl::OkStatus();
  if (t->data == nullptr) return InvalidArgument(name, ": data is null");
  if (last >= kMaxSpanBytes / DtypeBytes(t->dtype)) {
    return InvalidArgument(name,
                           ": spans more than 2^31 bytes; kernels address at most 2 GiB "
                           "per tensor");
  }
  return absl::OkStatus();
}

absl::Status CheckShape(const halnorm_tensor& t, const char* name,
                        absl::Span<const int64_t> shape) {
  if (Shape(t) == shape) return absl::OkStatus();
  return InvalidArgument(name, ": shape ", ShapeString(Shape(t)), " must be ", ShapeString(shape));
}

absl::Status CheckDtype(const halnorm_tensor& t, const char* name, halnorm_dtype want,
                        const char* reason) {
  if (t.dtype == want) return absl::OkStatus();
  return InvalidArgument(name, ": dtype ", DtypeName(t.dtype), " must be ", DtypeName(want), " (",
                         reason, ")");
}

absl::Status CheckContiguousFrom(const halnorm_tensor& t, const char* name, int first) {
  int64_t expected = 1;
  for (int d = t.rank - 1; d >= first; d--) {
    if (t.shape[d] != 1 && t.strides[d] != expected) {
      return InvalidArgument(name, ": the normalized dims must be contiguous; dim ", d,
                             " has stride ", t.strides[d], ", expected ", expected);
    }
    expected *= t.shape[d];
  }
  return absl::OkStatus();
}

absl::Status CheckOutputsDisjoint(absl::Span<const NamedTensor> outputs,
                                  absl::Span<const NamedTensor> inputs) {
  for (size_t i = 0; i < outputs.size(); i++) {
    const auto& [name, out] = outputs[i];
    if (out == nullptr) continue;
    for (int d = 0; d < out->rank; d++) {
      if (out->shape[d] > 1 && out->strides[d] == 0) {
        return InvalidArgument(name, ": dim ", d, " has stride 0, so outputs would overlap");
      }
    }
    auto check_against = [&](const NamedTensor& other) -> absl::Status {
      if (other.second != nullptr && Overlaps(*out, *other.second)) {
        return InvalidArgument(name, ": overlaps ", other.first, " (outputs must not alias)");
      }
      return absl::OkStatus();
    };
    for (const NamedTensor& in : inputs) {
      if (absl::Status s = check_against(in); !s.ok()) return s;
    }
    for (size_t j = i + 1; j < outputs.size(); j++) {
      if (absl::Status s = check_against(outputs[j]); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace halnorm::internal
