// STREAM-style memory bandwidth, measured in the benchmark's own run so the
// kernels' GB/s can be quoted as a fraction of what this machine can move.
#ifndef HALNORM_BENCH_STREAM_H_
#define HALNORM_BENCH_STREAM_H_

#include <cstddef>

namespace halnorm::bench {

// Median bytes/s of c[i] = a[i] over `elements` floats (STREAM counts 2
// accesses per element: one read, one write), split over `threads` threads.
double StreamCopyBytesPerSecond(size_t elements, int threads);

// Median bytes/s of c[i] = a[i] + b[i] (3 accesses per element).
double StreamAddBytesPerSecond(size_t elements, int threads);

// Large enough to be DRAM-resident on this class of machine (4x a 32 MiB LLC).
constexpr size_t kDramStreamElements = size_t{1} << 25;  // 128 MiB per array

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_STREAM_H_
