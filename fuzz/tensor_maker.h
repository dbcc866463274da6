// Builds fuzzed tensor descriptors over one arena of memory.
//
// Each argument starts from the shape it would have in a valid call (like
// x, x's trailing or leading dims, a channel vector, ...), so most inputs get
// past the checks to the kernels; the input then may break it: another dtype,
// device, rank, extents or strides (negative, zero, overflowing), a null
// tensor or data pointer, or data aliasing x. Every descriptor the library
// could legitimately read or write through lies inside the arena, so ASan
// flags any access outside it as the library's bug, not the harness's.
#ifndef HALNORM_FUZZ_TENSOR_MAKER_H_
#define HALNORM_FUZZ_TENSOR_MAKER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/byte_reader.h"
#include "runtime/halnorm_c.h"

namespace halnorm::fuzz {

// A byte range [lo, hi) inside the arena.
struct ArenaRange {
  size_t lo = 0, hi = 0;
  bool Overlaps(const ArenaRange& o) const { return lo < o.hi && o.lo < hi; }
};

class TensorMaker {
 public:
  static constexpr size_t kArenaBytes = 1 << 16;

  explicit TensorMaker(ByteReader& in);

  // x: a fuzzed rank and extents, usually dense.
  halnorm_tensor* MakeX();
  // Another argument whose valid shape is `shape` and dtype `dtype` (f32 for
  // statistics). Returns null when the input asks for a null tensor.
  halnorm_tensor* Make(const std::vector<int64_t>& shape, halnorm_dtype dtype);

  // The bytes `t` covers in the arena, exactly (stride gaps excluded; with
  // more elements than arena bytes, its whole span): empty for a null or
  // out-of-arena tensor.
  std::vector<ArenaRange> ElementRanges(const halnorm_tensor* t) const;

  const uint8_t* arena() const { return arena_.data(); }

 private:
  halnorm_tensor* Place(halnorm_tensor t);
  int64_t Extent();

  ByteReader& in_;
  std::vector<uint8_t> arena_;
  size_t cursor_ = 0;                    // next free byte (bump allocation)
  std::vector<halnorm_tensor> tensors_;  // stable storage (reserved up front)
  const halnorm_tensor* x_ = nullptr;
};

}  // namespace halnorm::fuzz

#endif  // HALNORM_FUZZ_TENSOR_MAKER_H_
