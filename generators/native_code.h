// Calls into hand-written LLVM IR (generators/native_*.ll): the IR's bitcode
// is added to the generator's externs map, which Halide links into the
// kernel, and the kernel calls its functions as pure extern functions.
// Halide picks the IR's fooxN definition for an N-lane vector (CodeGen_LLVM's
// find_vector_runtime_function) and LLVM inlines it.
#ifndef HALNORM_GENERATORS_NATIVE_CODE_H_
#define HALNORM_GENERATORS_NATIVE_CODE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "Halide.h"

namespace halnorm {

// Adds `bitcode` to `externs` under `name` (once per kernel).
void LinkBitcode(Halide::GeneratorContext::ExternsMap& externs, const Halide::Target& target,
                 const std::string& name, const unsigned char* bitcode, size_t size);

// A call of the IR function `name` (scalar form; see above for vectors).
Halide::Expr CallNative(Halide::Type result, const char* name,
                        const std::vector<Halide::Expr>& args);

}  // namespace halnorm

#endif  // HALNORM_GENERATORS_NATIVE_CODE_H_
