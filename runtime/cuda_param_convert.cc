#include "runtime/cuda_param_convert.h"

#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "runtime/cuda_ptx.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

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

}  // namespace

const std::string& ParamConvertPtx() {
  static const std::string* const ptx = [] {
    auto* text = new std::string(kPtxHeader);
    for (const Kernel& k : kKernels) {
      const bool to_f32 = k.conversion == ParamConversion::kToF32;
      // dst[i] = convert(src[i]).
      absl::StrAppend(text, PtxEntry(k.name, {"src", "dst", "count"},
                                     absl::Substitute("  cvta.to.global.u64 %s, %src;\n"
                                                      "  cvta.to.global.u64 %d, %dst;\n"
                                                      "  mad.lo.u64 %s, %i, $0, %s;\n"
                                                      "  mad.lo.u64 %d, %i, $1, %d;\n$2",
                                                      to_f32 ? 2 : 4, to_f32 ? 4 : 2, k.body)));
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
  absl::StatusOr<CUfunction> function =
      PtxFunction(driver, context, ParamConvertPtx(), kKernels[k].name, "parameter conversions");
  if (!function.ok()) return function.status();
  CUdeviceptr src_pointer = reinterpret_cast<uintptr_t>(src);
  CUdeviceptr dst_pointer = reinterpret_cast<uintptr_t>(dst);
  uint64_t elements = static_cast<uint64_t>(count);
  void* params[] = {&src_pointer, &dst_pointer, &elements};
  return LaunchPerElement(driver, *function, stream, elements, params, "parameter conversion");
}

}  // namespace halnorm::internal
