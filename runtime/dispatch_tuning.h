// Which runtime tuning file dispatch consults before the built-in table:
// HALNORM_TUNING_FILE, read at first use, or the last good
// halnorm_load_tuning_file. Swapped atomically; old states stay alive, so a
// thread still dispatching with one (or holding its source string) is safe.
#ifndef HALNORM_RUNTIME_DISPATCH_TUNING_H_
#define HALNORM_RUNTIME_DISPATCH_TUNING_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "runtime/tuning_table.h"

namespace halnorm::internal {

struct DispatchTuning {
  std::unique_ptr<const TuningTable> file_table;  // nullptr: the built-in table alone
  std::string file_path;                          // where file_table came from
  // What dispatch uses, for people: "built-in table", "tuning file /x",
  // "built-in table (HALNORM_TUNING_FILE=/x rejected: line 3: ...)".
  std::string source;
};

// The current state; after the first call, one atomic load.
const DispatchTuning& CurrentDispatchTuning();

// Makes `path`'s table current, or the built-in table alone for nullptr. A
// bad file is an InvalidArgument naming the path (and the line) and leaves
// the current state as it was.
absl::Status LoadDispatchTuningFile(const char* path);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_DISPATCH_TUNING_H_
