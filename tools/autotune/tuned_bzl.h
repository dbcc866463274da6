// schedules/tuned/<target>.bzl: the configs the build compiles for a target
// and the shape-bucket table the runtime dispatches by (read by
// schedules/configs.bzl and tools/bazel/halide.bzl), and index.bzl, which
// lists the tuned targets. The parser reads back what the writer writes.
#ifndef HALNORM_TOOLS_AUTOTUNE_TUNED_BZL_H_
#define HALNORM_TOOLS_AUTOTUNE_TUNED_BZL_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/autotune/search_space.h"

namespace halnorm::autotune {

struct TunedTable {
  struct Entry {
    std::string op, direction, dtype;  // "layer_norm", "fwd", "f32"
    int hidden_bucket, row_bucket;     // runtime/tuning_buckets.h
    int config;                        // index into the op's family configs
  };
  // One CPU table's picks, a vendor's or a core generation's
  // (runtime/builtin_tuning.h): on its CPUs they replace the less specific
  // tables' entries of the same buckets.
  struct CpuTable {
    std::string provenance;  // "tools/autotune --mode=runtime ... on <cpu>, <date>"
    std::vector<Entry> entries;
  };
  std::string target;      // TARGETS key: "x86_avx2"
  std::string provenance;  // "tools/autotune --mode=schedules (full) on <cpu>, <date>"
  std::vector<Config> row_norm_configs, channel_norm_configs;
  std::vector<Entry> entries;                  // the default table
  std::map<std::string, CpuTable> cpu_tables;  // by key: "amd", "amd_family23", "intel"
};

bool operator==(const TunedTable::Entry& a, const TunedTable::Entry& b);
bool operator==(const TunedTable::CpuTable& a, const TunedTable::CpuTable& b);
bool operator==(const TunedTable& a, const TunedTable& b);

std::string WriteTunedBzl(const TunedTable& table);
absl::StatusOr<TunedTable> ParseTunedBzl(absl::string_view text);

// index.bzl for the tuned targets (file stems under schedules/tuned/).
std::string WriteTunedIndex(const std::vector<std::string>& targets);

}  // namespace halnorm::autotune

#endif  // HALNORM_TOOLS_AUTOTUNE_TUNED_BZL_H_
