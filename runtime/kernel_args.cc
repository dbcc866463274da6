#include "runtime/kernel_args.h"

#include <cstring>

namespace halnorm::internal {
namespace {

constexpr const char* kNames[kKernelArgCount] = {
    "x",
    "y",
    "dy",
    "dx",
    "residual",
    "residual_out",
    "dresidual",
    "mean",
    "rstd",
    "weight",
    "bias",
    "has_weight",
    "has_bias",
    "has_dresidual",
    "residual_alpha",
    "eps",
    "rows_per_chunk",
    "dweight_partial",
    "dbias_partial",
    "partials",
    "weight_offset",
    "prefetch_rows",
    "task_rows",
};

}  // namespace

const char* KernelArgName(KernelArg arg) { return kNames[static_cast<int>(arg)]; }

ArgumentSlots SlotsOf(const halide_filter_metadata_t& metadata) {
  ArgumentSlots slots;
  slots.fill(-1);
  for (int a = 0; a < kKernelArgCount; a++) {
    for (int i = 0; i < metadata.num_arguments; i++) {
      if (std::strcmp(metadata.arguments[i].name, kNames[a]) == 0) {
        slots[a] = static_cast<int8_t>(i);
        break;
      }
    }
  }
  return slots;
}

}  // namespace halnorm::internal
