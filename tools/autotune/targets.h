// The build's targets as the autotuner sees them (from target_info.inc).
#ifndef HALNORM_TOOLS_AUTOTUNE_TARGETS_H_
#define HALNORM_TOOLS_AUTOTUNE_TARGETS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cpu_features.h"
#include "tools/autotune/search_space.h"

namespace halnorm::autotune {

struct TargetInfo {
  std::string key;            // TARGETS key: "x86_avx2"
  internal::Isa isa;          // what the CPU must have
  std::string halide_target;  // Halide target string
  Config row_norm_default, channel_norm_default;  // the hand configs (untuned defaults)
  int native_vector_width;    // f32 lanes per register

  const Config& DefaultConfig(Family family) const {
    return family == Family::kRowNorm ? row_norm_default : channel_norm_default;
  }
};

std::vector<TargetInfo> AllTargets();

// `key` "host": the widest target this CPU runs (capped by HALNORM_MAX_ISA).
absl::StatusOr<TargetInfo> FindTarget(const std::string& key);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_TARGETS_H_
