// A runtime tuning file: a dispatch table measured on the user's machine for
// one build of this library (tools/autotune's runtime mode writes it;
// HALNORM_TUNING_FILE and halnorm_load_tuning_file read it). Text:
//
//   # comments start with '#'; blank lines and extra spaces are ignored
//   halnorm-tuning 1
//   fingerprint 0x3b1f0c9a5e77d012
//   # op direction dtype target hidden_bucket row_bucket variant
//   layer_norm fwd f32 x86_avx2 1 0 layer_norm_fwd_f32__x86_avx2_c1
//
// Buckets are those of runtime/tuning_buckets.h. The fingerprint is
// LibraryFingerprint() of the build it was tuned for: variant names alone do
// not say which knobs a config had, so a file from another build is refused.
#ifndef HALNORM_RUNTIME_TUNING_FILE_H_
#define HALNORM_RUNTIME_TUNING_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tuning_table.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {

// Calls of `variant`'s op, direction and dtype on its target, in these
// buckets, run its config; for a forward entry the fused-residual calls too.
struct TuningEntry {
  int hidden_bucket;       // HiddenBucket(op, ...)
  int row_bucket;          // RowBucket()
  const Variant* variant;  // from AllVariants(), not a fused-residual one

  bool operator==(const TuningEntry& other) const {
    return hidden_bucket == other.hidden_bucket && row_bucket == other.row_bucket &&
           variant == other.variant;
  }
};

struct TuningFile {
  std::vector<TuningEntry> entries;  // at most one per key, in file order

  // The file text: header, this library's fingerprint, one line per entry.
  std::string ToText() const;

  // The entries of `text`, checked against this library. Errors name the
  // line and the fault: "line 4: unknown variant layer_norm_fwd_f32__x86_avx2_c7".
  static absl::StatusOr<TuningFile> Parse(std::string_view text);

  // The entries as a dispatch table (VariantIndex target numbering).
  TuningTable ToTable() const;
};

// FNV-1a over every variant's name and config string, in registry order.
uint64_t LibraryFingerprint();

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_TUNING_FILE_H_
