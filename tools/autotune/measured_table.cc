#include "tools/autotune/measured_table.h"

#include <regex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/autotune/targets.h"

namespace halnorm::autotune {
namespace {

using internal::Variant;

// The table's config the variant was built from, checked knob by knob.
absl::Status CheckConfig(const Variant& v, const TunedTable& table) {
  const std::vector<Config>& configs = v.op == internal::Op::kLayerNorm2d
                                           ? table.channel_norm_configs
                                           : table.row_norm_configs;
  if (v.config_index >= static_cast<int>(configs.size())) {
    return absl::FailedPreconditionError(absl::StrCat(
        v.name, ": config ", v.config_index, " is not in the tuned table of ", table.target, " (",
        configs.size(), " configs): the library was built from another one; rebuild first"));
  }
  const Config& listed = configs[v.config_index];
  for (const auto& [knob, value] : ParseKnobs(v.config)) {
    auto it = listed.find(knob);
    if (it != listed.end() && it->second != value) {
      return absl::FailedPreconditionError(absl::StrCat(
          v.name, ": built with ", knob, "=", value, ", the tuned table of ", table.target,
          " says ", it->second, " for config ", v.config_index, ": rebuild first"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> CpuTableToWrite(const std::string& flag, bool update_tuned,
                                            const std::vector<std::string>& host_tables) {
  if (!flag.empty() && !update_tuned) {
    return absl::InvalidArgumentError("--cpu_table: only with --update_tuned");
  }
  if (flag.empty()) return host_tables.empty() ? "" : host_tables.front();
  if (flag == "default") return "";
  static const std::regex kKey(R"(amd(_family\d+(_model\d+)?)?|intel(_model\d+)?)");
  if (!std::regex_match(flag, kKey)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cpu_table: '", flag,
                     "' is not amd_family<N>_model<M>, amd_family<N>, intel_model<N>, amd, intel "
                     "or default"));
  }
  return flag;
}

absl::Status ApplyMeasuredPicks(const internal::TuningFile& measured, const std::string& provenance,
                                bool some_buckets, const std::string& cpu, TunedTable& table) {
  for (const internal::TuningEntry& e : measured.entries) {
    if (absl::Status s = CheckConfig(*e.variant, table); !s.ok()) return s;
  }
  std::vector<TunedTable::Entry>& entries =
      cpu.empty() ? table.entries : table.cpu_tables[cpu].entries;
  for (const internal::TuningEntry& e : measured.entries) {
    const Variant& v = *e.variant;
    TunedTable::Entry pick{internal::OpName(v.op), internal::DirectionName(v.direction),
                           internal::DtypeName(v.dtype), e.hidden_bucket, e.row_bucket,
                           v.config_index};
    bool replaced = false;
    for (TunedTable::Entry& old : entries) {
      if (old.op == pick.op && old.direction == pick.direction && old.dtype == pick.dtype &&
          old.hidden_bucket == pick.hidden_bucket && old.row_bucket == pick.row_bucket) {
        old.config = pick.config;
        replaced = true;
      }
    }
    if (!replaced) entries.push_back(pick);
  }
  auto note = [&](const std::string& earlier) {
    return some_buckets && !earlier.empty() ? absl::StrCat(earlier, "; then ", provenance)
                                            : provenance;
  };
  if (!cpu.empty()) {
    std::string& cpu_note = table.cpu_tables[cpu].provenance;
    cpu_note = note(cpu_note);
    return absl::OkStatus();
  }
  // One runtime note: a second --update_tuned replaces the first's (or follows it).
  const std::string kTable = "; table: ";
  const std::string::size_type previous = table.provenance.find(kTable);
  const std::string earlier =
      previous == std::string::npos ? "" : table.provenance.substr(previous + kTable.size());
  table.provenance = absl::StrCat(table.provenance.substr(0, previous), kTable, note(earlier));
  return absl::OkStatus();
}

}  // namespace halnorm::autotune
