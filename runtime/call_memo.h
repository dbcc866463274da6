// A per-thread memo of what a call works out from its tensors' geometry
// alone (shapes, strides, dtypes, which tensors are given) and from the
// dispatch state: which variant, how the rows fold, the pieces. Decode steps
// repeat one geometry call after call, and at M = 1 working these out
// again, with the checks that depend on the geometry alone, was a sixth of
// a call (LayerNorm f32 forward 1x16, 1 thread: 573 -> ~490 ns a call with
// the memo, of which the kernel takes ~200).
//
// A call that finds its geometry here has passed those checks before with
// the very same descriptors, so it runs only the ones that depend on the
// data pointers and scalars (CheckTensorData, CheckOutputsDisjoint, the
// options' values). Errors are never memoized: a call that fails is not
// remembered. Keys hold every input of the memoized work that may change
// while a process runs, so a tuning file loaded since is a different key,
// not a stale entry.
#ifndef HALNORM_RUNTIME_CALL_MEMO_H_
#define HALNORM_RUNTIME_CALL_MEMO_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Whether a call may use a memo: CPU tensors and dispatch's own choice
// (`forced` null), unless something must see each choice being made:
// HALNORM_VERBOSE=dispatch prints it, and a test's span limit counts the
// pieces planned.
bool MemoApplies(const halnorm_tensor* x, const Variant* forced);

// A tensor's descriptor without its data pointer. Zeroed past its rank, and
// all zero for an absent tensor, so equal descriptors compare equal bytewise.
struct TensorGeometry {
  int32_t present, dtype, device, rank;
  int64_t shape[4], strides[4];

  static TensorGeometry Of(const halnorm_tensor* t) {
    TensorGeometry g = {};
    if (t == nullptr) return g;
    g.present = 1;
    g.dtype = t->dtype;
    g.device = t->device;
    g.rank = t->rank;
    for (int d = 0; d < t->rank && d < 4; d++) {
      g.shape[d] = t->shape[d];
      g.strides[d] = t->strides[d];
    }
    return g;
  }
};

// The last kEntries keys this thread remembered, with what each call worked
// out; the oldest is replaced first. Several entries, since a model's layers
// alternate between a few geometries.
template <typename Key, typename Value, int kEntries = 4>
class CallMemo {
  // Keys compare with memcmp, which padding bytes would defeat.
  static_assert(std::has_unique_object_representations_v<Key>, "a key must have no padding");

 public:
  const Value* Find(const Key& key) const {
    for (const Entry& e : entries_) {
      if (e.used && std::memcmp(&e.key, &key, sizeof(Key)) == 0) return &e.value;
    }
    return nullptr;
  }

  void Remember(const Key& key, const Value& value) {
    entries_[next_] = {true, key, value};
    next_ = (next_ + 1) % kEntries;
  }

 private:
  struct Entry {
    bool used = false;
    Key key;
    Value value;
  };
  std::array<Entry, kEntries> entries_;
  int next_ = 0;
};

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_CALL_MEMO_H_
