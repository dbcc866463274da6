// The build's targets as the autotuner sees them (from target_info.inc).
#ifndef HALNORM_TOOLS_AUTOTUNE_TARGETS_H_
#define HALNORM_TOOLS_AUTOTUNE_TARGETS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cpu_features.h"
#include "tools/autotune/search_space.h"

namespace halnorm::autotune {

struct TargetInfo {
  std::string key;            // TARGETS key: "x86_avx2"
  internal::Isa isa;          // what the CPU must have
  std::string halide_target;  // Halide target string
  Config row_norm_default, channel_norm_default;  // the hand configs (untuned defaults)
  int native_vector_width;    // f32 lanes per register
  // Targets tuned as this one (TARGETS' tuned_as): they build its configs
  // and dispatch by its table ("x86_avx512_bf16" for "x86_avx512").
  std::vector<std::string> table_sharers;

  // `other` is this target or one of its table_sharers.
  bool SharesTable(absl::string_view other) const;

  const Config& DefaultConfig(Family family) const {
    return family == Family::kRowNorm ? row_norm_default : channel_norm_default;
  }
};

std::vector<TargetInfo> AllTargets();

// The numeric knobs of a config string "accumulators=2 dtype=f32 ..." (a
// Variant's config; dtype and kind are not numbers, so not knobs).
Config ParseKnobs(absl::string_view text);

// `key` "host": the widest target this CPU runs (capped by HALNORM_MAX_ISA).
absl::StatusOr<TargetInfo> FindTarget(const std::string& key);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_TARGETS_H_
