// The shapes and options every LayerNorm forward variant is tested on.
#ifndef HALNORM_TESTS_LAYER_NORM_FORWARD_CASES_H_
#define HALNORM_TESTS_LAYER_NORM_FORWARD_CASES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace halnorm::testutil {

struct ForwardCase {
  std::string name;                    // unique; [A-Za-z0-9_] only
  std::vector<int64_t> shape;          // of x and y, outermost first
  int32_t normalized_rank = 1;         // trailing dims normalized together
  std::vector<int64_t> x_strides;      // empty: contiguous
  std::vector<int64_t> y_strides;      // empty: contiguous
  std::vector<int64_t> stats_strides;  // of mean and rstd; empty: contiguous
  int64_t data_offset = 0;             // elements before every tensor's data (misalignment)
  double offset = 0.0;                 // x = offset + scale * N(0,1)
  double scale = 1.0;
  float eps = 1e-5f;
  bool weight = true;  // non-uniform
  bool bias = true;
  bool mean = true;  // request the statistics outputs
  bool rstd = true;
};

void PrintTo(const ForwardCase& c, std::ostream* os);

std::vector<ForwardCase> LayerNormForwardCases();

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_LAYER_NORM_FORWARD_CASES_H_
