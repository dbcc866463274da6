// Test parameters read from the variant registry, never listed by hand, so
// every compiled variant is tested, not only the one dispatch picks.
#ifndef HALNORM_TESTS_VARIANT_PARAMS_H_
#define HALNORM_TESTS_VARIANT_PARAMS_H_

#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"
#include "runtime/device_call.h"
#include "runtime/variant_registry.h"
#include "tests/row_norm_cases.h"

namespace halnorm::testutil {

// The LayerNorm and RMSNorm variants of one direction, in registry order.
std::vector<const internal::Variant*> RowNormVariants(internal::Direction direction);

struct VariantAndCase {
  const internal::Variant* variant;
  RowNormCase row_case;
};

void PrintTo(const VariantAndCase& param, std::ostream* os);

// Each variant of `direction` with each of its RowNormCases.
std::vector<VariantAndCase> VariantsAndCases(internal::Direction direction);

// A gtest name: [A-Za-z0-9_] only.
std::string Sanitize(std::string name);
std::string VariantTestName(const ::testing::TestParamInfo<const internal::Variant*>& info);
std::string VariantAndCaseTestName(const ::testing::TestParamInfo<VariantAndCase>& info);

inline const internal::Variant& VariantOf(const VariantAndCase& param) { return *param.variant; }
inline const internal::Variant& VariantOf(const internal::Variant* variant) { return *variant; }

// Skips variants whose ISA this CPU lacks, GPU variants in the streaming
// suites, and GPU variants without their driver (CUDA without a GPU; OpenCL
// without PoCL); they are still compiled and listed.
template <typename Param>
class VariantTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const internal::Variant& variant = VariantOf(this->GetParam());
    if (!internal::HostSupports(variant.isa)) {
      GTEST_SKIP() << "CPU lacks " << internal::IsaName(variant.isa);
    }
    // The `_streaming` suites (HALNORM_STREAMING_STORES=always) are about
    // the CPU kernels' streaming-stores twins, which GPU variants lack. (Not
    // a --gtest_filter: it would override the one --config=asan gives.)
    const char* streaming = std::getenv("HALNORM_STREAMING_STORES");
    if (variant.device != internal::Device::kCpu && streaming != nullptr &&
        std::string(streaming) == "always") {
      GTEST_SKIP() << "GPU variant: no streaming-stores twin";
    }
    if (absl::Status device = internal::DeviceAvailable(variant.device); !device.ok()) {
      GTEST_SKIP() << device.message();
    }
  }
};


}  // namespace halnorm::testutil

namespace halnorm::internal {
// gtest prints a Variant* parameter by name, not address (found by ADL).
inline void PrintTo(const Variant* variant, std::ostream* os) { *os << variant->name; }
}  // namespace halnorm::internal

#endif  // HALNORM_TESTS_VARIANT_PARAMS_H_
