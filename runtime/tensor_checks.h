// halnorm_tensor descriptors: validation (every message starts with the
// argument's name, so the caller knows which one is wrong), and dense ones
// the runtime builds over its own memory.
#ifndef HALNORM_RUNTIME_TENSOR_CHECKS_H_
#define HALNORM_RUNTIME_TENSOR_CHECKS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {

inline int64_t DtypeBytes(halnorm_dtype dtype) { return dtype == HALNORM_F32 ? 4 : 2; }
inline int64_t NumElements(const halnorm_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.rank; d++) n *= t.shape[d];
  return n;
}

// The kernels are compiled without Halide's large_buffers, so one kernel
// call addresses each buffer it takes with 32-bit offsets: at most
// kKernelMaxSpanBytes bytes from its first element to the end of its last
// (less than 2^31), and at most kKernelMaxElements elements. Tensors past
// that are not refused: a call on them runs as several kernel calls, each on
// a piece of whole rows (row_batch.h, PlanPieces).
inline constexpr int64_t kKernelMaxSpanBytes = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kKernelMaxElements = std::numeric_limits<int32_t>::max();

// The span calls on this thread split at: kKernelMaxSpanBytes, unless a
// ScopedKernelSpanLimitForTesting lives on this thread.
int64_t KernelSpanLimit();

// What the calls on one thread planned while a ScopedKernelSpanLimitForTesting
// lived (LayerNorm2d over H,W makes one row-norm call per channel).
struct PieceRecordForTesting {
  int64_t calls = 0;          // calls that planned pieces (those with rows)
  int64_t split_calls = 0;    // of those, split into more kernel calls than unsplit
  int64_t chunks_shrunk = 0;  // of those, with dweight/dbias chunks made smaller to fit
};

// Lowers KernelSpanLimit() on this thread while it lives (restoring the
// previous one after), so tests run small tensors through the same pieces as
// tensors past 2 GiB, and records what the calls planned. Tests only.
class ScopedKernelSpanLimitForTesting {
 public:
  explicit ScopedKernelSpanLimitForTesting(int64_t max_span_bytes);
  ~ScopedKernelSpanLimitForTesting();
  ScopedKernelSpanLimitForTesting(const ScopedKernelSpanLimitForTesting&) = delete;
  ScopedKernelSpanLimitForTesting& operator=(const ScopedKernelSpanLimitForTesting&) = delete;

  const PieceRecordForTesting& record() const { return record_; }

 private:
  int64_t previous_limit_;
  PieceRecordForTesting* previous_record_;
  PieceRecordForTesting record_;
};

// Called by each call that plans pieces: counts it in the record of the
// ScopedKernelSpanLimitForTesting living on this thread, if any.
void RecordPiecesForTesting(bool split, bool chunks_shrunk);

// What a buffer must stay under, for messages: "2^31 bytes" for the kernels'
// limit, "<max + 1> bytes" for a test's.
std::string SpanLimitText(int64_t max_span_bytes);

// Non-null, a known device (CPU or CUDA: the op checks which it runs), a
// known dtype, rank 1..4, non-negative shape and strides, non-null data when
// non-empty, and element and byte offsets that fit in int64 (any size past
// that is the op's to split or refuse: see kKernelMaxSpanBytes).
absl::Status CheckTensor(const halnorm_tensor* t, const char* name);
// The part of CheckTensor that depends on where the data is: non-null data
// when non-empty, and byte offsets that fit in int64 and the address space.
// Only for a tensor whose descriptor passed CheckTensor (call_memo.h).
absl::Status CheckTensorData(const halnorm_tensor& t, const char* name);

const char* DeviceName(halnorm_device device);

// A contiguous (row-major) tensor of `shape` over `data`.
halnorm_tensor DenseTensor(void* data, halnorm_dtype dtype, halnorm_device device,
                           const std::vector<int64_t>& shape);

// The checks below run on every tensor of every call, so their passing case
// is inline (at decode shapes the calls to them were a visible share of a
// call); the *Error functions build the messages.
absl::Status DeviceError(const halnorm_tensor& t, const char* name, const halnorm_tensor& x);
absl::Status ShapeError(const halnorm_tensor& t, const char* name,
                        absl::Span<const int64_t> shape);
absl::Status DtypeError(const halnorm_tensor& t, const char* name, halnorm_dtype want,
                        const char* reason);
absl::Status ContiguityError(const halnorm_tensor& t, const char* name, int dim,
                             int64_t expected);

// `t` is on x's device.
inline absl::Status CheckSameDevice(const halnorm_tensor& t, const char* name,
                                    const halnorm_tensor& x) {
  if (t.device == x.device) return absl::OkStatus();
  return DeviceError(t, name, x);
}

// `t` has exactly `shape`.
inline absl::Status CheckShape(const halnorm_tensor& t, const char* name,
                               absl::Span<const int64_t> shape) {
  bool same = static_cast<size_t>(t.rank) == shape.size();
  for (size_t d = 0; same && d < shape.size(); d++) same = t.shape[d] == shape[d];
  if (same) return absl::OkStatus();
  return ShapeError(t, name, shape);
}

// `t` has dtype `want`; `reason` says what it must match ("x", "f32 statistics").
inline absl::Status CheckDtype(const halnorm_tensor& t, const char* name, halnorm_dtype want,
                               const char* reason) {
  if (t.dtype == want) return absl::OkStatus();
  return DtypeError(t, name, want, reason);
}

// Dims [first, rank) form one contiguous run (innermost stride 1).
inline absl::Status CheckContiguousFrom(const halnorm_tensor& t, const char* name, int first) {
  int64_t expected = 1;
  for (int d = t.rank - 1; d >= first; d--) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return ContiguityError(t, name, d, expected);
    expected *= t.shape[d];
  }
  return absl::OkStatus();
}

using NamedTensor = std::pair<const char*, const halnorm_tensor*>;

// No output shares a byte with any other tensor of the call (inputs or
// outputs), and no output dim of extent > 1 has stride 0. Null entries are
// skipped.
absl::Status CheckOutputsDisjoint(absl::Span<const NamedTensor> outputs,
                                  absl::Span<const NamedTensor> inputs);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TENSOR_CHECKS_H_
