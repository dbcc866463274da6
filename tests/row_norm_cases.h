// The shapes and options every LayerNorm/RMSNorm variant is tested on, and
// the shapes of a case's tensors.
#ifndef HALNORM_TESTS_ROW_NORM_CASES_H_
#define HALNORM_TESTS_ROW_NORM_CASES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/halnorm_c.h"
#include "runtime/variant_registry.h"

namespace halnorm::testutil {

// One call's arguments, forward or backward (the test decides which).
struct RowNormCase {
  std::string name;  // unique among one variant's cases; [A-Za-z0-9_] only
  internal::Op op = internal::Op::kLayerNorm;
  halnorm_dtype dtype = HALNORM_F32;  // of the activations
  std::vector<int64_t> shape;         // of x, y, dy, dx; outermost first
  int32_t normalized_rank = 1;        // trailing dims normalized together
  // Empty strides: contiguous. Each activation layout differs in a padded
  // case, so a kernel mixing up two tensors' strides fails.
  std::vector<int64_t> x_strides;      // x; forward: the residual too
  std::vector<int64_t> y_strides;      // forward: y and residual_out; backward: dy
  std::vector<int64_t> dx_strides;     // backward: dx and the residual gradient
  std::vector<int64_t> stats_strides;  // mean and rstd
  int64_t data_offset = 0;             // elements before every tensor's data (misalignment)
  double offset = 0.0;                 // x = offset + scale * N(0,1)
  double scale = 1.0;
  float eps = 1e-5f;
  bool weight = true;  // non-uniform
  bool bias = true;    // LayerNorm only
  // weight, bias, dweight, dbias in f32, or else in the activation dtype.
  bool params_f32 = true;
  float weight_offset = 0.0f;
  // Forward: the fused residual add (a fused variant needs it, others must
  // not get it). Backward: a gradient arriving at residual_out, added to dx.
  bool residual = false;
  float residual_alpha = 1.0f;
  // Forward: request the statistics outputs. Backward always gets them
  // (mean for LayerNorm only), from the float64 forward of x.
  bool mean = true;  // LayerNorm only
  bool rstd = true;
  bool dweight = true;  // backward: request dweight
  bool dbias = true;    // backward: request dbias (LayerNorm only)
};

void PrintTo(const RowNormCase& c, std::ostream* os);

// A contiguous [rows, hidden] case with the defaults that fit `variant`:
// non-uniform affine parameters (in the activation dtype for a
// native-params variant, else f32), every output requested, the residual
// add exactly when the variant fuses it.
RowNormCase MatrixCase(const internal::Variant& variant, int64_t rows, int64_t hidden);

// Every case `variant` runs: shapes (16-bit on a subset) x options.
std::vector<RowNormCase> RowNormCases(const internal::Variant& variant);

std::vector<int64_t> NormalizedShape(const RowNormCase& c);  // weight, bias, dweight, dbias
std::vector<int64_t> StatisticsShape(const RowNormCase& c);  // mean, rstd: leading dims or [1]
int64_t Rows(const RowNormCase& c);
int64_t Hidden(const RowNormCase& c);
halnorm_dtype ParamDtype(const RowNormCase& c);

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_ROW_NORM_CASES_H_
