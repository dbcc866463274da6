#include "runtime/converted_params.h"

#include <array>
#include <cstring>
#include <memory>

#include "runtime/half_float.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

struct KeptParam {
  // What it was made from: the source's address, type, extent and offset,
  // and a copy of its bytes at the time.
  const void* data = nullptr;
  halnorm_dtype dtype = HALNORM_F32;
  int64_t count = 0;
  float offset = 0.f;
  std::unique_ptr<uint8_t[]> source;
  std::unique_ptr<float[]> values;
  uint64_t last_use = 0;
};

struct ThreadParams {
  std::array<KeptParam, kKeptParams> kept;
  uint64_t uses = 0;
};

bool SameOrigin(const KeptParam& k, const halnorm_tensor& t, int64_t count, float offset) {
  // The offset compared bit for bit: -0.f and NaN are offsets too.
  return k.values != nullptr && k.data == t.data && k.dtype == t.dtype && k.count == count &&
         std::memcmp(&k.offset, &offset, sizeof offset) == 0;
}

}  // namespace

void ToF32WithOffset(const halnorm_tensor& t, int64_t count, float offset, float* out) {
  ToF32(t, count, out);
  if (offset != 0.f) {
    for (int64_t i = 0; i < count; i++) out[i] += offset;
  }
}

const float* KeptF32Param(const halnorm_tensor& t, int64_t count, float offset) {
  thread_local ThreadParams params;
  const size_t bytes = static_cast<size_t>(count * DtypeBytes(t.dtype));
  params.uses++;
  KeptParam* slot = nullptr;
  for (KeptParam& k : params.kept) {
    if (SameOrigin(k, t, count, offset)) slot = &k;
  }
  if (slot != nullptr && std::memcmp(slot->source.get(), t.data, bytes) == 0) {
    slot->last_use = params.uses;
    return slot->values.get();
  }
  if (slot == nullptr) {
    slot = &params.kept[0];
    for (KeptParam& k : params.kept) {
      if (k.last_use < slot->last_use) slot = &k;
    }
    // Both buffers before the slot changes: a failed allocation leaves it
    // as it was.
    std::unique_ptr<uint8_t[]> source(new uint8_t[bytes]);
    std::unique_ptr<float[]> values(new float[count]);
    *slot = {t.data, t.dtype, count, offset, std::move(source), std::move(values), 0};
  }
  std::memcpy(slot->source.get(), t.data, bytes);
  ToF32WithOffset(t, count, offset, slot->values.get());
  slot->last_use = params.uses;
  return slot->values.get();
}

}  // namespace halnorm::internal
