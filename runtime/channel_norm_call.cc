#include "runtime/channel_norm_call.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/cuda_tensors.h"
#include "runtime/dispatch.h"
#include "runtime/half_float.h"
#include "runtime/kernel_buffer.h"
#include "runtime/kernel_call.h"
#include "runtime/kernel_param.h"
#include "runtime/row_batch.h"
#include "runtime/scratch.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

// Where a per-pixel statistic ([N,H,W], f32) goes.
struct PerPixel {
  char* data;
  int64_t sample_stride;  // elements
};

// The caller's tensor, else scratch (host memory; device memory on CUDA):
// statistics the caller does not want still need somewhere to go.
absl::StatusOr<PerPixel> StatsOrScratch(const halnorm_tensor* t, int64_t pixels, int64_t hw,
                                        CudaCall* cuda, std::vector<float>& host) {
  if (t != nullptr) return PerPixel{static_cast<char*>(t->data), t->strides[0]};
  if (cuda != nullptr) {
    absl::StatusOr<float*> data = cuda->Scratch(pixels);
    if (!data.ok()) return data.status();
    return PerPixel{reinterpret_cast<char*>(*data), hw};
  }
  host.resize(pixels);
  return PerPixel{reinterpret_cast<char*>(host.data()), hw};
}

// The backward's dweight/dbias partials: (lane, c, tile, s) f32 blocks. CPU
// kernels write a block per sample, of their vector lanes and pixel tiles,
// for the runtime to sum in a fixed order; GPU kernels sum theirs on the
// device, into one (0, c, 0, 0) block per kernel call.
struct PartialLayout {
  bool device_sums = false;
  int64_t lanes = 0, tiles = 0;
};

PartialLayout PartialLayoutOf(const Variant& v, int64_t hw) {
  if (v.device != Device::kCpu) return {true, 1, 1};
  const int64_t tile = ConfigKnob(v, "pixels_per_task");
  return {false, ConfigKnob(v, "vector_width"), (hw + tile - 1) / tile};
}

// Where the kernels' dweight/dbias go, and how they reach the outputs.
class ChannelSums {
 public:
  // Host tensors: `blocks` partial blocks of c x lanes each, in host scratch.
  // HALNORM_CUDA tensors: a block per GPU kernel call (lanes = 1), added
  // on the device (CudaParamSums).
  static absl::StatusOr<ChannelSums> Make(const Args2d& a, int64_t blocks, int64_t lanes,
                                          CudaCall* cuda) {
    ChannelSums sums(a, blocks, lanes, cuda);
    const int64_t count = blocks * a.C() * lanes;
    if (cuda == nullptr) {
      sums.dweight_ = ThreadScratch(2 * count);
      sums.dbias_ = sums.dweight_ + count;
      // Allocated before the kernel writes dx: failing afterwards would
      // leave it written with an error returned.
      sums.dweight_sum_.resize(a.dweight ? a.C() : 0);
      sums.dbias_sum_.resize(a.dbias ? a.C() : 0);
      return sums;
    }
    for (auto [out, data, device] : {std::tuple{a.dweight, &sums.dweight_, &sums.dweight_cuda_},
                                     std::tuple{a.dbias, &sums.dbias_, &sums.dbias_cuda_}}) {
      absl::StatusOr<CudaParamSums> made = CudaParamSums::Make(*cuda, out, a.C(), blocks);
      if (!made.ok()) return made.status();
      device->emplace(*made);
      *data = made->blocks();
    }
    return sums;
  }

  float* dweight() const { return dweight_; }
  float* dbias() const { return dbias_; }

  // Fixed order: for each channel, the blocks in order (CPU: samples, then
  // tiles), then the lanes.
  absl::Status Finish() {
    if (cuda_ != nullptr) {
      HALNORM_RETURN_IF_ERROR(dweight_cuda_->Finish());
      return dbias_cuda_->Finish();
    }
    const int64_t c = a_.C();
    auto store = [&](const float* partial, std::vector<float>& sum, halnorm_tensor* out) {
      if (out == nullptr) return;
      for (int64_t block = 0; block < blocks_; block++) {
        for (int64_t ch = 0; ch < c; ch++) {
          for (int64_t l = 0; l < lanes_; l++) sum[ch] += partial[(block * c + ch) * lanes_ + l];
        }
      }
      StoreFromF32(sum.data(), c, *out);
    };
    store(dweight_, dweight_sum_, a_.dweight);
    store(dbias_, dbias_sum_, a_.dbias);
    return absl::OkStatus();
  }

 private:
  ChannelSums(const Args2d& a, int64_t blocks, int64_t lanes, CudaCall* cuda)
      : a_(a), blocks_(blocks), lanes_(lanes), cuda_(cuda) {}

  const Args2d& a_;
  int64_t blocks_, lanes_;
  CudaCall* cuda_;
  float* dweight_ = nullptr;
  float* dbias_ = nullptr;
  std::optional<CudaParamSums> dweight_cuda_, dbias_cuda_;
  std::vector<float> dweight_sum_, dbias_sum_;
};

}  // namespace

absl::Status ChannelNormCall(const Args2d& a, const Variant* forced) {
  const bool backward = a.dy != nullptr;
  const halnorm_tensor& x = *a.x;
  const bool on_cuda = x.device == HALNORM_CUDA;
  const int64_t n = a.N(), c = a.C(), hw = a.HW();
  const KernelRequest request{Op::kLayerNorm2d,
                              backward ? Direction::kBackward : Direction::kForward,
                              x.dtype,
                              false,
                              c,
                              n * hw,
                              x.device};
  absl::StatusOr<const Variant*> chosen = ChooseVariant(request, forced);
  if (!chosen.ok()) return chosen.status();
  // HALNORM_CUDA: the context owning x, and the legacy default stream
  // (LayerNorm2d's entry points take no options, so no cuda_stream).
  std::unique_ptr<CudaCall> cuda;
  if (on_cuda) {
    absl::StatusOr<std::unique_ptr<CudaCall>> begun = CudaCall::Begin(x, nullptr);
    if (!begun.ok()) return begun.status();
    cuda = std::move(*begun);
  }
  std::vector<float> host_mean, host_rstd;
  absl::StatusOr<PerPixel> mean = StatsOrScratch(a.mean, n * hw, hw, cuda.get(), host_mean);
  if (!mean.ok()) return mean.status();
  absl::StatusOr<PerPixel> rstd = StatsOrScratch(a.rstd, n * hw, hw, cuda.get(), host_rstd);
  if (!rstd.ok()) return rstd.status();
  const PartialLayout partials = backward ? PartialLayoutOf(**chosen, hw) : PartialLayout{};
  const int64_t sample_partials = partials.lanes * c * partials.tiles;

  // Tensors past the kernels' 32-bit offsets run in pieces of whole samples
  // (row_batch.h: a sample's channels are whole planes apart, so a piece of
  // pixels would span as much as its sample). Pixels are independent, and
  // each sample's partials go where one call over all samples puts them, so
  // the pieces change no result (GPU kernels: each piece sums its own).
  auto image_operand = [&](const char* name, const halnorm_tensor& t) {
    return PieceOperand{name, (c - 1) * t.strides[1] + hw, DtypeBytes(t.dtype), t.strides[0], 0};
  };
  PieceOperand operands[7];
  size_t count = 0;
  operands[count++] = image_operand("x", x);
  operands[count++] = image_operand(a.out_name, *a.out);
  if (backward) operands[count++] = image_operand("dy", *a.dy);
  operands[count++] = {"mean", hw, 4, mean->sample_stride, 0};
  operands[count++] = {"rstd", hw, 4, rstd->sample_stride, 0};
  if (a.weight) operands[count++] = {"weight", c, 4, 0, 0};
  if (a.bias && !backward) operands[count++] = {"bias", c, 4, 0, 0};
  const PiecePartials piece_partials = !backward ? PiecePartials{}
                                       : partials.device_sums
                                           ? PiecePartials{"x", c * 4, 0}
                                           : PiecePartials{"x", sample_partials * 4, 1};
  absl::StatusOr<PiecePlan> plan = PlanPieces(
      n, 1, c * hw, absl::MakeConstSpan(operands, count), piece_partials, KernelSpanLimit(),
      "sample", "C*H*W: AXES_C over NCHW normalizes each pixel across channels");
  if (!plan.ok()) return plan.status();
  if (on_cuda) {
    // The GPU kernels put samples on grid y (z in the backward's partials
    // walk, whose y is the channel), where a launch has at most 65535 blocks.
    if (backward && c > kCudaMaxGridYZ) {
      return absl::UnimplementedError(
          absl::StrCat("x: on HALNORM_CUDA, a LayerNorm2d backward over more than ", kCudaMaxGridYZ,
                       " channels is not supported (C = ", c,
                       "): its GPU kernels launch a block row per channel"));
    }
    plan->rows_per_piece = std::min(plan->rows_per_piece, kCudaMaxGridYZ);
  }
  const int64_t pieces = n == 0 ? 0 : (n + plan->rows_per_piece - 1) / plan->rows_per_piece;
  RecordPiecesForTesting(pieces > 1, false);

  // weight and bias reach the kernel as C f32 values; on CUDA, 16-bit ones
  // are converted on the device and all are used in place.
  ParamsF32 params{a.weight, backward ? nullptr : a.bias};
  if (on_cuda) HALNORM_RETURN_IF_ERROR(cuda->ToF32(params));
  absl::StatusOr<const void*> placeholder =
      ParamPlaceholder(cuda.get(), x, c, params.weight == nullptr || params.bias == nullptr);
  if (!placeholder.ok()) return placeholder.status();
  KernelParam weight(params.weight, c, *placeholder);
  KernelParam bias(params.bias, c, *placeholder);
  if (on_cuda) {
    MoveToCudaDevice(weight.buffer());
    MoveToCudaDevice(bias.buffer());
  }
  KernelCall call(**chosen);
  call.Bind(KernelArg::kWeight, weight.buffer())
      .Bind(KernelArg::kHasWeight, weight.present())
      .Touching((backward ? 3 : 2) * n * c * hw * DtypeBytes(x.dtype));
  if (!backward) {
    call.Bind(KernelArg::kBias, bias.buffer())
        .Bind(KernelArg::kHasBias, bias.present())
        .Bind(KernelArg::kEps, a.eps);
  }
  // The kernels write every partial, so the scratch is never cleared.
  std::optional<ChannelSums> sums;
  if (backward) {
    const int64_t blocks = partials.device_sums ? pieces : partials.tiles * n;
    absl::StatusOr<ChannelSums> made = ChannelSums::Make(a, blocks, partials.lanes, cuda.get());
    if (!made.ok()) return made.status();
    sums.emplace(std::move(*made));
  }

  const halide_type_t act = HalideType(x.dtype), f32 = HalideType(HALNORM_F32);
  auto on_device = [&](KernelBuffer& buffer) {
    if (on_cuda) MoveToCudaDevice(buffer.get());
    return buffer.get();
  };
  for (int64_t first = 0; first < n; first += plan->rows_per_piece) {
    const int64_t samples = std::min(plan->rows_per_piece, n - first);
    auto image = [&](const halnorm_tensor& t, KernelBuffer& buffer) {
      buffer.Set(static_cast<char*>(t.data) + first * t.strides[0] * DtypeBytes(t.dtype), act,
                 {{hw, 1},
                  {c, KernelStride(c, t.strides[1])},
                  {samples, KernelStride(samples, t.strides[0])}});
      return on_device(buffer);
    };
    auto stats = [&](const PerPixel& p, KernelBuffer& buffer) {
      buffer.Set(p.data + first * p.sample_stride * 4, f32,
                 {{hw, 1}, {1, 0}, {samples, KernelStride(samples, p.sample_stride)}});
      return on_device(buffer);
    };
    KernelBuffer x_buf, out_buf, dy_buf, mean_buf, rstd_buf, dw_buf, db_buf;
    call.Bind(KernelArg::kX, image(x, x_buf))
        .Bind(backward ? KernelArg::kDx : KernelArg::kY, image(*a.out, out_buf))
        .Bind(KernelArg::kMean, stats(*mean, mean_buf))
        .Bind(KernelArg::kRstd, stats(*rstd, rstd_buf));
    if (backward) {
      // The piece's blocks: those of its samples, or (GPU) its own one.
      const int64_t lanes = partials.lanes;
      const int64_t block_samples = partials.device_sums ? 1 : samples;
      const int64_t offset =
          partials.device_sums ? first / plan->rows_per_piece * c : first * sample_partials;
      const std::initializer_list<DimSpec> partial_dims = {
          {lanes, 1}, {c, lanes}, {partials.tiles, lanes * c}, {block_samples, sample_partials}};
      dw_buf.Set(sums->dweight() + offset, f32, partial_dims);
      db_buf.Set(sums->dbias() + offset, f32, partial_dims);
      call.Bind(KernelArg::kDy, image(*a.dy, dy_buf))
          .Bind(KernelArg::kDweightPartial, on_device(dw_buf))
          .Bind(KernelArg::kDbiasPartial, on_device(db_buf));
    }
    HALNORM_RETURN_IF_ERROR(call.Run());
  }
  return backward ? sums->Finish() : absl::OkStatus();
}

}  // namespace halnorm::internal
