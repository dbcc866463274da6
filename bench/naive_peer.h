// The naive C++ loop every normalization library is compared with: f32,
// two passes per row, rows split evenly over std::threads. No SIMD
// intrinsics; what the compiler's -O2 makes of plain loops.
#ifndef HALNORM_BENCH_NAIVE_PEER_H_
#define HALNORM_BENCH_NAIVE_PEER_H_

#include <cstdint>

#include "bench/cache_line_allocator.h"

namespace halnorm::bench {

class NaiveRowNorm {
 public:
  NaiveRowNorm(bool rms, int64_t rows, int64_t hidden);
  void Forward(int threads);
  void Backward(int threads);

 private:
  void ForwardRows(int64_t begin, int64_t end);
  void BackwardRows(int64_t begin, int64_t end, float* dweight, float* dbias);

  bool rms_;
  int64_t rows_, hidden_;
  AlignedVector<float> x_, y_, dy_, dx_, weight_, bias_, mean_, rstd_, dweight_, dbias_;
};

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_NAIVE_PEER_H_
