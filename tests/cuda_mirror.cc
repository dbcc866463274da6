#include "tests/cuda_mirror.h"

#include <cstdint>

namespace halnorm::testutil {

using internal::CudaCheck;
using internal::CUdeviceptr;

CudaMirror::~CudaMirror() {
  for (auto& [tensor, copy] : copies_) driver_.cuMemFree_v2(copy.storage);
}

halnorm_tensor* CudaMirror::View(TestTensor& t) {
  if (auto it = copies_.find(&t); it != copies_.end()) return &it->second.view;
  const std::vector<uint8_t>& bytes = t.bytes();
  Copy copy = {0, *t.view()};
  absl::Status status =
      CudaCheck(driver_, driver_.cuMemAlloc_v2(&copy.storage, bytes.size()), "cuMemAlloc");
  if (status.ok()) {
    status = CudaCheck(driver_, driver_.cuMemcpyHtoD_v2(copy.storage, bytes.data(), bytes.size()),
                       "cuMemcpyHtoD");
  }
  if (!status.ok()) {
    status_.Update(status);
    return nullptr;
  }
  const auto offset = static_cast<const uint8_t*>(t.view()->data) - bytes.data();
  copy.view.data = reinterpret_cast<void*>(static_cast<uintptr_t>(copy.storage + offset));
  copy.view.device = HALNORM_CUDA;
  return &copies_.emplace(&t, copy).first->second.view;
}

absl::Status CudaMirror::CopyBack(TestTensor& t) {
  auto it = copies_.find(&t);
  if (it == copies_.end()) return absl::NotFoundError("no device copy of this tensor");
  std::vector<uint8_t>& bytes = t.mutable_bytes();
  return CudaCheck(driver_, driver_.cuMemcpyDtoH_v2(bytes.data(), it->second.storage, bytes.size()),
                   "cuMemcpyDtoH");
}

}  // namespace halnorm::testutil
