#include "runtime/cuda_param_convert.h"

#include <array>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "runtime/status.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

// One kernel per conversion: dst[i] = convert(src[i]) for i < count, a
// thread per element. $0: name; $1, $2: src and dst element bytes; $3: the
// load, conversion and store of element i.
constexpr char kKernel[] = R"(
.visible .entry $0(.param .u64 src, .param .u64 dst, .param .u64 count)
{
  .reg .pred %past_end;
  .reg .b16 %half;
  .reg .b32 %block, %threads, %thread, %bits;
  .reg .f32 %value;
  .reg .b64 %i, %t, %n, %s, %d;
  ld.param.u64 %s, [src];
  ld.param.u64 %d, [dst];
  ld.param.u64 %n, [count];
  mov.u32 %block, %ctaid.x;
  mov.u32 %threads, %ntid.x;
  mov.u32 %thread, %tid.x;
  mul.wide.u32 %i, %block, %threads;
  cvt.u64.u32 %t, %thread;
  add.u64 %i, %i, %t;
  setp.ge.u64 %past_end, %i, %n;
  @%past_end bra $0_end;
  cvta.to.global.u64 %s, %s;
  cvta.to.global.u64 %d, %d;
  mad.lo.u64 %s, %i, $1, %s;
  mad.lo.u64 %d, %i, $2, %d;
$3
$0_end:
  ret;
}
)";

struct Kernel {
  halnorm_dtype dtype;
  ParamConversion conversion;
  const char* name;
  const char* body;
};

constexpr Kernel kKernels[] = {
    {HALNORM_F16, ParamConversion::kToF32, "halnorm_f16_to_f32",
     "  ld.global.nc.b16 %half, [%s];\n"
     "  cvt.f32.f16 %value, %half;\n"
     "  st.global.f32 [%d], %value;"},
    {HALNORM_BF16, ParamConversion::kToF32, "halnorm_bf16_to_f32",
     "  ld.global.nc.b16 %half, [%s];\n"
     "  cvt.u32.u16 %bits, %half;\n"
     "  shl.b32 %bits, %bits, 16;\n"
     "  mov.b32 %value, %bits;\n"
     "  st.global.f32 [%d], %value;"},
    {HALNORM_F16, ParamConversion::kFromF32, "halnorm_f32_to_f16",
     "  ld.global.nc.f32 %value, [%s];\n"
     "  cvt.rn.f16.f32 %half, %value;\n"
     "  st.global.b16 [%d], %half;"},
    {HALNORM_BF16, ParamConversion::kFromF32, "halnorm_f32_to_bf16",
     "  ld.global.nc.f32 %value, [%s];\n"
     "  cvt.rn.bf16.f32 %half, %value;\n"
     "  st.global.b16 [%d], %half;"},
};

constexpr int kThreads = 256;

// The module's functions in `context`, loaded on first use there (a module
// belongs to one context) and kept: a few hundred bytes of code.
absl::StatusOr<const CUfunction*> FunctionsIn(const CudaDriver& driver, CUcontext context) {
  using Functions = std::pair<absl::Status, std::array<CUfunction, std::size(kKernels)>>;
  // Heap-allocated: kernels may still run while static destructors do.
  static auto* const mutex = new std::mutex;
  static auto* const loaded = new std::map<CUcontext, Functions>;
  std::lock_guard<std::mutex> lock(*mutex);
  auto [it, inserted] = loaded->try_emplace(context);
  Functions& functions = it->second;
  if (inserted) {
    CUmodule module = nullptr;
    functions.first = CudaCheck(driver, driver.cuModuleLoadData(&module, ParamConvertPtx().c_str()),
                                "cuModuleLoadData (parameter conversions)");
    for (size_t k = 0; k < std::size(kKernels) && functions.first.ok(); k++) {
      functions.first = CudaCheck(
          driver, driver.cuModuleGetFunction(&functions.second[k], module, kKernels[k].name),
          "cuModuleGetFunction (parameter conversions)");
    }
  }
  if (!functions.first.ok()) return functions.first;
  return functions.second.data();
}

}  // namespace

const std::string& ParamConvertPtx() {
  static const std::string* const ptx = [] {
    auto* text = new std::string(".version 7.0\n.target sm_80\n.address_size 64\n");
    for (const Kernel& k : kKernels) {
      const bool to_f32 = k.conversion == ParamConversion::kToF32;
      absl::StrAppend(text,
                      absl::Substitute(kKernel, k.name, to_f32 ? 2 : 4, to_f32 ? 4 : 2, k.body));
    }
    return text;
  }();
  return *ptx;
}

absl::Status ConvertParamOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                                halnorm_dtype dtype, ParamConversion conversion, const void* src,
                                void* dst, int64_t count) {
  size_t k = 0;
  while (k < std::size(kKernels) &&
         (kKernels[k].dtype != dtype || kKernels[k].conversion != conversion)) {
    k++;
  }
  if (k == std::size(kKernels)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no CUDA parameter conversion for ", DtypeName(dtype)));
  }
  if (count == 0) return absl::OkStatus();
  absl::StatusOr<const CUfunction*> functions = FunctionsIn(driver, context);
  if (!functions.ok()) return functions.status();
  CUdeviceptr src_pointer = reinterpret_cast<uintptr_t>(src);
  CUdeviceptr dst_pointer = reinterpret_cast<uintptr_t>(dst);
  uint64_t elements = static_cast<uint64_t>(count);
  void* params[] = {&src_pointer, &dst_pointer, &elements};
  const uint64_t blocks = (elements + kThreads - 1) / kThreads;
  return CudaCheck(driver,
                   driver.cuLaunchKernel((*functions)[k], static_cast<unsigned int>(blocks), 1, 1,
                                         kThreads, 1, 1, 0, stream, params, nullptr),
                   "cuLaunchKernel (parameter conversion)");
}

}  // namespace halnorm::internal
