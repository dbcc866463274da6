#include "tools/autotune/jit_kernel.h"

#include <dlfcn.h>
#include <unistd.h>

#include <exception>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace halnorm::autotune {
namespace {

// Where the Debian package puts the autoscheduler plugins: next to
// libHalide's own directory, under halide14/.
std::string PluginDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Halide::load_plugin), &info) == 0 || !info.dli_fname) {
    return "";
  }
  std::string lib = info.dli_fname;
  return lib.substr(0, lib.rfind('/') + 1) + "halide14/";
}

std::string ConfigString(const std::map<std::string, std::string>& params) {
  return absl::StrJoin(params, " ", absl::PairFormatter("="));
}

thread_local std::string last_jit_error;

void RecordJitError(void*, const char* message) { last_jit_error = message; }

// A failing JIT kernel (an autoscheduled one that writes outside a buffer)
// must come back as an error code: the JIT runtime's default handler aborts.
// Its runtime is shared by every JIT module, so setting it through any
// module reaches them all.
void InstallJitErrorHandler(const Halide::Internal::JITModule& module) {
  using SetErrorHandler = halide_error_handler_t (*)(halide_error_handler_t);
  void* set = module.find_symbol_by_name("halide_set_error_handler").address;
  if (set != nullptr) reinterpret_cast<SetErrorHandler>(set)(&RecordJitError);
}

}  // namespace

std::string TakeLastJitError() {
  std::string message;
  message.swap(last_jit_error);
  return message;
}

absl::Status LoadAutoschedulers() {
  static const absl::Status loaded = [] {
    const std::string dir = PluginDirectory();
    for (const char* plugin : {"libautoschedule_adams2019.so", "libautoschedule_mullapudi2016.so",
                               "libautoschedule_li2018.so"}) {
      try {
        Halide::load_plugin(dir + plugin);
      } catch (const std::exception& e) {
        return absl::NotFoundError(absl::StrCat("loading ", dir, plugin, ": ", e.what()));
      }
    }
    return absl::OkStatus();
  }();
  return loaded;
}

absl::StatusOr<std::unique_ptr<JitKernel>> JitKernel::Compile(const KernelSpec& spec) {
  std::unique_ptr<JitKernel> kernel(new JitKernel);
  kernel->config_ = spec.autoscheduler.empty() ? ConfigString(spec.params)
                                               : absl::StrCat("autoscheduler=", spec.autoscheduler);
  kernel->name_ = absl::StrCat("jit_", spec.generator, "[", kernel->config_, "]");
  const std::string function = "jit_kernel";
  try {
    Halide::Target target(spec.halide_target);
    // Same float semantics as the compiled-in kernels (tools/bazel/halide.bzl).
    target.set_feature(Halide::Target::StrictFloat);
    // JIT: the kernel links against the one shared JIT runtime (thread pool,
    // error handler) instead of carrying a private copy of it.
    target.set_feature(Halide::Target::JIT);
    const bool autoschedule = !spec.autoscheduler.empty();
    // Without asserts, as the compiled-in row-norm CPU kernels are
    // (UNCHECKED_GENERATORS in tools/bazel/halide.bzl); the autoschedulers'
    // pipelines keep them: they may heap-allocate.
    const bool row_norm = absl::StartsWith(spec.generator, "row_norm_");
    if (row_norm && !autoschedule && !target.has_gpu_feature()) {
      target.set_feature(Halide::Target::NoAsserts);
    }
    if (autoschedule) {
      absl::Status plugins = LoadAutoschedulers();
      if (!plugins.ok()) return plugins;
      Halide::Pipeline::set_default_autoscheduler_name(spec.autoscheduler);
    }
    // The machine as the autoschedulers should see it: this host's cores and LLC.
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const Halide::MachineParams machine(static_cast<int>(std::thread::hardware_concurrency()),
                                        llc > 0 ? llc : 8 << 20, 40);
    auto generator = Halide::Internal::GeneratorRegistry::create(
        spec.generator, Halide::GeneratorContext(target, autoschedule, machine));
    Halide::Internal::GeneratorParamsMap params;
    for (const auto& [k, v] : spec.params) params[k] = v;
    generator->set_generator_param_values(params);
    Halide::Module module = generator->build_module(function);
    const Halide::Internal::LoweredFunc lowered = module.get_function_by_name(function);
    kernel->module_ = Halide::Internal::JITModule(module, lowered);
    InstallJitErrorHandler(kernel->module_);
    for (const Halide::Internal::LoweredArgument& arg : lowered.args) {
      // Outputs are named after their Funcs, which Halide uniquifies per
      // process ("y$1" for the second generator built): the runtime binds "y".
      kernel->arg_names_.push_back(arg.name.substr(0, arg.name.find('$')));
    }
    for (size_t i = 0; i < lowered.args.size(); i++) {
      const Halide::Internal::LoweredArgument& arg = lowered.args[i];
      halide_filter_argument_t a{};
      a.name = kernel->arg_names_[i].c_str();
      a.kind = static_cast<int32_t>(arg.kind);
      a.dimensions = arg.dimensions;
      a.type = arg.type;
      kernel->args_.push_back(a);
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(kernel->name_, ": ", e.what()));
  }
  kernel->metadata_.version = halide_filter_metadata_t::VERSION;
  kernel->metadata_.num_arguments = static_cast<int32_t>(kernel->args_.size());
  kernel->metadata_.arguments = kernel->args_.data();
  kernel->metadata_.target = spec.fits.target;
  kernel->metadata_.name = kernel->name_.c_str();

  internal::Variant& v = kernel->variant_;
  v = spec.fits;
  v.name = kernel->name_.c_str();
  v.config = kernel->config_.c_str();
  // The JIT's argv entry point has Halide's AOT argv signature.
  v.argv = reinterpret_cast<int (*)(void**)>(kernel->module_.argv_function());
  v.streaming_argv = nullptr;  // the compiled variant's twin is not this kernel's
  v.metadata = &kernel->metadata_;
  v.slots = internal::SlotsOf(kernel->metadata_);
  return kernel;
}

}  // namespace halnorm::autotune
