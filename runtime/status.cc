#include "runtime/status.h"

#include <cstdio>
#include <cstring>
#include <mutex>

#include "HalideRuntime.h"
#include "absl/strings/str_cat.h"
#include "runtime/halnorm_c.h"

namespace halnorm::internal {
namespace {

thread_local std::string last_error;
// Set instead of last_error when there was no memory for the message.
thread_local const char* fixed_error = nullptr;
// Halide reports an error through the handler, then the kernel returns a
// nonzero code; this holds the text in between (text[0] == 0: none).
thread_local HalideErrorText pending_halide_error;

constexpr char kOutOfMemory[] = "out of memory: a host allocation failed";
constexpr char kNoMemoryForMessage[] = "out of memory while reporting an error";

// Called from Halide's runtime, possibly on a pool thread: must not throw.
void CaptureHalideError(void* /*user_context*/, const char* message) {
  char* text = pending_halide_error.text;
  size_t length = strnlen(message, sizeof(pending_halide_error.text) - 1);
  // Halide messages end with a newline; the caller adds its own framing.
  while (length > 0 && message[length - 1] == '\n') length--;
  std::memcpy(text, message, length);
  text[length] = '\0';
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

int ReportToCaller(const absl::Status& status) noexcept {
  fixed_error = nullptr;
  if (status.ok()) {
    last_error.clear();
    return HALNORM_OK;
  }
  try {
    last_error.assign(status.message().data(), status.message().size());
  } catch (...) {  // std::bad_alloc
    fixed_error = kNoMemoryForMessage;
  }
  return CodeFor(status.code());
}

int ReportOutOfMemory() noexcept {
  fixed_error = kOutOfMemory;
  return HALNORM_ERROR_KERNEL;
}

const char* LastErrorMessage() { return fixed_error != nullptr ? fixed_error : last_error.c_str(); }

void InstallHalideErrorHandler() {
  static std::once_flag once;
  std::call_once(once, [] { halide_set_error_handler(&CaptureHalideError); });
}

bool TakeHalideError(HalideErrorText* out) noexcept {
  if (pending_halide_error.text[0] == '\0') return false;
  *out = pending_halide_error;
  pending_halide_error.text[0] = '\0';
  return true;
}

void SetHalideError(const HalideErrorText& error) noexcept { pending_halide_error = error; }

void ClearHalideError() noexcept { pending_halide_error.text[0] = '\0'; }

absl::Status KernelStatus(int halide_code, const char* kernel_name) {
  if (halide_code == 0) return absl::OkStatus();
  HalideErrorText detail;
  if (!TakeHalideError(&detail)) {
    std::snprintf(detail.text, sizeof(detail.text), "Halide error code %d", halide_code);
  }
  return absl::InternalError(absl::StrCat("kernel ", kernel_name, " failed: ", detail.text));
}

}  // namespace halnorm::internal
