#include "runtime/dispatch_tuning.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/status.h"
#include "runtime/tuning_file.h"

namespace halnorm::internal {
namespace {

constexpr char kBuiltIn[] = "built-in table";

std::atomic<const DispatchTuning*> current{nullptr};

// Publishes `tuning` and keeps it alive for good: readers never lock, so
// nothing can tell when the last of them is done with the old state.
void Publish(std::unique_ptr<DispatchTuning> tuning) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::unique_ptr<DispatchTuning>>();
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(tuning));
  current.store(kept->back().get(), std::memory_order_release);
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) return InvalidArgument("cannot open it: ", std::strerror(errno));
  std::string text;
  char chunk[4096];
  while (size_t n = std::fread(chunk, 1, sizeof(chunk), in)) text.append(chunk, n);
  const int error = std::ferror(in) ? errno : 0;
  std::fclose(in);
  if (error != 0) return InvalidArgument("cannot read it: ", std::strerror(error));
  return text;
}

// The file's table; errors say what is wrong, not which file (callers do).
absl::StatusOr<std::unique_ptr<DispatchTuning>> ReadTuningFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadText(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<TuningFile> file = TuningFile::Parse(*text);
  if (!file.ok()) return file.status();
  auto tuning = std::make_unique<DispatchTuning>();
  tuning->file_table = std::make_unique<const TuningTable>(file->ToTable());
  tuning->file_path = path;
  tuning->source = absl::StrCat("tuning file ", path);
  return tuning;
}

std::unique_ptr<DispatchTuning> BuiltInOnly(std::string source) {
  auto tuning = std::make_unique<DispatchTuning>();
  tuning->source = std::move(source);
  return tuning;
}

// HALNORM_TUNING_FILE's table; a bad file leaves the built-in table, and the
// source says why (a call may not print).
std::unique_ptr<DispatchTuning> FromEnvironment() {
  const char* path = std::getenv("HALNORM_TUNING_FILE");
  if (path == nullptr || *path == '\0') return BuiltInOnly(kBuiltIn);
  absl::StatusOr<std::unique_ptr<DispatchTuning>> tuning = ReadTuningFile(path);
  if (tuning.ok()) return *std::move(tuning);
  return BuiltInOnly(absl::StrCat(kBuiltIn, " (HALNORM_TUNING_FILE=", path,
                                  " rejected: ", tuning.status().message(), ")"));
}

}  // namespace

const DispatchTuning& CurrentDispatchTuning() {
  static const bool from_environment = [] {
    Publish(FromEnvironment());
    return true;
  }();
  (void)from_environment;
  return *current.load(std::memory_order_acquire);
}

absl::Status LoadDispatchTuningFile(const char* path) {
  CurrentDispatchTuning();  // HALNORM_TUNING_FILE first, so this call wins
  if (path == nullptr) {
    Publish(BuiltInOnly(kBuiltIn));
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<DispatchTuning>> tuning = ReadTuningFile(path);
  if (!tuning.ok()) {
    return InvalidArgument("tuning file ", path, ": ", tuning.status().message());
  }
  Publish(*std::move(tuning));
  return absl::OkStatus();
}

}  // namespace halnorm::internal
