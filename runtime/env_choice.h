// A setting the user may force through an environment variable:
// "always", "never", or anything else (unset) for the library's own choice.
#ifndef HALNORM_RUNTIME_ENV_CHOICE_H_
#define HALNORM_RUNTIME_ENV_CHOICE_H_

#include <cstdlib>
#include <cstring>

namespace halnorm::internal {

enum class EnvChoice { kAuto, kAlways, kNever };

// The variable's value now (callers cache it: the environment is read once).
inline EnvChoice ReadEnvChoice(const char* name) {
  const char* v = std::getenv(name);
  if (v != nullptr && std::strcmp(v, "always") == 0) return EnvChoice::kAlways;
  if (v != nullptr && std::strcmp(v, "never") == 0) return EnvChoice::kNever;
  return EnvChoice::kAuto;
}

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_ENV_CHOICE_H_
