// Errors: absl::Status inside, (code, thread-local message) at the C ABI.
#ifndef HALNORM_RUNTIME_STATUS_H_
#define HALNORM_RUNTIME_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace halnorm::internal {

// Stores the status message as halnorm_last_error() and returns its
// halnorm_status code (0 for OK). Never throws: without memory for the
// message, the message says so instead (the code stays).
int ReportToCaller(const absl::Status& status) noexcept;

// A host allocation failed (std::bad_alloc): HALNORM_ERROR_KERNEL, with a
// fixed "out of memory" message set without allocating.
int ReportOutOfMemory() noexcept;

const char* LastErrorMessage();

// Routes Halide runtime errors into a thread-local message instead of stderr
// (the default handler prints and, in some paths, aborts). Idempotent.
void InstallHalideErrorHandler();

// Halide reports an error on the thread that hit it, which in a parallel
// loop is often a pool thread. The message waits there, in a fixed buffer
// (it may be reporting that memory ran out), until taken: by KernelStatus on
// the calling thread, or by thread_limit.cc, which carries a task's message
// back to the thread running the loop.
struct HalideErrorText {
  char text[512];  // NUL-terminated, truncated
};
// Moves this thread's pending Halide message into *out; false if none.
bool TakeHalideError(HalideErrorText* out) noexcept;
// Makes `error` this thread's pending Halide message.
void SetHalideError(const HalideErrorText& error) noexcept;
// Drops this thread's pending message (before a kernel runs).
void ClearHalideError() noexcept;

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
