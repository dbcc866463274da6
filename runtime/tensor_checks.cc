#include "runtime/tensor_checks.h"

#include <array>
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

// The bytes a tensor touches, [lo, hi); empty (lo == hi) when it has no
// elements. Strides are non-negative (CheckTensor). No member initializers:
// arrays of them are filled as needed, not zeroed first.
struct ByteRange {
  uintptr_t lo, hi;
  bool Overlaps(const ByteRange& other) const {
    return lo < hi && other.lo < other.hi && lo < other.hi && other.lo < hi;
  }
};

ByteRange RangeOf(const halnorm_tensor* t) {
  if (t == nullptr || NumElements(*t) == 0) return {0, 0};
  int64_t last = 0;
  for (int d = 0; d < t->rank; d++) last += (t->shape[d] - 1) * t->strides[d];
  const auto lo = reinterpret_cast<uintptr_t>(t->data);
  return {lo, lo + static_cast<uintptr_t>((last + 1) * DtypeBytes(t->dtype))};
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
  if (t->device != HALNORM_CPU && t->device != HALNORM_CUDA) {
    return InvalidArgument(name, ": unknown device ", t->device);
  }
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
  // Each tensor's range once: at decode shapes this check is a visible share
  // of the call.
  constexpr size_t kMaxTensors = 8;
  if (outputs.size() > kMaxTensors || inputs.size() > kMaxTensors) {
    return absl::InternalError("CheckOutputsDisjoint: more than 8 tensors of a kind");
  }
  std::array<ByteRange, kMaxTensors> out_ranges, in_ranges;
  for (size_t i = 0; i < inputs.size(); i++) in_ranges[i] = RangeOf(inputs[i].second);
  for (size_t i = 0; i < outputs.size(); i++) {
    const auto& [name, out] = outputs[i];
    out_ranges[i] = RangeOf(out);
    if (out == nullptr) continue;
    for (int d = 0; d < out->rank; d++) {
      if (out->shape[d] > 1 && out->strides[d] == 0) {
        return InvalidArgument(name, ": dim ", d, " has stride 0, so outputs would overlap");
      }
    }
  }
  for (size_t i = 0; i < outputs.size(); i++) {
    for (size_t j = 0; j < inputs.size(); j++) {
      if (out_ranges[i].Overlaps(in_ranges[j])) {
        return InvalidArgument(outputs[i].first, ": overlaps ", inputs[j].first,
                               " (outputs must not alias)");
      }
    }
    for (size_t j = i + 1; j < outputs.size(); j++) {
      if (out_ranges[i].Overlaps(out_ranges[j])) {
        return InvalidArgument(outputs[i].first, ": overlaps ", outputs[j].first,
                               " (outputs must not alias)");
      }
    }
  }
  return absl::OkStatus();
}

const char* DeviceName(halnorm_device device) {
  return device == HALNORM_CUDA ? "HALNORM_CUDA" : "HALNORM_CPU";
}

absl::Status CheckSameDevice(const halnorm_tensor& t, const char* name, const halnorm_tensor& x) {
  if (t.device == x.device) return absl::OkStatus();
  return InvalidArgument(name, ": on ", DeviceName(t.device), " but x is on ",
                         DeviceName(x.device), " (a call's tensors share one device)");
}

halnorm_tensor DenseTensor(void* data, halnorm_dtype dtype, halnorm_device device,
                           const std::vector<int64_t>& shape) {
  halnorm_tensor t = {};
  t.data = data;
  t.dtype = dtype;
  t.device = device;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; d--) {
    t.shape[d] = shape[d];
    t.strides[d] = stride;
    stride *= shape[d];
  }
  return t;
}

}  // namespace halnorm::internal
