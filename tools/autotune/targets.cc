#include "tools/autotune/targets.h"

#include <algorithm>

#include "Halide.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace halnorm::autotune {

Config ParseKnobs(absl::string_view text) {
  Config config;
  for (absl::string_view item : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, '=');
    int value = 0;
    if (absl::SimpleAtoi(kv.second, &value)) config[kv.first] = value;
  }
  return config;
}

bool TargetInfo::SharesTable(absl::string_view other) const {
  return other == key || std::find(table_sharers.begin(), table_sharers.end(), other) !=
                             table_sharers.end();
}

std::vector<TargetInfo> AllTargets() {
  std::vector<TargetInfo> targets;
#define HALNORM_TARGET(key, isa, halide, row, channel, sharers)                           \
  targets.push_back({key, internal::Isa::isa, halide, ParseKnobs(row), ParseKnobs(channel), \
                     Halide::Target(halide).natural_vector_size<float>(),                    \
                     absl::StrSplit(sharers, ' ', absl::SkipEmpty())});
#include "tools/autotune/target_info.inc"
#undef HALNORM_TARGET
  return targets;
}

absl::StatusOr<TargetInfo> FindTarget(const std::string& key) {
  const std::vector<TargetInfo> targets = AllTargets();
  const TargetInfo* found = nullptr;
  for (const TargetInfo& t : targets) {
    if (key == "host" ? internal::HostSupports(t.isa) && t.isa <= internal::MaxDispatchIsa() &&
                            (!found || t.isa > found->isa)
                      : t.key == key) {
      found = &t;
    }
  }
  if (found == nullptr) {
    std::vector<std::string> keys;
    for (const TargetInfo& t : targets) keys.push_back(t.key);
    return absl::InvalidArgumentError(absl::StrCat("--target: ", key, " is not host or one of ",
                                                   absl::StrJoin(keys, ", ")));
  }
  if (!internal::HostSupports(found->isa)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--target: ", found->key, " needs ", internal::IsaName(found->isa),
                     ", which this CPU lacks: tune on a machine that has it"));
  }
  return *found;
}

}  // namespace halnorm::autotune
