// The cache-resident reference: a copy (or add) over arrays of a given size,
// repeated so they stay hot in cache, split over worker threads that spin
// between calls (starting threads per call would cost more than copying a
// few KiB).
#ifndef HALNORM_BENCH_HOT_COPY_H_
#define HALNORM_BENCH_HOT_COPY_H_

#include <cstddef>

namespace halnorm::bench {

// Median bytes/s of memcpy between two `bytes`-sized arrays (2 accesses per
// element, as STREAM counts).
double HotCopyBytesPerSecond(size_t bytes, int threads, int repetitions);

// Median bytes/s of c = a + b over floats, three `bytes`-sized arrays.
double HotAddBytesPerSecond(size_t bytes, int threads, int repetitions);

}  // namespace halnorm::bench

#endif  // HALNORM_BENCH_HOT_COPY_H_
