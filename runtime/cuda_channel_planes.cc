#include "runtime/cuda_channel_planes.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "runtime/cuda_ptx.h"

namespace halnorm::internal {
namespace {

constexpr char kExpand[] = "halnorm_expand_channels";
constexpr char kSum[] = "halnorm_sum_columns";
constexpr char kWhat[] = "channel planes";

// dst[i] = src[(i / inner) % channels].
constexpr char kExpandBody[] = R"(  div.u64 %j, %i, %inner;
  rem.u64 %j, %j, %channels;
  cvta.to.global.u64 %s, %src;
  cvta.to.global.u64 %d, %dst;
  mad.lo.u64 %s, %j, 4, %s;
  mad.lo.u64 %d, %i, 4, %d;
  ld.global.nc.f32 %value, [%s];
  st.global.f32 [%d], %value;)";

// A thread per column (count = columns) adds its rows in order: dst[i] =
// src[i * column_stride] + src[i * column_stride + row_stride] + ...
// $0: the entry's name, for its labels.
constexpr char kSumBody[] = R"(  cvta.to.global.u64 %s, %src;
  cvta.to.global.u64 %d, %dst;
  mul.lo.u64 %t, %i, %column_stride;
  mad.lo.u64 %s, %t, 4, %s;
  shl.b64 %k, %row_stride, 2;
  mov.f32 %sum, 0f00000000;
  mov.u64 %j, 0;
  setp.ge.u64 %done, %j, %rows;
  @%done bra $0_store;
$0_loop:
  ld.global.nc.f32 %value, [%s];
  add.rn.f32 %sum, %sum, %value;
  add.u64 %s, %s, %k;
  add.u64 %j, %j, 1;
  setp.lt.u64 %done, %j, %rows;
  @%done bra $0_loop;
$0_store:
  mad.lo.u64 %d, %i, 4, %d;
  st.global.f32 [%d], %sum;)";

CUdeviceptr Device(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

}  // namespace

const std::string& ChannelPlanesPtx() {
  static const std::string* const ptx = new std::string(absl::StrCat(
      kPtxHeader, PtxEntry(kExpand, {"src", "dst", "count", "inner", "channels"}, kExpandBody),
      PtxEntry(kSum, {"src", "dst", "count", "rows", "column_stride", "row_stride"},
               absl::Substitute(kSumBody, kSum))));
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
  absl::StatusOr<CUfunction> function =
      PtxFunction(driver, context, ChannelPlanesPtx(), kSum, kWhat);
  if (!function.ok()) return function.status();
  CUdeviceptr src = Device(values), dst = Device(sums);
  uint64_t count = columns, row_count = rows, column_step = column_stride, row_step = row_stride;
  void* params[] = {&src, &dst, &count, &row_count, &column_step, &row_step};
  return LaunchPerElement(driver, *function, stream, count, params, "column sums");
}

}  // namespace halnorm::internal
