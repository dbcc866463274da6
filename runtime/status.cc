#include "runtime/status.h"

#include <mutex>

#include "HalideRuntime.h"
#include "absl/strings/str_cat.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {
namespace {

thread_local std::string last_error;
// Halide reports an error through the handler, then the kernel returns a
// nonzero code on the same thread; this holds the text in between.
thread_local std::string last_halide_error;

void CaptureHalideError(void* /*user_context*/, const char* message) {
  last_halide_error = message;
  // Halide messages end with a newline; the caller adds its own framing.
  while (!last_halide_error.empty() && last_halide_error.back() == '\n') {
    last_halide_error.pop_back();
  }
}

int CodeFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return HALNORM_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return HALNORM_ERROR_INVALID_ARGUMENT;
    case absl::StatusCode::kUnimplemented:
      return HALNORM_ERROR_UNIMPLEMENTED;
    case absl::StatusCode::kFailedPrecondition:
      return HALNORM_ERROR_UNSUPPORTED;
    default:
      return HALNORM_ERROR_KERNEL;
  }
}

}  // namespace

int ReportToCaller(const absl::Status& status) {
  if (status.ok()) {
    last_error.clear();
  } else {
    last_error = std::string(status.message());
  }
  return CodeFor(status.code());
}

const char* LastErrorMessage() { return last_error.c_str(); }

void InstallHalideErrorHandler() {
  static std::once_flag once;
  std::call_once(once, [] { halide_set_error_handler(&CaptureHalideError); });
}

absl::Status KernelStatus(int halide_code, const char* kernel_name) {
  if (halide_code == 0) return absl::OkStatus();
  std::string detail = last_halide_error.empty() ? absl::StrCat("Halide error code ", halide_code)
                                                 : last_halide_error;
  last_halide_error.clear();
  return absl::InternalError(absl::StrCat("kernel ", kernel_name, " failed: ", detail));
}

}  // namespace halnorm::internal
