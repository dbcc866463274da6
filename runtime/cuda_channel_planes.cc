#include "runtime/cuda_channel_planes.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/cuda_ptx.h"

namespace halnorm::internal {
namespace {

constexpr char kExpand[] = "halnorm_expand_channels";
constexpr char kSum[] = "halnorm_sum_columns";
constexpr char kWhat[] = "channel planes";

CUdeviceptr Device(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

}  // namespace

const std::string& ChannelPlanesPtx() {
  static const std::string* const ptx = new std::string(absl::StrCat(
      kPtxHeader,
      PtxEntry(kExpand, {"src", "dst", "count", "inner", "channels"},
               "  div.u64 %j, %i, %inner;\n"
               "  rem.u64 %j, %j, %channels;\n"
               "  cvta.to.global.u64 %s, %src;\n"
               "  cvta.to.global.u64 %d, %dst;\n"
               "  mad.lo.u64 %s, %j, 4, %s;\n"
               "  mad.lo.u64 %d, %i, 4, %d;\n"
               "  ld.global.nc.f32 %value, [%s];\n"
               "  st.global.f32 [%d], %value;"),
      // A thread per column (count = columns) walks its rows in order.
      PtxEntry(kSum, {"src", "dst", "count", "rows", "column_stride", "row_stride"},
               absl::StrCat("  cvta.to.global.u64 %s, %src;\n"
                            "  cvta.to.global.u64 %d, %dst;\n"
                            "  mul.lo.u64 %t, %i, %column_stride;\n"
                            "  mad.lo.u64 %s, %t, 4, %s;\n"
                            "  shl.b64 %k, %row_stride, 2;\n"
                            "  mov.f32 %sum, 0f00000000;\n"
                            "  mov.u64 %j, 0;\n"
                            "  setp.ge.u64 %done, %j, %rows;\n"
                            "  @%done bra ",
                            kSum, "_store;\n", kSum,
                            "_loop:\n"
                            "  ld.global.nc.f32 %value, [%s];\n"
                            "  add.rn.f32 %sum, %sum, %value;\n"
                            "  add.u64 %s, %s, %k;\n"
                            "  add.u64 %j, %j, 1;\n"
                            "  setp.lt.u64 %done, %j, %rows;\n"
                            "  @%done bra ",
                            kSum, "_loop;\n", kSum,
                            "_store:\n"
                            "  mad.lo.u64 %d, %i, 4, %d;\n"
                            "  st.global.f32 [%d], %sum;"))));
  return *ptx;
}

absl::Status ExpandChannelsOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                                  const float* values, float* plane, int64_t count, int64_t inner,
                                  int64_t channels) {
  if (count == 0) return absl::OkStatus();
  absl::StatusOr<CUfunction> function =
      PtxFunction(driver, context, ChannelPlanesPtx(), kExpand, kWhat);
  if (!function.ok()) return function.status();
  CUdeviceptr src = Device(values), dst = Device(plane);
  uint64_t n = count, per = inner, c = channels;
  void* params[] = {&src, &dst, &n, &per, &c};
  return LaunchPerElement(driver, *function, stream, n, params, "channel expansion");
}

absl::Status SumColumnsOnCuda(const CudaDriver& driver, CUcontext context, CUstream stream,
                              const float* values, float* sums, int64_t columns, int64_t rows,
                              int64_t column_stride, int64_t row_stride) {
  if (columns == 0) return absl::OkStatus();
  absl::StatusOr<CUfunction> function = PtxFunction(driver, context, ChannelPlanesPtx(), kSum, kWhat);
  if (!function.ok()) return function.status();
  CUdeviceptr src = Device(values), dst = Device(sums);
  uint64_t count = columns, row_count = rows, column_step = column_stride, row_step = row_stride;
  void* params[] = {&src, &dst, &count, &row_count, &column_step, &row_step};
  return LaunchPerElement(driver, *function, stream, count, params, "column sums");
}

}  // namespace halnorm::internal
