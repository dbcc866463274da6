// tools/autotune: tunes halnorm's schedules for the host, or its dispatch.
//
//   bazel run //tools/autotune -- --mode=schedules [--quick]
//     JIT-compiles every schedule config (and Halide's autoschedulers) for
//     the host's target, times them on the shape-bucket grid, and writes
//     schedules/tuned/<target>.bzl (configs to build + bucket table) and
//     schedules/tuned/index.bzl. Commit them; the next build reads them.
//   bazel run //tools/autotune -- --mode=runtime --out=/path/tuning.txt
//     times the variants this build compiled (no rebuild) on the same grid
//     and writes a tuning file for HALNORM_TUNING_FILE or
//     halnorm_load_tuning_file(), timing each shape at 1 thread and at one
//     per core (--threads); with --update_tuned, also the bucket table
//     of schedules/tuned/<target>.bzl (configs unchanged) for the next build:
//     the host's own table (cpu_tables "amd_family25_model1",
//     "intel_model143"; --cpu_table picks another), or the default one on a
//     CPU that is neither Intel nor AMD.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/cpu_features.h"
#include "runtime/spinning_pool.h"
#include "tools/autotune/measured_table.h"
#include "tools/autotune/runtime_tuning.h"
#include "tools/autotune/schedule_search.h"
#include "tools/autotune/targets.h"
#include "tools/autotune/tuned_bzl.h"

ABSL_FLAG(std::string, mode, "schedules",
          "schedules: search schedule configs, write schedules/tuned/<target>.bzl; "
          "runtime: time this build's variants, write a tuning file (--out)");
ABSL_FLAG(bool, quick, false, "fewer knob values and smaller shapes (minutes, not an hour)");
ABSL_FLAG(std::string, target, "host", "TARGETS key to tune, or host (the widest this CPU runs)");
ABSL_FLAG(std::string, ops, "layer_norm,rms_norm,layer_norm2d", "ops to tune");
ABSL_FLAG(std::string, dtypes, "f32,f16,bf16", "activation dtypes to tune");
ABSL_FLAG(int, reps, 3,
          "timed rounds (>= 10 ms each) per kernel and shape, kernels interleaved; median kept");
ABSL_FLAG(int, close_reps, -1,
          "more rounds for the kernels within 10% of a shape's best, to settle near ties "
          "(default: 12, 4 with --quick)");
ABSL_FLAG(bool, autoschedulers, true, "also time Halide's Adams2019, Mullapudi2016, Li2018");
ABSL_FLAG(int, max_configs, 5, "schedules: at most this many configs per generator family");
ABSL_FLAG(std::string, timings_csv, "",
          "also write every timing to this CSV file (runtime: each variant's and dispatch's, "
          "per run and grid shape)");
ABSL_FLAG(int, runs, 1,
          "runtime: time the whole grid this many times and pick, per bucket, by each "
          "variant's geomean over the runs (near ties on a noisy machine flip between runs)");
ABSL_FLAG(std::string, merge_timings, "",
          "runtime: comma-separated --timings_csv files of this build (another machine of the "
          "target, earlier runs) whose runs join this one's for the picks; then --runs may be 0");
ABSL_FLAG(std::string, threads, "",
          "runtime: thread counts to time every shape at, e.g. 1,8 (default: 1 and one per "
          "core); each bucket's pick must serve all of them");
ABSL_FLAG(bool, update_tuned, false,
          "runtime: also write the measured picks into schedules/tuned/<target>.bzl, as the "
          "table of --cpu_table (its configs unchanged; commit it, and the next build "
          "dispatches by it on those CPUs)");
ABSL_FLAG(std::string, cpu_table, "",
          "runtime: the table --update_tuned writes: amd_family<N>_model<M> or intel_model<N> "
          "(one CPU model's), amd_family<N> (an AMD family's: for its models without a table "
          "of their own), amd or intel (the vendor's), or default (every CPU's); default: this "
          "CPU model's");
ABSL_FLAG(std::string, out, "",
          "schedules: the tuned/ directory (default: the workspace's schedules/tuned); "
          "runtime: the tuning file to write (required)");

namespace halnorm::autotune {
namespace {

// What --ops and --dtypes choose from.
constexpr internal::Op kOps[] = {internal::Op::kLayerNorm, internal::Op::kRmsNorm,
                                 internal::Op::kLayerNorm2d};
constexpr halnorm_dtype kDtypes[] = {HALNORM_F32, HALNORM_F16, HALNORM_BF16};

// --threads, for the runtime mode only: the schedule search's JIT kernels
// run on Halide's own pool, which halnorm_set_num_threads does not limit.
absl::Status ParseThreads(Scope& scope) {
  const std::string flag = absl::GetFlag(FLAGS_threads);
  if (absl::GetFlag(FLAGS_mode) != "runtime") {
    if (!flag.empty()) return absl::InvalidArgumentError("--threads: for --mode=runtime only");
    return absl::OkStatus();  // scope.threads stays {0}: every core
  }
  scope.threads.clear();
  if (flag.empty()) {
    const int cores = internal::SpinningPoolMaxThreads();  // the cores this process may use
    scope.threads = cores > 1 ? std::vector<int>{1, cores} : std::vector<int>{1};
    return absl::OkStatus();
  }
  for (absl::string_view text : absl::StrSplit(flag, ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--threads: '", text, "' is not a thread count >= 1"));
    }
    if (std::find(scope.threads.begin(), scope.threads.end(), n) == scope.threads.end()) {
      scope.threads.push_back(n);
    }
  }
  return absl::OkStatus();
}

absl::Status ParseScope(Scope& scope) {
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_ops), ',')) {
    bool known = false;
    for (internal::Op op : kOps) {
      if (name == internal::OpName(op)) scope.ops.push_back(op), known = true;
    }
    if (!known) return absl::InvalidArgumentError(absl::StrCat("--ops: unknown op ", name));
  }
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_dtypes), ',')) {
    bool known = false;
    for (halnorm_dtype dtype : kDtypes) {
      if (name == internal::DtypeName(dtype)) scope.dtypes.push_back(dtype), known = true;
    }
    if (!known) return absl::InvalidArgumentError(absl::StrCat("--dtypes: unknown dtype ", name));
  }
  scope.quick = absl::GetFlag(FLAGS_quick);
  if (absl::Status s = ParseThreads(scope); !s.ok()) return s;
  if (absl::GetFlag(FLAGS_reps) < 1) return absl::InvalidArgumentError("--reps: must be >= 1");
  if (absl::GetFlag(FLAGS_close_reps) < -1) {
    return absl::InvalidArgumentError("--close_reps: must be >= 0");
  }
  return absl::OkStatus();
}

SideBySideOptions TimingOptions() {
  SideBySideOptions timing;
  timing.rounds = absl::GetFlag(FLAGS_reps);
  const int close_reps = absl::GetFlag(FLAGS_close_reps);
  timing.extra_rounds = close_reps >= 0 ? close_reps : absl::GetFlag(FLAGS_quick) ? 4 : 12;
  return timing;
}

// "AMD EPYC (amd_family23)": /proc/cpuinfo's model name (VMs often show a
// vague one) and the CPU's most specific table key.
std::string CpuModel() {
  std::string name = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      name = line.substr(line.find(':') + 2);
      break;
    }
  }
  const std::vector<std::string>& tables = internal::HostCpuTables();
  return tables.empty() ? name : absl::StrCat(name, " (", tables.front(), ")");
}

std::string Today() {
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path.string()));
  return text.str();
}

// The workspace's schedules/tuned, where `bazel run` was started.
absl::StatusOr<std::filesystem::path> WorkspaceTunedDir(absl::string_view flag) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": needs `bazel run` (the workspace)"));
  }
  return std::filesystem::path(workspace) / "schedules" / "tuned";
}

// The workspace's schedules/tuned/<target>.bzl, read and parsed.
absl::StatusOr<TunedTable> ReadTunedTable(const std::filesystem::path& bzl) {
  absl::StatusOr<std::string> text = ReadFile(bzl);
  if (!text.ok()) return text.status();
  absl::StatusOr<TunedTable> table = ParseTunedBzl(*text);
  if (!table.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(bzl.string(), ": ", table.status().message()));
  }
  return table;
}

// The CPU tables (cpu_tables) `bzl` holds now: "amd, intel_model143", or
// "" where it has none or cannot be read.
std::string CpuTablesIn(const std::filesystem::path& bzl) {
  if (!std::filesystem::exists(bzl)) return "";
  absl::StatusOr<TunedTable> table = ReadTunedTable(bzl);
  if (!table.ok()) return "";
  std::vector<std::string> cpus;
  for (const auto& [cpu, unused] : table->cpu_tables) cpus.push_back(cpu);
  return absl::StrJoin(cpus, ", ");
}

absl::Status RunScheduleSearch(const Scope& scope, const TargetInfo& target) {
  std::filesystem::path dir = absl::GetFlag(FLAGS_out);
  if (dir.empty()) {
    absl::StatusOr<std::filesystem::path> tuned = WorkspaceTunedDir("--out");
    if (!tuned.ok()) return tuned.status();
    dir = *tuned;
  }
  if (absl::GetFlag(FLAGS_max_configs) < 1) {
    return absl::InvalidArgumentError("--max_configs: must be >= 1");
  }
  ScheduleSearchOptions options{scope,
                                target,
                                TimingOptions(),
                                /*tolerance=*/0.03,
                                absl::GetFlag(FLAGS_max_configs),
                                absl::GetFlag(FLAGS_autoschedulers)};
  const std::vector<FamilySearch> searches = SearchSchedules(options);
  std::printf("\n%s", SearchSummary(searches, options.tolerance).c_str());
  if (const std::string csv = absl::GetFlag(FLAGS_timings_csv); !csv.empty()) {
    if (absl::Status s = WriteFile(csv, TimingsCsv(searches)); !s.ok()) return s;
  }
  const std::string provenance =
      absl::StrCat("tools/autotune --mode=schedules", scope.quick ? " --quick" : "", " on ",
                   CpuModel(), ", ", Today());
  std::filesystem::create_directories(dir);
  const std::filesystem::path bzl = dir / (target.key + ".bzl");
  // New configs make the old CPU tables' picks (config indices) meaningless.
  const std::string dropped = CpuTablesIn(bzl);
  if (absl::Status s =
          WriteFile(bzl, WriteTunedBzl(ToTunedTable(searches, target.key, provenance)));
      !s.ok()) {
    return s;
  }
  if (!dropped.empty()) {
    std::printf(
        "dropped the CPU tables (%s) of the old configs: after the rebuild, run "
        "--mode=runtime --update_tuned on such a CPU to time the new ones\n",
        dropped.c_str());
  }
  std::vector<std::string> tuned;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::filesystem::path& p = entry.path();
    if (p.extension() == ".bzl" && p.stem() != "index") tuned.push_back(p.stem());
  }
  std::sort(tuned.begin(), tuned.end());
  if (absl::Status s = WriteFile(dir / "index.bzl", WriteTunedIndex(tuned)); !s.ok()) return s;
  std::printf("wrote %s and index.bzl; commit them and rebuild\n", bzl.c_str());
  return absl::OkStatus();
}

// --mode=runtime: the tuning file, and with --update_tuned the tuned table
// (read before the minutes of timing, so a missing or broken one fails at once).
absl::Status RunRuntimeMode(const Scope& scope, const TargetInfo& target) {
  std::filesystem::path bzl;
  absl::StatusOr<TunedTable> table;
  const absl::StatusOr<std::string> cpu = CpuTableToWrite(
      absl::GetFlag(FLAGS_cpu_table), absl::GetFlag(FLAGS_update_tuned), internal::HostCpuTables());
  if (!cpu.ok()) return cpu.status();
  if (absl::GetFlag(FLAGS_update_tuned)) {
    absl::StatusOr<std::filesystem::path> dir = WorkspaceTunedDir("--update_tuned");
    if (!dir.ok()) return dir.status();
    bzl = *dir / (target.key + ".bzl");
    table = ReadTunedTable(bzl);
    if (!table.ok()) return table.status();
  }
  const std::string csv = absl::GetFlag(FLAGS_timings_csv);
  std::string timings;
  const std::string merge_flag = absl::GetFlag(FLAGS_merge_timings);
  const std::vector<std::string> merge = absl::StrSplit(merge_flag, ',', absl::SkipEmpty());
  absl::StatusOr<internal::TuningFile> measured =
      RunRuntimeTuning(scope, target, TimingOptions(), absl::GetFlag(FLAGS_out),
                       absl::GetFlag(FLAGS_runs), csv.empty() ? nullptr : &timings, merge);
  if (measured.ok() && !csv.empty()) {
    if (absl::Status s = WriteFile(csv, timings); !s.ok()) return s;
  }
  if (!measured.ok() || bzl.empty()) return measured.status();
  // A run of some ops or dtypes says which: the table's other picks are an earlier run's.
  const bool some_buckets =
      scope.ops.size() < std::size(kOps) || scope.dtypes.size() < std::size(kDtypes);
  const std::string provenance = absl::StrCat(
      "tools/autotune --mode=runtime",
      some_buckets ? absl::StrCat(" --ops=", absl::GetFlag(FLAGS_ops),
                                  " --dtypes=", absl::GetFlag(FLAGS_dtypes))
                   : "",
      " --runs=", absl::GetFlag(FLAGS_runs), " --threads=", absl::StrJoin(scope.threads, ","),
      merge.empty() ? "" : absl::StrCat(" --merge_timings=", merge_flag), " on ", CpuModel(), ", ",
      Today());
  absl::Status applied = ApplyMeasuredPicks(*measured, provenance, some_buckets, *cpu, *table);
  if (!applied.ok()) return applied;
  if (absl::Status s = WriteFile(bzl, WriteTunedBzl(*table)); !s.ok()) return s;
  std::printf("wrote the measured picks into %s (%s table); commit it and rebuild\n", bzl.c_str(),
              cpu->empty() ? "default" : cpu->c_str());
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "tunes halnorm's schedules (--mode=schedules) or dispatch "
      "(--mode=runtime) on this machine");
  absl::ParseCommandLine(argc, argv);
  Scope scope;
  absl::Status status = ParseScope(scope);
  absl::StatusOr<TargetInfo> target = FindTarget(absl::GetFlag(FLAGS_target));
  if (status.ok() && !target.ok()) status = target.status();
  if (status.ok()) {
    const std::string mode = absl::GetFlag(FLAGS_mode);
    if (mode == "schedules") {
      status = RunScheduleSearch(scope, *target);
    } else if (mode == "runtime") {
      status = RunRuntimeMode(scope, *target);
    } else {
      status = absl::InvalidArgumentError("--mode: schedules or runtime");
    }
  }
  if (!status.ok()) {
    std::fprintf(stderr, "autotune: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace halnorm::autotune

int main(int argc, char** argv) { return halnorm::autotune::Main(argc, argv); }
