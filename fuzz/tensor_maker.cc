#include "fuzz/tensor_maker.h"

#include <limits>

namespace halnorm::fuzz {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Extents and strides the checks must survive: negative, zero, at the 2^31
// element boundary, and ones whose products overflow int64.
constexpr int64_t kEdgeExtents[] = {0, -1, -7, int64_t{1} << 31, (int64_t{1} << 31) + 1,
                                    int64_t{1} << 62, kMax, kMin};
constexpr int64_t kEdgeStrides[] = {0, 1, -1, 2, -3, 7, 1000, int64_t{1} << 31, int64_t{1} << 40,
                                    int64_t{1} << 62, -(int64_t{1} << 62), kMax, kMin};
constexpr int kDtypes[] = {HALNORM_F32, HALNORM_F16, HALNORM_BF16, 3, -1};
constexpr int kDevices[] = {HALNORM_CPU, HALNORM_CUDA, 2, -1};
constexpr int kRanks[] = {0, 5, -1, 1000};

bool KnownDtype(int dtype) { return dtype >= HALNORM_F32 && dtype <= HALNORM_BF16; }
int64_t ElementBytes(int dtype) { return dtype == HALNORM_F32 ? 4 : 2; }

bool WellFormed(const halnorm_tensor& t) {
  if (!KnownDtype(t.dtype) || t.rank < 1 || t.rank > 4) return false;
  for (int d = 0; d < t.rank; d++) {
    if (t.shape[d] < 0) return false;
  }
  return true;
}

// The lowest and highest element offsets and the element count, exactly
// while they fit int64; beyond, clamped to +-2^63 (out of range all the
// same, and 128-bit arithmetic on them cannot overflow: 2^63 * 2^63 < 2^127).
void Reach(const halnorm_tensor& t, __int128* lowest, __int128* highest, __int128* elements) {
  const __int128 limit = static_cast<__int128>(1) << 63;
  auto clamp = [&](__int128 v) { return v > limit ? limit : v < -limit ? -limit : v; };
  *lowest = *highest = 0;
  *elements = 1;
  for (int d = 0; d < t.rank; d++) {
    *elements = clamp(*elements * t.shape[d]);
    if (t.shape[d] == 0) continue;
    const __int128 reach = static_cast<__int128>(t.shape[d] - 1) * t.strides[d];
    __int128& end = reach < 0 ? *lowest : *highest;
    end = clamp(end + reach);
  }
}

}  // namespace

TensorMaker::TensorMaker(ByteReader& in) : in_(in), arena_(kArenaBytes) {
  tensors_.reserve(16);  // pointers into it stay valid: at most 9 tensors a call
  // Values with some spread; the bytes past the first 4 KiB repeat them.
  for (size_t i = 0; i < kArenaBytes; i++) arena_[i] = static_cast<uint8_t>(i * 37 + (i >> 7));
  for (size_t i = 0; i < 4096 && i < kArenaBytes; i += 4) {
    const float v = static_cast<float>(static_cast<int>(i % 97) - 48) / 16.0f;
    __builtin_memcpy(&arena_[i], &v, sizeof v);
  }
}

int64_t TensorMaker::Extent() {
  const uint8_t b = in_.Byte();
  if (b < 224) return 1 + b % 9;  // small: the kernels run quickly
  if (b < 240) return int64_t{16} << (b % 4);
  return kEdgeExtents[b % std::size(kEdgeExtents)];
}

halnorm_tensor* TensorMaker::MakeX() {
  std::vector<int64_t> shape(1 + in_.Byte() % 4);
  for (int64_t& extent : shape) extent = Extent();
  halnorm_tensor* x = Make(shape, static_cast<halnorm_dtype>(kDtypes[in_.Byte() % 3]));
  x_ = x;
  return x;
}

halnorm_tensor* TensorMaker::Make(const std::vector<int64_t>& shape, halnorm_dtype dtype) {
  halnorm_tensor t = {};
  t.dtype = dtype;
  t.device = HALNORM_CPU;
  t.rank = static_cast<int32_t>(shape.size());
  for (int d = 0; d < t.rank && d < 4; d++) t.shape[d] = shape[d];
  // Dense, row-major (saturating: huge extents make huge strides).
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; d--) {
    if (d < 4) t.strides[d] = stride;
    if (__builtin_mul_overflow(stride, d < 4 && t.shape[d] > 0 ? t.shape[d] : 1, &stride)) {
      stride = kMax;
    }
  }
  // Mostly leave it valid; otherwise break one thing (or a few).
  for (uint8_t mutation = in_.Byte(); mutation >= 160; mutation = in_.Byte()) {
    const int d = in_.Byte() % 4;
    switch (mutation % 8) {
      case 0: return nullptr;  // a null tensor pointer
      case 1: t.dtype = static_cast<halnorm_dtype>(in_.Pick(kDtypes)); break;
      case 2: t.device = static_cast<halnorm_device>(in_.Pick(kDevices)); break;
      case 3: t.rank = in_.Pick(kRanks); break;
      case 4: t.shape[d] = Extent(); break;
      case 5: t.strides[d] = in_.Pick(kEdgeStrides); break;
      case 6: t.rank = 1 + in_.Byte() % 4; break;
      default: {  // alias x's data (Place checks it stays in the arena)
        if (x_ != nullptr && x_->data != nullptr) t.data = x_->data;
        break;
      }
    }
  }
  return Place(t);
}

halnorm_tensor* TensorMaker::Place(halnorm_tensor t) {
  uint8_t* const base = arena_.data();
  if (!WellFormed(t)) {
    // The checks must refuse it before touching any memory.
    t.data = base;
  } else {
    __int128 lowest, highest, elements;
    Reach(t, &lowest, &highest, &elements);
    const __int128 bytes = ElementBytes(t.dtype);
    const __int128 span = (highest - lowest + 1) * bytes;
    const bool overflows = highest * bytes > kMax || lowest * bytes < kMin;
    const size_t misalign = in_.Byte() % 8 == 7 ? 2 : 0;  // data need not be 4-byte aligned
    if (elements == 0) {
      t.data = base + cursor_;
    } else if (overflows) {
      t.data = base;  // must be refused: no int64 offset reaches it
    } else if (t.data != nullptr) {
      // Aliasing: keep it only where every element is inside the arena.
      const __int128 at = static_cast<uint8_t*>(t.data) - base;
      if (at + lowest * bytes < 0 || at + (highest + 1) * bytes > kArenaBytes) t.data = nullptr;
    } else if (cursor_ + misalign + span <= kArenaBytes) {
      const size_t at = cursor_ + misalign - static_cast<size_t>(lowest * bytes);
      t.data = base + at;
      cursor_ = (cursor_ + misalign + static_cast<size_t>(span) + 63) & ~size_t{63};
    } else {
      t.data = nullptr;  // larger than the arena: only "null data" is safe to say
    }
  }
  if (in_.Byte() >= 250) t.data = nullptr;
  tensors_.push_back(t);
  return &tensors_.back();
}

std::vector<ArenaRange> TensorMaker::ElementRanges(const halnorm_tensor* t) const {
  std::vector<ArenaRange> ranges;
  if (t == nullptr || t->data == nullptr || !WellFormed(*t)) return ranges;
  __int128 lowest, highest, elements;
  Reach(*t, &lowest, &highest, &elements);
  const int64_t bytes = ElementBytes(t->dtype);
  const __int128 at = static_cast<const uint8_t*>(t->data) - arena_.data();
  if (elements == 0 || at + lowest * bytes < 0 || at + (highest + 1) * bytes > kArenaBytes) {
    return ranges;
  }
  if (elements > kArenaBytes) {  // stride 0 (or overlapping) dims: too many to list
    return {{static_cast<size_t>(at + lowest * bytes), static_cast<size_t>(at + (highest + 1) * bytes)}};
  }
  int64_t index[4] = {0, 0, 0, 0};
  for (__int128 e = 0; e < elements; e++) {
    int64_t offset = 0;
    for (int d = 0; d < t->rank; d++) offset += index[d] * t->strides[d];
    const size_t lo = static_cast<size_t>(at + offset * bytes);
    ranges.push_back({lo, lo + static_cast<size_t>(bytes)});
    for (int d = t->rank - 1; d >= 0 && ++index[d] == t->shape[d]; d--) index[d] = 0;
  }
  return ranges;
}

}  // namespace halnorm::fuzz
