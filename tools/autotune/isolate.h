// Runs one candidate (compile + time) in a forked child process. Halide's
// autoschedulers produce kernels that can crash outright (one divides by
// zero on LayerNorm2d backward; libHalide aborts on some internal errors):
// isolated, such a candidate costs only its own result. The child also starts
// its own JIT thread pool, so the parent never holds one across a fork.
#ifndef HALNORM_TOOLS_AUTOTUNE_ISOLATE_H_
#define HALNORM_TOOLS_AUTOTUNE_ISOLATE_H_

#include <functional>
#include <string>
#include <vector>

namespace halnorm::autotune {

struct CandidateResult {
  std::vector<double> seconds;  // per grid point; +infinity where not run
  std::string error;            // "" if every point ran
};

// `work` runs in the child; its result comes back through a pipe. A child
// that dies returns an error naming the signal or exit status.
CandidateResult RunIsolated(const std::function<CandidateResult()>& work);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_ISOLATE_H_
