// Errors: absl::Status inside, (code, thread-local message) at the C ABI.
#ifndef HALNORM_RUNTIME_STATUS_H_
#define HALNORM_RUNTIME_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace halnorm::internal {

// Stores the status message as halnorm_last_error() and returns its
// halnorm_status code (0 for OK).
int ReportToCaller(const absl::Status& status);

const char* LastErrorMessage();

// Routes Halide runtime errors into a thread-local message instead of stderr
// (the default handler prints and, in some paths, aborts). Idempotent.
void InstallHalideErrorHandler();

// Runs after a kernel returned `halide_code`: OK for 0, otherwise an error
// naming the kernel and carrying Halide's message.
absl::Status KernelStatus(int halide_code, const char* kernel_name);

// Shorthand for the argument checks: InvalidArgument("x: rank ", 5, ...).
template <typename... Args>
absl::Status InvalidArgument(const Args&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(parts...));
}

}  // namespace halnorm::internal

#define HALNORM_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    if (absl::Status s_ = (expr); !s_.ok()) return s_; \
  } while (0)

#endif  // HALNORM_RUNTIME_STATUS_H_
