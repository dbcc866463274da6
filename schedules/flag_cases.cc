#include "schedules/flag_cases.h"

namespace halnorm {
namespace {

void ForEachFlagCaseFrom(Halide::Stage stage, const std::vector<Halide::Expr>& flags, size_t first,
                         const std::function<void(Halide::Stage)>& schedule) {
  if (first == flags.size()) {
    schedule(stage);
    return;
  }
  // Flag set: the case of this flag, which specializes on the rest inside.
  ForEachFlagCaseFrom(stage.specialize(flags[first]), flags, first + 1, schedule);
  // Flag clear: the stage's later specializations, and its own schedule.
  ForEachFlagCaseFrom(stage, flags, first + 1, schedule);
}

}  // namespace

void ForEachFlagCase(Halide::Stage stage, const std::vector<Halide::Expr>& flags,
                     const std::function<void(Halide::Stage)>& schedule) {
  ForEachFlagCaseFrom(stage, flags, 0, schedule);
}

}  // namespace halnorm
