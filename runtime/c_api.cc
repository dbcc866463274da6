// The C ABI: each entry point converts its absl::Status into a code plus the
// thread-local message of halnorm_last_error(). Exceptions never cross it:
// a failed allocation (scratch, partial sums) becomes an error code.
#include <exception>
#include <new>

#include "runtime/dispatch_tuning.h"
#include "runtime/halnorm_c.h"
#include "runtime/layer_norm2d.h"
#include "runtime/row_norm.h"
#include "runtime/status.h"
#include "runtime/thread_limit.h"

namespace {

// Runs one entry point's body and reports its status. Nothing escapes: a
// failed host allocation anywhere (scratch, converted parameters, an error
// message) is HALNORM_ERROR_KERNEL, "out of memory: ...", reported without
// allocating (tests/alloc_failure_test.cc fails each allocation in turn).
template <typename Body>
int Report(Body body) noexcept {
  using halnorm::internal::ReportOutOfMemory;
  using halnorm::internal::ReportToCaller;
  try {
    return ReportToCaller(body());
  } catch (const std::bad_alloc&) {
    return ReportOutOfMemory();
  } catch (const std::exception& e) {
    try {
      return ReportToCaller(absl::InternalError(e.what()));
    } catch (...) {  // no memory for the message
      return ReportOutOfMemory();
    }
  }
}

}  // namespace

extern "C" {

void halnorm_norm_options_init(halnorm_norm_options* opt) {
  if (opt == nullptr) return;
  *opt = halnorm_norm_options{};
  opt->eps = 1e-5f;
  opt->normalized_rank = 1;
  opt->weight_offset = 0.f;
  opt->residual_alpha = 1.f;
}

int halnorm_layer_norm_forward(const halnorm_tensor* x, const halnorm_tensor* weight,
                               const halnorm_tensor* bias, const halnorm_norm_options* opt,
                               halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd) {
  return Report(
      [&] { return halnorm::internal::LayerNormForward(x, weight, bias, opt, y, mean, rstd); });
}

int halnorm_layer_norm_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                const halnorm_tensor* weight, const halnorm_norm_options* opt,
                                halnorm_tensor* dx, halnorm_tensor* dweight,
                                halnorm_tensor* dbias) {
  return Report([&] {
    return halnorm::internal::LayerNormBackward(dy, x, mean, rstd, weight, opt, dx, dweight, dbias);
  });
}

int halnorm_rms_norm_forward(const halnorm_tensor* x, const halnorm_tensor* weight,
                             const halnorm_norm_options* opt, halnorm_tensor* y,
                             halnorm_tensor* rstd) {
  return Report([&] { return halnorm::internal::RmsNormForward(x, weight, opt, y, rstd); });
}

int halnorm_rms_norm_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                              const halnorm_tensor* rstd, const halnorm_tensor* weight,
                              const halnorm_norm_options* opt, halnorm_tensor* dx,
                              halnorm_tensor* dweight) {
  return Report(
      [&] { return halnorm::internal::RmsNormBackward(dy, x, rstd, weight, opt, dx, dweight); });
}

int halnorm_layer_norm2d_forward(const halnorm_tensor* x, const halnorm_tensor* weight,
                                 const halnorm_tensor* bias, halnorm_axes axes, float eps,
                                 halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd) {
  return Report([&] {
    return halnorm::internal::LayerNorm2dForward(x, weight, bias, axes, eps, y, mean, rstd);
  });
}

int halnorm_layer_norm2d_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                  const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                  const halnorm_tensor* weight, halnorm_axes axes,
                                  halnorm_tensor* dx, halnorm_tensor* dweight,
                                  halnorm_tensor* dbias) {
  return Report([&] {
    return halnorm::internal::LayerNorm2dBackward(dy, x, mean, rstd, weight, axes, dx, dweight,
                                                  dbias);
  });
}

const char* halnorm_last_error(void) { return halnorm::internal::LastErrorMessage(); }

void halnorm_set_num_threads(int n) { halnorm::internal::SetThreadLimit(n); }

int halnorm_load_tuning_file(const char* path) {
  return Report([&] { return halnorm::internal::LoadDispatchTuningFile(path); });
}

const char* halnorm_tuning_source(void) {
  try {
    return halnorm::internal::CurrentDispatchTuning().source.c_str();
  } catch (const std::bad_alloc&) {  // the first use reads HALNORM_TUNING_FILE
    return "unknown (out of memory reading the tuning state)";
  }
}

}  // extern "C"
