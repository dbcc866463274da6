#include "runtime/tensor_checks.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/status.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

thread_local int64_t kernel_span_limit = kKernelMaxSpanBytes;
thread_local PieceRecordForTesting* piece_record = nullptr;

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

// Whether two elements of `t` may share memory: taking the dims by stride,
// each must step past all that the smaller-stride dims reach. Sufficient, as
// PyTorch's check is: an exotic interleaving that happens not to overlap is
// refused too. (Fuzzing found outputs with overlapping rows accepted.)
bool MayOverlapItself(const halnorm_tensor& t) {
  std::array<std::pair<int64_t, int64_t>, 4> dims;  // (stride, extent)
  int count = 0;
  // Inserted in stride order (at most 4; std::sort trips GCC 12's
  // -Warray-bounds on so small an array).
  for (int d = 0; d < t.rank; d++) {
    if (t.shape[d] <= 1) continue;
    int i = count++;
    for (; i > 0 && dims[i - 1] > std::make_pair(t.strides[d], t.shape[d]); i--) {
      dims[i] = dims[i - 1];
    }
    dims[i] = {t.strides[d], t.shape[d]};
  }
  int64_t reach = 0;  // the largest offset the dims so far reach (bounded by CheckTensor)
  for (int i = 0; i < count; i++) {
    if (dims[i].first <= reach) return true;
    reach += (dims[i].second - 1) * dims[i].first;
  }
  return false;
}

}  // namespace

int64_t KernelSpanLimit() { return kernel_span_limit; }

ScopedKernelSpanLimitForTesting::ScopedKernelSpanLimitForTesting(int64_t max_span_bytes)
    : previous_limit_(kernel_span_limit), previous_record_(piece_record) {
  kernel_span_limit = max_span_bytes;
  piece_record = &record_;
}

ScopedKernelSpanLimitForTesting::~ScopedKernelSpanLimitForTesting() {
  kernel_span_limit = previous_limit_;
  piece_record = previous_record_;
}

void RecordPiecesForTesting(bool split, bool chunks_shrunk) {
  if (piece_record == nullptr) return;
  piece_record->calls++;
  piece_record->split_calls += split;
  piece_record->chunks_shrunk += chunks_shrunk;
}

std::string SpanLimitText(int64_t max_span_bytes) {
  if (max_span_bytes == kKernelMaxSpanBytes) return "2^31 bytes";
  return absl::StrCat(max_span_bytes + 1, " bytes");
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
  return CheckTensorData(*t, name);
}

absl::Status CheckTensorData(const halnorm_tensor& t, const char* name) {
  int64_t last = 0;
  for (int d = 0; d < t.rank; d++) {
    if (t.shape[d] == 0) return absl::OkStatus();
    last += (t.shape[d] - 1) * t.strides[d];  // cannot overflow: CheckTensor passed
  }
  if (t.data == nullptr) return InvalidArgument(name, ": data is null");
  // The runtime offsets pointers by bytes (pieces of a call, overlap
  // checks): those must fit too, and stay inside the address space.
  int64_t span_bytes;
  if (__builtin_add_overflow(last, 1, &span_bytes) ||
      __builtin_mul_overflow(span_bytes, DtypeBytes(t.dtype), &span_bytes)) {
    return InvalidArgument(name, ": shape ", ShapeString(Shape(t)),
                           " with its strides overflows 64-bit byte offsets");
  }
  if (reinterpret_cast<uintptr_t>(t.data) > UINTPTR_MAX - static_cast<uintptr_t>(span_bytes)) {
    return InvalidArgument(name, ": its ", span_bytes,
                           " bytes from data run past the end of the address space");
  }
  return absl::OkStatus();
}

absl::Status ShapeError(const halnorm_tensor& t, const char* name,
                        absl::Span<const int64_t> shape) {
  return InvalidArgument(name, ": shape ", ShapeString(Shape(t)), " must be ", ShapeString(shape));
}

absl::Status DtypeError(const halnorm_tensor& t, const char* name, halnorm_dtype want,
                        const char* reason) {
  return InvalidArgument(name, ": dtype ", DtypeName(t.dtype), " must be ", DtypeName(want), " (",
                         reason, ")");
}

absl::Status ContiguityError(const halnorm_tensor& t, const char* name, int dim,
                             int64_t expected) {
  return InvalidArgument(name, ": the normalized dims must be contiguous; dim ", dim,
                         " has stride ", t.strides[dim], ", expected ", expected);
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
    if (out != nullptr && MayOverlapItself(*out)) {
      return InvalidArgument(name, ": strides [", absl::StrJoin(absl::MakeConstSpan(out->strides,
                                                                                out->rank),
                                                               ", "),
                             "] make elements share memory (writes would race)");
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

absl::Status DeviceError(const halnorm_tensor& t, const char* name, const halnorm_tensor& x) {
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
