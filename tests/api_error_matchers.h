// Checks of the public API's error contract: the message names the
// argument at fault.
#ifndef HALNORM_TESTS_API_ERROR_MATCHERS_H_
#define HALNORM_TESTS_API_ERROR_MATCHERS_H_

#include <string>

#include "gmock/gmock.h"
#include "runtime/halnorm_c.h"

namespace halnorm::testutil {

// The argument appears as a whole word ("x" in "x.shape[0]" but not in
// "index", "dx" not in "dx2"), so short names are checked meaningfully.
MATCHER_P(NamesArgument, name, std::string("names argument \"") + name + "\"") {
  const std::string message = arg;
  const std::string word = name;
  auto is_identifier_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(message[at - 1]);
    const size_t end = at + word.size();
    const bool ends = end == message.size() || !is_identifier_char(message[end]);
    if (starts && ends) return true;
  }
  return false;
}

inline std::string LastError() {
  const char* message = halnorm_last_error();
  return message == nullptr ? "<null>" : message;
}

}  // namespace halnorm::testutil

#endif  // HALNORM_TESTS_API_ERROR_MATCHERS_H_
