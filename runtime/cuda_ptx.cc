#include "runtime/cuda_ptx.h"

#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"

namespace halnorm::internal {
namespace {

// $0: name; $1: the parameter list; $2: their registers; $3: their loads;
// $4: the body.
constexpr char kEntry[] = R"(
.visible .entry $0($1)
{
  .reg .pred %past_end, %done;
  .reg .b16 %half;
  .reg .b32 %block, %threads, %thread, %bits;
  .reg .f32 %value, %sum;
  .reg .b64 %i, %j, %k, %t, %s, %d$2;
$3
  mov.u32 %block, %ctaid.x;
  mov.u32 %threads, %ntid.x;
  mov.u32 %thread, %tid.x;
  mul.wide.u32 %i, %block, %threads;
  cvt.u64.u32 %t, %thread;
  add.u64 %i, %i, %t;
  setp.ge.u64 %past_end, %i, %count;
  @%past_end bra $0_end;
$4
$0_end:
  ret;
}
)";

constexpr unsigned int kThreads = 256;

}  // namespace

std::string PtxEntry(const std::string& name, const std::vector<std::string>& params,
                     const std::string& body) {
  std::string list, registers, loads;
  for (const std::string& p : params) {
    absl::StrAppend(&list, list.empty() ? "" : ", ", ".param .u64 ", p);
    absl::StrAppend(&registers, ", %", p);
    absl::StrAppend(&loads, "  ld.param.u64 %", p, ", [", p, "];\n");
  }
  return absl::Substitute(kEntry, name, list, registers, loads, body);
}

absl::StatusOr<CUfunction> PtxFunction(const CudaDriver& driver, CUcontext context,
                                       const std::string& ptx, const char* name, const char* what) {
  using ModuleKey = std::pair<CUcontext, const std::string*>;
  // Heap-allocated: kernels may still run while static destructors do.
  static auto* const mutex = new std::mutex;
  static auto* const modules = new std::map<ModuleKey, std::pair<absl::Status, CUmodule>>;
  static auto* const functions =
      new std::map<std::tuple<CUcontext, const std::string*, std::string>, CUfunction>;
  std::lock_guard<std::mutex> lock(*mutex);
  const ModuleKey key{context, &ptx};
  auto [module, inserted] = modules->try_emplace(key, absl::OkStatus(), nullptr);
  if (inserted) {
    module->second.first =
        CudaCheck(driver, driver.cuModuleLoadData(&module->second.second, ptx.c_str()),
                  absl::StrCat("cuModuleLoadData (", what, ")"));
  }
  if (!module->second.first.ok()) return module->second.first;
  auto [function, added] = functions->try_emplace({context, &ptx, name}, nullptr);
  if (added) {
    const absl::Status found = CudaCheck(
        driver, driver.cuModuleGetFunction(&function->second, module->second.second, name),
        absl::StrCat("cuModuleGetFunction (", what, ")"));
    if (!found.ok()) {
      functions->erase(function);
      return found;
    }
  }
  return function->second;
}

absl::Status LaunchPerElement(const CudaDriver& driver, CUfunction function, CUstream stream,
                              uint64_t count, void** params, const char* what) {
  if (count == 0) return absl::OkStatus();
  const uint64_t blocks = (count + kThreads - 1) / kThreads;
  return CudaCheck(driver,
                   driver.cuLaunchKernel(function, static_cast<unsigned int>(blocks), 1, 1,
                                         kThreads, 1, 1, 0, stream, params, nullptr),
                   absl::StrCat("cuLaunchKernel (", what, ")"));
}

}  // namespace halnorm::internal
