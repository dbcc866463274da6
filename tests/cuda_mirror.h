// Device copies of test tensors, for calls on HALNORM_CUDA tensors. Each
// tensor's whole storage (padding and sentinels included) goes to a device
// allocation of its own and the call gets a view of it; outputs come back
// the same way, so the host-side checks (the reference, writes outside the
// view, inputs left unchanged) apply as they are.
#ifndef HALNORM_TESTS_CUDA_MIRROR_H_
#define HALNORM_TESTS_CUDA_MIRROR_H_

#include <map>

#include "absl/status/status.h"
#include "runtime/cuda_driver.h"
#include "runtime/halnorm_c.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

class CudaMirror {
 public:
  // Copies are made in `context`, which must stay current while they are used.
  explicit CudaMirror(const internal::CudaDriver& driver) : driver_(driver) {}
  ~CudaMirror();
  CudaMirror(const CudaMirror&) = delete;
  CudaMirror& operator=(const CudaMirror&) = delete;

  // The device view of `t`, copied to the device on first use; null (and
  // status() not OK) when that failed.
  halnorm_tensor* View(TestTensor& t);
  // A ViewOf for the problems' RunPublic.
  ViewOf Views() {
    return [this](TestTensor& t) { return View(t); };
  }

  // Copies `t`'s device storage back over its host storage.
  absl::Status CopyBack(TestTensor& t);

  const absl::Status& status() const { return status_; }

 private:
  struct Copy {
    internal::CUdeviceptr storage;
    halnorm_tensor view;
  };
  const internal::CudaDriver& driver_;
  std::map<const TestTensor*, Copy> copies_;
  absl::Status status_;
};

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_CUDA_MIRROR_H_
