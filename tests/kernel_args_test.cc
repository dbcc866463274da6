// Every compiled kernel's arguments map onto KernelArg slots, so the runtime
// can bind each one (a generator argument renamed without updating
// runtime/kernel_args.cc fails here, not as "argument was not bound" later).
#include "runtime/kernel_args.h"

#include <cstring>

#include "gtest/gtest.h"
#include "runtime/variant_registry.h"

namespace halnorm::internal {
namespace {

TEST(KernelArgsTest, EveryKernelArgumentHasASlot) {
  for (const Variant& v : AllVariants()) {
    for (int i = 0; i < v.metadata->num_arguments; i++) {
      int bound_as = -1;
      for (int a = 0; a < kKernelArgCount; a++) {
        if (v.slots[a] == i) bound_as = a;
      }
      ASSERT_GE(bound_as, 0) << v.name << ": argument " << v.metadata->arguments[i].name;
      EXPECT_STREQ(KernelArgName(static_cast<KernelArg>(bound_as)),
                   v.metadata->arguments[i].name);
    }
  }
}

TEST(KernelArgsTest, ArgumentsAKernelLacksHaveNoSlot) {
  for (const Variant& v : AllVariants()) {
    if (v.op != Op::kRmsNorm) continue;
    EXPECT_EQ(v.slots[static_cast<int>(KernelArg::kBias)], -1) << v.name;
    EXPECT_EQ(v.slots[static_cast<int>(KernelArg::kMean)], -1) << v.name;
  }
}

}  // namespace
}  // namespace halnorm::internal
