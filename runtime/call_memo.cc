#include "runtime/call_memo.h"

#include "runtime/dispatch.h"
#include "runtime/tensor_checks.h"

namespace halnorm::internal {

bool MemoApplies(const halnorm_tensor* x, const Variant* forced) {
  return forced == nullptr && x != nullptr && x->device == HALNORM_CPU && !VerboseDispatch() &&
         KernelSpanLimit() == kKernelMaxSpanBytes;
}

}  // namespace halnorm::internal
