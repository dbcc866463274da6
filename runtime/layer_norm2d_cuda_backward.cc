#include "runtime/layer_norm2d_cuda_backward.h"

#include <tuple>
#include <vector>

#include "runtime/row_norm.h"
#include "runtime/status.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

absl::Status CudaPlanesBackward(const Args2d& a, const halnorm_tensor& x, const halnorm_tensor& dy,
                                halnorm_tensor& dx, const FeatureLayout& at,
                                ChannelPlanes& planes) {
  // Every plane, and the sums' places, made before any output is written.
  const std::vector<int64_t> plane_shape(x.shape + 1, x.shape + 4);
  halnorm_tensor weight{}, unused_bias{}, dweight{}, dbias{};
  HALNORM_RETURN_IF_ERROR(
      planes.ExpandAffine(a.weight, nullptr, at, plane_shape, &weight, &unused_bias));
  float* dweight_sums = nullptr;
  float* dbias_sums = nullptr;
  for (auto [out, plane, sums] :
       {std::tuple{a.dweight, &dweight, &dweight_sums}, std::tuple{a.dbias, &dbias, &dbias_sums}}) {
    if (out == nullptr) continue;
    absl::StatusOr<float*> data = planes.Scratch(at.features());
    if (!data.ok()) return data.status();
    *plane = planes.Tensor(*data, plane_shape);
    absl::StatusOr<float*> made = planes.SumsFor(out);
    if (!made.ok()) return made.status();
    *sums = *made;
  }
  halnorm_norm_options opt;
  halnorm_norm_options_init(&opt);
  if (a.axes == HALNORM_AXES_CHW) {
    opt.normalized_rank = 3;
    HALNORM_RETURN_IF_ERROR(LayerNormBackward(&dy, &x, a.mean, a.rstd, a.weight ? &weight : nullptr,
                                              &opt, &dx, a.dweight ? &dweight : nullptr,
                                              a.dbias ? &dbias : nullptr));
  } else {
    // One call per channel: its [N,H,W] slice of the activations, [N] of
    // the statistics and [H,W] of the planes.
    opt.normalized_rank = 2;
    auto slice = [](const halnorm_tensor& t, int64_t c) {
      halnorm_tensor s = t;
      s.data = static_cast<char*>(t.data) + c * t.strides[1] * DtypeBytes(t.dtype);
      s.rank = t.rank - 1;
      for (int d = 1; d < s.rank; d++) {
        s.shape[d] = t.shape[d + 1];
        s.strides[d] = t.strides[d + 1];
      }
      return s;
    };
    const std::vector<int64_t> hw = {x.shape[2], x.shape[3]};
    auto plane_of = [&](const halnorm_tensor& t, int64_t c) {
      return planes.Tensor(static_cast<float*>(t.data) + c * at.per_channel, hw);
    };
    for (int64_t c = 0; c < at.channels; c++) {
      halnorm_tensor w = a.weight ? plane_of(weight, c) : halnorm_tensor{};
      halnorm_tensor dw = a.dweight ? plane_of(dweight, c) : halnorm_tensor{};
      halnorm_tensor db = a.dbias ? plane_of(dbias, c) : halnorm_tensor{};
      halnorm_tensor x_c = slice(x, c), dx_c = slice(dx, c), dy_c = slice(dy, c);
      halnorm_tensor mean = slice(*a.mean, c), rstd = slice(*a.rstd, c);
      HALNORM_RETURN_IF_ERROR(LayerNormBackward(&dy_c, &x_c, &mean, &rstd, a.weight ? &w : nullptr,
                                                &opt, &dx_c, a.dweight ? &dw : nullptr,
                                                a.dbias ? &db : nullptr));
    }
  }
  HALNORM_RETURN_IF_ERROR(
      planes.StoreSums(static_cast<const float*>(dweight.data), at, dweight_sums, a.dweight));
  return planes.StoreSums(static_cast<const float*>(dbias.data), at, dbias_sums, a.dbias);
}

}  // namespace halnorm::internal
