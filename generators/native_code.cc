#include "generators/native_code.h"

#include <cstdint>

namespace halnorm {

void LinkBitcode(Halide::GeneratorContext::ExternsMap& externs, const Halide::Target& target,
                 const std::string& name, const unsigned char* bitcode, size_t size) {
  externs.emplace(name, Halide::ExternalCode::bitcode_wrapper(
                            target, std::vector<uint8_t>(bitcode, bitcode + size), name));
}

Halide::Expr CallNative(Halide::Type result, const char* name,
                        const std::vector<Halide::Expr>& args) {
  return Halide::Internal::Call::make(result, name, args, Halide::Internal::Call::PureExtern);
}

}  // namespace halnorm
