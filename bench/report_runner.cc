// One (op, dtype, shape) of the performance report (bench/report.py): halnorm
// through its C API, the oneDNN and naive peers, DRAM STREAM, and a copy/add
// of the shape's own size, hot in cache (the best over 1..threads threads);
// each at 1 and 2 threads (or
// --threads), both directions. Prints CSV lines, no header:
//
//   op,direction,dtype,shape,threads,column,gbps,status
//
// gbps is the median over --reps repetitions of logical GB/s: forward
// 2*M*N*s bytes, backward 3*M*N*s (s = bytes per element); copy counts 2
// accesses per element, add 3. status is "ok", or "n/a: why" with no gbps.
//
//   report_runner --op=layer_norm --dtype=bf16 --shape=4096x768
//   report_runner --op=layer_norm2d --dtype=f32 --shape=8x96x56x56
//
// --offset_bytes=16 starts halnorm's activation tensors 16 bytes past a
// cache line, where malloc's large blocks start (the peers' stay aligned).
//
// --cold evicts every cache before each timed call (of halnorm and the
// peers) by reading 1 GiB (--cold=MiB: that many): the first touch of
// tensors produced long before, not the repeated call's warm cache.
// --warm_dy then reads halnorm's dy back before each backward, as in a
// training step: dy fresh from the op after, x a saved activation.
// --read_output adds a halnorm_then_read column: the call plus one thread
// reading its output back, as the next op would (gbps still counts the
// call's logical bytes), which is where streaming stores pay.
//
//   report_runner --op=layer_norm --dtype=f32 --shape=384x8192 --cold --read_output
//
// report_runner --print_llc prints the last-level cache bytes halnorm's
// streaming decision uses (runtime/cache_size.h), for the report's regimes.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "bench/bench_support.h"
#include "bench/cache_eviction.h"
#include "bench/hot_copy.h"
#include "bench/naive_peer.h"
#include "bench/norm_problem.h"
#include "bench/onednn_peer.h"
#include "bench/stream.h"
#include "bench/timing.h"
#include "runtime/cache_size.h"
#include "runtime/halnorm_c.h"
#include "runtime/tensor_checks.h"

namespace halnorm::bench {
namespace {

using internal::Op;

struct Options {
  Op op = Op::kLayerNorm;
  std::string op_name, dtype_name, shape_text;
  halnorm_dtype dtype = HALNORM_F32;
  std::vector<int64_t> shape;  // {M, N} or {N, C, H, W}
  std::vector<int> threads = {1, 2};
  int reps = 5;
  int offset_bytes = 0;  // halnorm's activations, past a 64-byte boundary
  bool read_output = false;
  bool warm_dy = false;
  std::unique_ptr<CacheEvictor> evictor;  // --cold
};

int64_t Elements(const Options& o) {
  int64_t count = 1;
  for (int64_t e : o.shape) count *= e;
  return count;
}

// Bytes of one activation tensor (x, y, dy or dx).
size_t TensorBytes(const Options& o) { return Elements(o) * internal::DtypeBytes(o.dtype); }

// Forward reads x and writes y; backward reads x and dy and writes dx.
double LogicalBytes(const Options& o, bool forward) {
  return (forward ? 2.0 : 3.0) * TensorBytes(o);
}

void PrintRow(const Options& o, const std::string& direction, int threads,
              const std::string& column, double gbps, const std::string& status = "ok") {
  const std::string why = absl::StrReplaceAll(status, {{",", ";"}, {"\n", " "}});
  if (status == "ok") {
    std::printf("%s,%s,%s,%s,%d,%s,%.4f,ok\n", o.op_name.c_str(), direction.c_str(),
                o.dtype_name.c_str(), o.shape_text.c_str(), threads, column.c_str(), gbps);
  } else {
    std::printf("%s,%s,%s,%s,%d,%s,,n/a: %s\n", o.op_name.c_str(), direction.c_str(),
                o.dtype_name.c_str(), o.shape_text.c_str(), threads, column.c_str(), why.c_str());
  }
  std::fflush(stdout);
}

// Times `call` (cold: each call after evicting the caches, then
// `after_eviction`) and prints its row; a call that fails prints n/a with
// its error instead.
void Measure(const Options& o, const std::string& direction, int threads,
             const std::string& column, double bytes, const std::function<std::string()>& call,
             const std::function<void()>& after_eviction = [] {}) {
  std::string error;
  auto checked_call = [&] {
    if (error.empty()) error = call();
  };
  auto evict = [&] {
    o.evictor->Evict(threads);
    after_eviction();
  };
  const double seconds = o.evictor ? MedianSecondsPerPreparedCall(evict, checked_call, o.reps)
                                   : MedianSecondsPerCall(checked_call, o.reps);
  if (!error.empty()) return PrintRow(o, direction, threads, column, 0, error);
  PrintRow(o, direction, threads, column, bytes / seconds / 1e9);
}

void MeasureHalnorm(const Options& o, int threads, bool forward, NormProblem& p) {
  halnorm_set_num_threads(threads);
  const std::string direction = forward ? "forward" : "backward";
  auto call = [&] {
    const absl::Status status = forward ? p.Forward() : p.Backward();
    return std::string(status.message());
  };
  const size_t tensor_bytes = TensorBytes(o);
  auto warm_dy = [&] {
    if (o.warm_dy && !forward) ReadBack(p.Dy().data, tensor_bytes);
  };
  Measure(o, direction, threads, "halnorm", LogicalBytes(o, forward), call, warm_dy);
  if (!o.read_output) return;
  const halnorm_tensor& output = p.Output(forward ? internal::Direction::kForward
                                                  : internal::Direction::kBackward);
  Measure(
      o, direction, threads, "halnorm_then_read", LogicalBytes(o, forward),
      [&] {
        std::string error = call();
        ReadBack(output.data, tensor_bytes);
        return error;
      },
      warm_dy);
}

void MeasureOneDnn(const Options& o, int threads, bool forward) {
  const std::string direction = forward ? "forward" : "backward";
  if (o.op == Op::kRmsNorm) {
    return PrintRow(o, direction, threads, "onednn", 0, "oneDNN 2.6 has no RMSNorm");
  }
  std::unique_ptr<OneDnnLayerNorm> peer;
  absl::Status created =
      o.op == Op::kLayerNorm
          ? OneDnnLayerNorm::Create(o.dtype, o.shape[0], o.shape[1], !forward, &peer)
          : OneDnnLayerNorm::CreateOverChannels(o.dtype, o.shape[0], o.shape[1],
                                                o.shape[2] * o.shape[3], !forward, &peer);
  if (!created.ok()) {
    return PrintRow(o, direction, threads, "onednn", 0, std::string(created.message()));
  }
  OneDnnLayerNorm::SetThreads(threads);
  Measure(o, direction, threads, "onednn", LogicalBytes(o, forward), [&] {
    peer->Run();
    return std::string();
  });
}

void MeasureNaive(const Options& o, int threads, bool forward) {
  const std::string direction = forward ? "forward" : "backward";
  if (o.op == Op::kLayerNorm2d || o.dtype != HALNORM_F32) {
    return PrintRow(o, direction, threads, "naive", 0,
                    "the naive loop peer covers f32 LayerNorm and RMSNorm only");
  }
  NaiveRowNorm peer(o.op == Op::kRmsNorm, o.shape[0], o.shape[1]);
  peer.Forward(threads);  // statistics for the backward
  Measure(o, direction, threads, "naive", LogicalBytes(o, forward), [&] {
    forward ? peer.Forward(threads) : peer.Backward(threads);
    return std::string();
  });
}

void MeasureReferences(const Options& o, int threads) {
  PrintRow(o, "-", threads, "stream_copy",
           StreamCopyBytesPerSecond(kDramStreamElements, threads) / 1e9);
  PrintRow(o, "-", threads, "stream_add",
           StreamAddBytesPerSecond(kDramStreamElements, threads) / 1e9);
  // The best of 1..threads threads: on a few KiB, waking a second core costs
  // more than the copy itself.
  const size_t bytes = TensorBytes(o);
  double copy = 0, add = 0;
  for (int t = 1; t <= threads; t++) {
    copy = std::max(copy, HotCopyBytesPerSecond(bytes, t, o.reps));
    add = std::max(add, HotAddBytesPerSecond(bytes, t, o.reps));
  }
  PrintRow(o, "-", threads, "cache_copy", copy / 1e9);
  PrintRow(o, "-", threads, "cache_add", add / 1e9);
}

bool ParseOptions(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; i++) {
    std::pair<std::string, std::string> kv = absl::StrSplit(argv[i], absl::MaxSplits('=', 1));
    if (kv.first == "--op") {
      o.op_name = kv.second;
    } else if (kv.first == "--dtype") {
      o.dtype_name = kv.second;
    } else if (kv.first == "--shape") {
      o.shape_text = kv.second;
    } else if (kv.first == "--threads") {
      o.threads.clear();
      for (absl::string_view t : absl::StrSplit(kv.second, ',')) {
        int n;
        if (!absl::SimpleAtoi(t, &n) || n < 1) return error = "--threads: " + kv.second, false;
        o.threads.push_back(n);
      }
    } else if (kv.first == "--reps") {
      if (!absl::SimpleAtoi(kv.second, &o.reps) || o.reps < 1) {
        return error = "--reps: " + kv.second, false;
      }
    } else if (kv.first == "--offset_bytes") {
      if (!absl::SimpleAtoi(kv.second, &o.offset_bytes) || o.offset_bytes < 0 ||
          o.offset_bytes >= 64) {
        return error = "--offset_bytes: 0 to 63, not " + kv.second, false;
      }
    } else if (kv.first == "--cold") {
      int mib = kDefaultEvictionBytes >> 20;
      if (!kv.second.empty() && (!absl::SimpleAtoi(kv.second, &mib) || mib < 1)) {
        return error = "--cold: MiB to read between calls, not " + kv.second, false;
      }
      o.evictor = std::make_unique<CacheEvictor>(int64_t{mib} << 20);
    } else if (kv.first == "--read_output") {
      o.read_output = true;
    } else if (kv.first == "--warm_dy") {
      o.warm_dy = true;
    } else {
      return error = std::string("unknown argument ") + argv[i], false;
    }
  }
  if (o.op_name == "layer_norm") o.op = Op::kLayerNorm;
  else if (o.op_name == "rms_norm") o.op = Op::kRmsNorm;
  else if (o.op_name == "layer_norm2d") o.op = Op::kLayerNorm2d;
  else return error = "--op: layer_norm, rms_norm or layer_norm2d", false;
  if (o.dtype_name == "f32") o.dtype = HALNORM_F32;
  else if (o.dtype_name == "f16") o.dtype = HALNORM_F16;
  else if (o.dtype_name == "bf16") o.dtype = HALNORM_BF16;
  else return error = "--dtype: f32, f16 or bf16", false;
  for (absl::string_view e : absl::StrSplit(o.shape_text, 'x')) {
    int64_t n;
    if (!absl::SimpleAtoi(e, &n) || n < 1) return error = "--shape: " + o.shape_text, false;
    o.shape.push_back(n);
  }
  const size_t rank = o.op == Op::kLayerNorm2d ? 4 : 2;
  if (o.shape.size() != rank) {
    return error = "--shape: " + std::string(rank == 4 ? "NxCxHxW" : "MxN"), false;
  }
  if (o.warm_dy && !o.evictor) return error = "--warm_dy: only with --cold", false;
  if (o.offset_bytes % internal::DtypeBytes(o.dtype) != 0) {
    return error = "--offset_bytes: a multiple of the element size", false;
  }
  return true;
}

}  // namespace
}  // namespace halnorm::bench

int main(int argc, char** argv) {
  using namespace halnorm::bench;
  if (argc == 2 && std::string(argv[1]) == "--print_llc") {
    std::printf("%lld\n", static_cast<long long>(halnorm::internal::LastLevelCacheBytes()));
    return 0;
  }
  Options o;
  if (std::string error; !ParseOptions(argc, argv, o, error)) {
    std::fprintf(stderr, "report_runner: %s\n", error.c_str());
    return 2;
  }
  std::mt19937 rng(7);
  NormProblem problem(o.op, o.dtype, o.shape, rng, o.offset_bytes);
  for (int threads : o.threads) {
    MeasureReferences(o, threads);
    for (bool forward : {true, false}) {
      if (!forward) {  // the backward reads the forward's statistics
        halnorm_set_num_threads(threads);
        (void)problem.Forward();
      }
      MeasureHalnorm(o, threads, forward, problem);
      MeasureOneDnn(o, threads, forward);
      MeasureNaive(o, threads, forward);
    }
  }
  return 0;
}
