// Calls the pipeline compiled ahead of time by :smoke_gen_aot.
#include "HalideBuffer.h"
#include "gtest/gtest.h"
#include "third_party/smoke/smoke_gen.h"

TEST(AotSmoke, RunsGeneratedPipeline) {
  Halide::Runtime::Buffer<int32_t> in(4), out(4);
  for (int i = 0; i < 4; ++i) in(i) = i;
  ASSERT_EQ(smoke_gen(in, out), 0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out(i), 2 * i + 1);
}
