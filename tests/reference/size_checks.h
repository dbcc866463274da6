// Argument-size checks of the reference oracles. A malformed oracle call is a
// bug in the test itself, so it fails loudly.
#ifndef HALNORM_TESTS_REFERENCE_SIZE_CHECKS_H_
#define HALNORM_TESTS_REFERENCE_SIZE_CHECKS_H_

#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "absl/types/span.h"

namespace halnorm::reference {

inline void CheckSizes(bool ok, const char* function) {
  if (ok) return;
  std::cerr << "reference::" << function << ": inconsistent sizes\n";
  std::abort();
}

inline bool SizeIs(absl::Span<const double> values, int64_t size) {
  return values.size() == static_cast<size_t>(size);
}

inline bool EmptyOrSize(absl::Span<const double> values, int64_t size) {
  return values.empty() || SizeIs(values, size);
}

}  // namespace halnorm::reference

#endif  // HALNORM_TESTS_REFERENCE_SIZE_CHECKS_H_
