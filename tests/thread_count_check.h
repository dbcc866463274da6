// The determinism check every op shares: the same problem run on one thread
// and on two (or `threads`) must give byte-identical outputs (rows split
// across tasks, dweight/dbias summed in fixed chunks in a fixed order).
#ifndef HALNORM_TESTS_THREAD_COUNT_CHECK_H_
#define HALNORM_TESTS_THREAD_COUNT_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "runtime/device_call.h"
#include "runtime/halnorm_c.h"
#include "tests/test_tensors.h"

namespace halnorm::testutil {

// `run(problem)` returns the call's status; Problem has Outputs() and
// ExpectMatchesReference().
template <typename Problem, typename Run>
void ExpectThreadCountDoesNotMatter(Problem& one_thread, Problem& two_threads, Run run,
                                    int threads = 2) {
  halnorm_set_num_threads(1);
  const absl::Status one_status = run(one_thread);
  halnorm_set_num_threads(threads);
  const absl::Status two_status = run(two_threads);
  halnorm_set_num_threads(0);  // back to the default: one per core
  if (internal::IsConfigRefusal(one_status)) GTEST_SKIP() << one_status;
  ASSERT_TRUE(one_status.ok()) << one_status;
  ASSERT_TRUE(two_status.ok()) << two_status;
  const std::vector<const TestTensor*> one = one_thread.Outputs();
  const std::vector<const TestTensor*> two = two_threads.Outputs();
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(one[i]->bytes() == two[i]->bytes()) << "output " << i << " differs";
  }
  one_thread.ExpectMatchesReference();
}

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_THREAD_COUNT_CHECK_H_
