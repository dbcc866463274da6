// LayerNorm / RMSNorm backward: checks, the dx kernel with its per-chunk
// dweight/dbias partials, then the partials summed in a fixed order.
#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/call_memo.h"
#include "runtime/cuda_dispatch.h"
#include "runtime/cuda_tensors.h"
#include "runtime/dispatch.h"
#include "runtime/dispatch_tuning.h"
#include "runtime/feature_layout.h"
#include "runtime/half_float.h"
#include "runtime/kernel_buffer.h"
#include "runtime/kernel_call.h"
#include "runtime/kernel_param.h"
#include "runtime/row_batch.h"
#include "runtime/row_norm.h"
#include "runtime/row_norm_checks.h"
#include "runtime/row_prefetch.h"
#include "runtime/scratch.h"
#include "runtime/status.h"
#include "runtime/streaming_stores.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {
namespace {

struct BackwardArgs {
  Op op;
  const halnorm_tensor* dy;
  const halnorm_tensor* x;
  const halnorm_tensor* mean;  // LayerNorm only
  const halnorm_tensor* rstd;
  const halnorm_tensor* weight;  // nullable
  halnorm_norm_options opt;      // residual: gradient arriving at residual_out
  halnorm_tensor* dx;
  halnorm_tensor* dweight;  // nullable
  halnorm_tensor* dbias;    // nullable; LayerNorm only
  // LayerNorm2d over CHW or HW: each row's place in a [C][per_channel]
  // plane of layout `channels` (CheckParamRows; weight, when given, is that
  // plane's values), and dweight/dbias per channel. Null: per feature.
  const halnorm_tensor* plane_rows = nullptr;
  const FeatureLayout* channels = nullptr;
};

absl::Status CheckDisjoint(const BackwardArgs& a) {
  const NamedTensor outputs[] = {{"dx", a.dx}, {"dweight", a.dweight}, {"dbias", a.dbias}};
  const NamedTensor inputs[] = {{"dy", a.dy},         {"x", a.x},
                                {"mean", a.mean},     {"rstd", a.rstd},
                                {"weight", a.weight}, {"opt->residual", a.opt.residual}};
  return CheckOutputsDisjoint(outputs, inputs);
}

absl::Status Check(const BackwardArgs& a, const RowGeometry& g) {
  const halnorm_tensor& x = *a.x;
  HALNORM_RETURN_IF_ERROR(CheckContiguousFrom(x, "x", g.leading));
  HALNORM_RETURN_IF_ERROR(CheckLikeX(a.dy, "dy", x, g));
  HALNORM_RETURN_IF_ERROR(CheckLikeX(a.dx, "dx", x, g));
  if (a.op == Op::kLayerNorm) HALNORM_RETURN_IF_ERROR(CheckPerRow(a.mean, "mean", x, g));
  HALNORM_RETURN_IF_ERROR(CheckPerRow(a.rstd, "rstd", x, g));
  if (a.opt.residual) HALNORM_RETURN_IF_ERROR(CheckLikeX(a.opt.residual, "opt->residual", x, g));
  if (a.opt.residual_out) {
    return InvalidArgument("opt->residual_out: not used by the backward pass; pass null");
  }
  if (a.channels != nullptr) {
    // LayerNorm2d has checked dweight and dbias as per-channel parameters.
    if (x.device != HALNORM_CPU) return absl::InternalError("per-channel sums: host tensors only");
    HALNORM_RETURN_IF_ERROR(CheckParamRows(a.plane_rows, x, g));
  } else {
    if (a.weight) HALNORM_RETURN_IF_ERROR(CheckPerFeature(a.weight, "weight", x, g));
    if (a.dweight) HALNORM_RETURN_IF_ERROR(CheckPerFeature(a.dweight, "dweight", x, g));
    if (a.dbias) HALNORM_RETURN_IF_ERROR(CheckPerFeature(a.dbias, "dbias", x, g));
  }
  if (g.hidden == 0) return InvalidArgument("x: the normalized dims are empty");
  return CheckDisjoint(a);
}

// A call whose geometry passed Check() before (call_memo.h): the checks
// that depend on the data pointers and the options' values, in Check()'s order.
absl::Status CheckDataAndScalars(const BackwardArgs& a) {
  HALNORM_RETURN_IF_ERROR(CheckTensorData(*a.x, "x"));
  HALNORM_RETURN_IF_ERROR(CheckOptionScalars(a.opt));
  const NamedTensor others[] = {{"dy", a.dy},         {"dx", a.dx},
                                {"mean", a.mean},     {"rstd", a.rstd},
                                {"opt->residual", a.opt.residual},
                                {"weight", a.weight}, {"dweight", a.dweight},
                                {"dbias", a.dbias}};
  for (const auto& [name, t] : others) {
    if (t != nullptr) HALNORM_RETURN_IF_ERROR(CheckTensorData(*t, name));
  }
  return CheckDisjoint(a);
}

// What a CPU backward works out from its geometry (call_memo.h): as the
// forward's (row_norm_forward.cc), for the backward's tensors.
struct BackwardKey {
  int32_t op, normalized_rank;
  const DispatchTuning* tuning;
  TensorGeometry dy, x, mean, rstd, weight, residual, residual_out, dx, dweight, dbias;
};

struct BackwardPlan {
  const Variant* variant;
  RowBatch::Layout layout;  // its plan's rows_per_slot: the chunk rows
};

thread_local CallMemo<BackwardKey, BackwardPlan> backward_plans;

BackwardKey KeyOf(const BackwardArgs& a) {
  return {static_cast<int32_t>(a.op),
          a.opt.normalized_rank,
          &CurrentDispatchTuning(),
          TensorGeometry::Of(a.dy),
          TensorGeometry::Of(a.x),
          TensorGeometry::Of(a.mean),
          TensorGeometry::Of(a.rstd),
          TensorGeometry::Of(a.weight),
          TensorGeometry::Of(a.opt.residual),
          TensorGeometry::Of(a.opt.residual_out),
          TensorGeometry::Of(a.dx),
          TensorGeometry::Of(a.dweight),
          TensorGeometry::Of(a.dbias)};
}

// Rows per dweight/dbias chunk (a chunk is a parallel task). At most what
// keeps a chunk's dy and x rows (read again for the partials) in a 256 KiB
// slice of L2 (but at least 16 rows). Within that, rows/8, so a batch splits
// into up to 8 tasks, but never below 8 rows or 64 KiB of dy and x: every
// chunk writes and the runtime sums one more pair of hidden-sized partials
// (with 2-row chunks that was 2/3 more traffic than the rows themselves:
// LayerNorm f32 16x16384, 2 threads, 250 us a call vs 112 us with 8-row
// chunks), and a task of a few microseconds does not repay handing it to
// another thread (bf16 16x768, 2 threads, as one 16-row chunk: 21 GB/s; as
// 11 + 5 rows: 12 GB/s). The floor was 256 KiB, which ran small calls as one
// task; at 64 KiB, 2 threads (report_runner, GB/s): LayerNorm bf16 16x4096
// 26 -> 39, 16x2048 26 -> 33, 512x128 17 -> 24; f32 16x1024 47 -> 60; 1
// thread, f32 512x128 33 -> 37. Never more than the rows there are: the
// kernel walks a chunk's row groups up to the chunk size, empty ones
// included. That cost the configs with one-row groups most: LayerNorm bf16
// backward, 1 thread, configs c1 and c3 (report_runner, GB/s) 1x128 0.70-0.75
// -> 1.00, 16x128 7.8 -> 9.2, level with the table's c4 (16-row groups),
// which did not change. A batch that would be one chunk of at least 8 rows
// and 1 MiB of dy and x splits in two, so that two threads share it (f32, 2
// threads, us a call: LayerNorm 8x16384 110 -> 64-72; 8x150528, LayerNorm2d
// over CHW at 8x192x28x28, 2200-2370 -> 1096-1168; 1 thread within noise).
// Depends on the shape only, never on the thread count: that is what makes
// the sums deterministic.
int RowsPerChunk(int64_t rows, int64_t hidden, halnorm_dtype dtype) {
  constexpr int64_t kL2SliceBytes = 262144, kMinChunkBytes = 65536, kMinRows = 8;
  constexpr int64_t kSplitBytes = 1 << 20;
  const int64_t row_bytes = 2 * hidden * DtypeBytes(dtype);
  const int64_t fits_l2 = std::clamp<int64_t>(kL2SliceBytes / row_bytes, 16, 1024);
  const int64_t min_rows = std::max(kMinRows, (kMinChunkBytes + row_bytes - 1) / row_bytes);
  const int64_t wanted = std::max((rows + 7) / 8, min_rows);
  const int64_t chunk = std::max<int64_t>(1, std::min({fits_l2, wanted, rows}));
  if (chunk == rows && rows >= kMinRows && rows * row_bytes >= kSplitBytes) return (rows + 1) / 2;
  return static_cast<int>(chunk);
}

// Adds the `count / hidden` partials (n, slot, b, outer), in that fixed
// order, into the first one, and stores that into `out`.
void StoreSumOfPartials(float* partials, int64_t count, int64_t hidden, const halnorm_tensor& out) {
  float* sum = partials;
  for (int64_t base = hidden; base < count; base += hidden) {
    const float* partial = partials + base;
    for (int64_t n = 0; n < hidden; n++) sum[n] += partial[n];
  }
  StoreFromF32(sum, hidden, out);
}

// Per-channel dweight and dbias (BackwardArgs::channels) from the CPU
// kernel's partials (n, slot, b, outer), added in that fixed order. Every row
// of a slot has the same plane row (FoldOrderedBy, one-row chunks), at the
// weight's offset of the slot's first row. `sums`: 2 * C zeros, allocated
// before the kernel wrote any output.
void StoreChannelSums(const BackwardArgs& a, const RowBatch& batch, int64_t hidden,
                      int64_t rows_per_chunk, int64_t slots, const float* dweight_partials,
                      const float* dbias_partials, float* sums) {
  const FeatureLayout& at = *a.channels;
  // The weight's strides: a slot's first row's place in the plane.
  const int64_t r_stride = batch.folded_stride(0, KernelArg::kWeight);
  const int64_t b_stride = batch.folded_stride(1, KernelArg::kWeight);
  const int64_t outer_stride = batch.folded_stride(2, KernelArg::kWeight);
  for (auto [out, partials, channel_sums] : {std::tuple{a.dweight, dweight_partials, sums},
                                             {a.dbias, dbias_partials, sums + at.channels}}) {
    if (out == nullptr) continue;
    const float* partial = partials;
    for (int64_t outer = 0; outer < batch.outer_extent(); outer++) {
      for (int64_t line = 0; line < batch.folded_extent(1); line++) {
        for (int64_t slot = 0; slot < slots; slot++, partial += hidden) {
          const int64_t first =
              outer * outer_stride + line * b_stride + slot * rows_per_chunk * r_stride;
          at.AddToChannelSums(partial, first, hidden, channel_sums);
        }
      }
    }
    StoreFromF32(channel_sums, at.channels, *out);
  }
}

// GPU kernels sum their chunk partials themselves. Chunks of at least 32
// rows keep those partials under a tenth of the traffic; up to 1024 of them
// keep each chunk's walk short for tall inputs, and the kernels' two-level
// sum walks at most 32 of them a thread.
int GpuRowsPerChunk(int64_t rows) {
  constexpr int64_t kMinRows = 32, kChunks = 1024;
  return static_cast<int>(std::max(kMinRows, (rows + kChunks - 1) / kChunks));
}

absl::Status Backward(const BackwardArgs& a, const Variant* variant) {
  // LayerNorm2d's calls (channels) have planes and sums of their own.
  const bool memoizable = MemoApplies(a.x, variant) && a.channels == nullptr;
  BackwardKey key;
  const BackwardPlan* remembered = nullptr;
  if (memoizable) {
    key = KeyOf(a);
    remembered = backward_plans.Find(key);
  }
  if (remembered != nullptr) {
    HALNORM_RETURN_IF_ERROR(CheckDataAndScalars(a));
  } else {
    HALNORM_RETURN_IF_ERROR(CheckInputAndOptions(a.x, "x", a.opt));
  }
  const RowGeometry g = GeometryOf(*a.x, a.opt);
  if (remembered == nullptr) HALNORM_RETURN_IF_ERROR(Check(a, g));
  const bool on_cuda = a.x->device == HALNORM_CUDA;
  RowBatch batch(g.hidden, g.leading_extents);
  const int vector_alignment =  // only CUDA dispatch reads it
      on_cuda ? RowVectorAlignment(g.hidden, g.leading, {a.dy, a.x, a.dx, a.opt.residual}) : 1;
  const KernelRequest request{a.op,     Direction::kBackward, a.x->dtype,  false,
                              g.hidden, batch.rows(),         a.x->device, vector_alignment};
  absl::StatusOr<const Variant*> chosen =
      remembered ? remembered->variant : ChooseVariant(request, variant);
  if (!chosen.ok()) return chosen.status();
  std::unique_ptr<CudaCall> cuda;
  if (on_cuda) {
    absl::StatusOr<std::unique_ptr<CudaCall>> begun = CudaCall::Begin(*a.x, a.opt.cuda_stream);
    if (!begun.ok()) return begun.status();
    cuda = std::move(*begun);
    batch.PlaceOnCuda();
  }
  // Values per parameter gradient.
  const int64_t param_count = a.channels ? a.channels->channels : g.hidden;
  if (batch.rows() == 0) {
    // No rows: the parameter gradients are zero.
    const std::vector<float> zeros(param_count, 0.f);
    for (halnorm_tensor* t : {a.dweight, a.dbias}) {
      if (t == nullptr) continue;
      if (on_cuda) {
        HALNORM_RETURN_IF_ERROR(cuda->Zero(t->data, param_count * DtypeBytes(t->dtype)));
      } else {
        StoreFromF32(zeros.data(), param_count, *t);
      }
    }
    return absl::OkStatus();
  }
  batch.AddRows(KernelArg::kDy, *a.dy, "dy");
  batch.AddRows(KernelArg::kX, *a.x, "x");
  batch.AddRows(KernelArg::kDx, *a.dx, "dx");
  // Without a residual gradient, dy stands in (never read: has_dresidual).
  if (a.opt.residual) {
    batch.AddRows(KernelArg::kDresidual, *a.opt.residual, "opt->residual");
  } else {
    batch.AddRows(KernelArg::kDresidual, *a.dy, "dy");
  }
  if (a.op == Op::kLayerNorm) batch.AddPerRow(KernelArg::kMean, a.mean, "mean");
  batch.AddPerRow(KernelArg::kRstd, a.rstd, "rstd");
  // The weight is indexed by row too (the kernel's (n, r, b)), every row
  // reading the same values. CPU tensors: the offset is folded into the f32
  // weight here; CUDA weights are used in place (16-bit ones converted on
  // the device) and the kernel adds it (weight_offset).
  const halnorm_tensor* weight_f32 = a.weight;
  halnorm_tensor weight_scratch;
  if (on_cuda) {
    absl::StatusOr<const halnorm_tensor*> f32 = cuda->AsF32(a.weight, &weight_scratch);
    if (!f32.ok()) return f32.status();
    weight_f32 = *f32;
  }
  absl::StatusOr<const void*> placeholder =
      ParamPlaceholder(cuda.get(), *a.x, g.hidden, a.channels || a.weight == nullptr);
  if (!placeholder.ok()) return placeholder.status();
  const KernelParam weight(a.channels ? nullptr : weight_f32, g.hidden, *placeholder,
                           on_cuda ? 0.f : a.opt.weight_offset);
  const bool has_weight = a.weight != nullptr;
  const halnorm_tensor weight_rows =
      a.plane_rows ? *a.plane_rows : weight.OverRowsOf(*a.x, g.leading);
  if (has_weight) {
    batch.AddRows(KernelArg::kWeight, weight_rows, "weight");
  } else {
    batch.AddUnread(KernelArg::kWeight, weight_rows, "weight");
  }
  if (remembered != nullptr) {
    batch.Adopt(remembered->layout);
  } else if (a.channels) {
    // Rows that share a plane row (stride 0) along r, so that the chunks
    // along r, whose dweight/dbias are summed together, share their
    // channels: LayerNorm2d over HW's samples rather than its channels.
    batch.FoldOrderedBy(KernelArg::kWeight);
  } else {
    batch.Fold();
  }

  // CPU kernels write one partial per chunk of rows along the folded dim r,
  // per b line and outer index; GPU kernels sum their chunks themselves and
  // write one per b line and outer index (and piece, below).
  const bool gpu = (*chosen)->device != Device::kCpu;
  const int64_t r_extent = batch.folded_extent(0);
  const int64_t b_extent = batch.folded_extent(1);
  if (remembered == nullptr) {
    // Tensors past the kernels' 32-bit offsets run in pieces of whole rows
    // (row_batch.h). A piece that splits a line starts on a chunk boundary
    // and writes its chunks' partials where an unsplit call would: the sums
    // below are bitwise those of one kernel call over the whole tensor.
    // Per channel, rows along r with different plane rows (LayerNorm2d over
    // HW with one sample: rows are channels) need a chunk each.
    const bool one_row_chunks = a.channels && batch.folded_stride(0, KernelArg::kWeight) != 0;
    const PiecePartials partials{
        "x", g.hidden * 4,
        gpu ? 0 : (one_row_chunks ? 1 : RowsPerChunk(r_extent, g.hidden, a.x->dtype))};
    HALNORM_RETURN_IF_ERROR(batch.Split(partials));
    if (memoizable) backward_plans.Remember(key, {*chosen, batch.layout()});
  }

  const halide_type_t f32 = HalideType(HALNORM_F32);

  const int rows_per_chunk =
      gpu ? GpuRowsPerChunk(r_extent) : static_cast<int>(batch.plan().rows_per_slot);
  // Partial slots per line: the chunks (CPU), the pieces along r (GPU).
  const int64_t slots =
      gpu ? batch.pieces_per_line() : (r_extent + rows_per_chunk - 1) / rows_per_chunk;
  const int64_t partial_count = g.hidden * slots * b_extent * batch.outer_extent();
  float* dweight_partials = nullptr;
  float* dbias_partials = nullptr;
  // CUDA: a block of `hidden` sums per kernel call and line, added on the
  // device; dbias's only for LayerNorm, dweight's even when not asked for.
  std::optional<CudaParamSums> dweight_sums, dbias_sums;
  std::vector<float> channel_sums;  // BackwardArgs::channels: dweight's, then dbias's
  if (on_cuda) {
    for (auto [out, sums, place] : {std::tuple{a.dweight, &dweight_sums, &dweight_partials},
                                    std::tuple{a.dbias, &dbias_sums, &dbias_partials}}) {
      if (sums == &dbias_sums && a.op != Op::kLayerNorm) continue;
      absl::StatusOr<CudaParamSums> made =
          CudaParamSums::Make(*cuda, out, g.hidden, partial_count / g.hidden);
      if (!made.ok()) return made.status();
      sums->emplace(*made);
      *place = made->blocks();
    }
  } else {
    // The kernel writes every partial, so the scratch is never cleared.
    channel_sums.resize(a.channels ? 2 * a.channels->channels : 0);
    dweight_partials = ThreadScratch(2 * partial_count);
    if (a.op == Op::kLayerNorm) dbias_partials = dweight_partials + partial_count;
  }

  KernelCall call(**chosen, UseStreamingStores(request, **chosen));
  call.Bind(KernelArg::kHasWeight, has_weight)
      .Bind(KernelArg::kWeightOffset, on_cuda ? a.opt.weight_offset : 0.f)
      .Bind(KernelArg::kHasDresidual, a.opt.residual != nullptr)
      .Bind(KernelArg::kRowsPerChunk, rows_per_chunk)
      .Bind(KernelArg::kPrefetchRows, !on_cuda && PrefetchRows(request, StreamsWithTwin(request)))
      .Touching((a.opt.residual != nullptr ? 4 : 3) * g.hidden * DtypeBytes(a.x->dtype) *
                batch.rows())
      .OnCudaStream(a.opt.cuda_stream);
  for (int64_t i = 0; i < batch.piece_count(); i++) {
    const RowPiece piece = batch.Piece(i);
    batch.Bind(call, piece);
    // Partials (n, slot, b, outer), in the order they are summed.
    const int64_t first_slot = gpu ? piece.row_piece : piece.row_begin / rows_per_chunk;
    const int64_t piece_slots = gpu ? 1 : (piece.rows + rows_per_chunk - 1) / rows_per_chunk;
    const int64_t offset =
        ((piece.outer * b_extent + piece.line_begin) * slots + first_slot) * g.hidden;
    const DimSpec columns{g.hidden, 1}, slot_dim{piece_slots, KernelStride(piece_slots, g.hidden)},
        line_dim{piece.lines, KernelStride(piece.lines, g.hidden * slots)};
    // GPU kernels take dweight's and dbias's apart; CPU kernels both as one
    // buffer, dbias's (right after dweight's in the scratch) as part 1.
    KernelBuffer dweight_partial, dbias_partial, partials;
    if (gpu) {
      dweight_partial.Set(dweight_partials + offset, f32, {columns, slot_dim, line_dim});
      dbias_partial.Set(a.op == Op::kLayerNorm ? dbias_partials + offset : nullptr, f32,
                        {columns, slot_dim, line_dim});
      if (on_cuda) {
        MoveToCudaDevice(dweight_partial.get());
        MoveToCudaDevice(dbias_partial.get());
      }
      call.Bind(KernelArg::kDweightPartial, dweight_partial.get())
          .Bind(KernelArg::kDbiasPartial, dbias_partial.get());
    } else {
      const int64_t parts = a.op == Op::kLayerNorm ? 2 : 1;
      partials.Set(dweight_partials + offset, f32,
                   {columns, slot_dim, line_dim, {parts, KernelStride(parts, partial_count)}});
      call.Bind(KernelArg::kPartials, partials.get());
    }
    HALNORM_RETURN_IF_ERROR(call.Run());
  }

  if (on_cuda) {
    HALNORM_RETURN_IF_ERROR(dweight_sums->Finish());
    return dbias_sums ? dbias_sums->Finish() : absl::OkStatus();
  }
  if (a.channels) {
    StoreChannelSums(a, batch, g.hidden, rows_per_chunk, slots, dweight_partials, dbias_partials,
                     channel_sums.data());
    return absl::OkStatus();
  }
  if (a.dweight) StoreSumOfPartials(dweight_partials, partial_count, g.hidden, *a.dweight);
  if (a.dbias) StoreSumOfPartials(dbias_partials, partial_count, g.hidden, *a.dbias);
  return absl::OkStatus();
}

}  // namespace

absl::Status LayerNormBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                               const halnorm_tensor* mean, const halnorm_tensor* rstd,
                               const halnorm_tensor* weight, const halnorm_norm_options* opt,
                               halnorm_tensor* dx, halnorm_tensor* dweight, halnorm_tensor* dbias,
                               const Variant* variant) {
  return Backward(
      {Op::kLayerNorm, dy, x, mean, rstd, weight, OptionsOrDefaults(opt), dx, dweight, dbias},
      variant);
}

absl::Status LayerNormBackwardChannelSums(const halnorm_tensor* dy, const halnorm_tensor* x,
                                          const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                          const halnorm_tensor& plane_rows, bool has_weight,
                                          const FeatureLayout& channels,
                                          const halnorm_norm_options* opt, halnorm_tensor* dx,
                                          halnorm_tensor* dweight, halnorm_tensor* dbias) {
  BackwardArgs a{
      Op::kLayerNorm,         dy, x,       mean, rstd, has_weight ? &plane_rows : nullptr,
      OptionsOrDefaults(opt), dx, dweight, dbias};
  a.plane_rows = &plane_rows;
  a.channels = &channels;
  return Backward(a, nullptr);
}

absl::Status RmsNormBackward(const halnorm_tensor* dy, const halnorm_tensor* x,
                             const halnorm_tensor* rstd, const halnorm_tensor* weight,
                             const halnorm_norm_options* opt, halnorm_tensor* dx,
                             halnorm_tensor* dweight, const Variant* variant) {
  return Backward(
      {Op::kRmsNorm, dy, x, nullptr, rstd, weight, OptionsOrDefaults(opt), dx, dweight, nullptr},
      variant);
}

}  // namespace halnorm::internal
