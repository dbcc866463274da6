// Storage on 64-byte boundaries for every benchmark column's tensors and
// arrays, as PyTorch's and oneDNN's CPU allocators align tensors. (malloc's
// large blocks start 16 bytes into a page: every 64-byte vector of a row
// then straddles two cache lines. On the 2-vCPU Intel VM, LayerNorm bf16
// forward at 1 thread, compiled c1 / c3, three alternating processes each,
// malloc'd -> aligned: 16384x768 4.1-4.9 -> 3.5-3.7 ms, 4096x1024 958-1017
// -> 896-984 us, 4096x128 202-209 -> 182-197 us.)
#ifndef HALNORM_BENCH_CACHE_LINE_ALLOCATOR_H_
#define HALNORM_BENCH_CACHE_LINE_ALLOCATOR_H_

#include <cstddef>
#include <new>
#include <vector>

namespace halnorm::bench {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  bool operator==(const CacheLineAllocator&) const { return true; }
  bool operator!=(const CacheLineAllocator&) const { return false; }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_CACHE_LINE_ALLOCATOR_H_
