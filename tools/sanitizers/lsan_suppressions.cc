// LeakSanitizer reads this at exit. PoCL, which runs the OpenCL variants in
// tests, compiles a kernel with its own LLVM the first time it meets it and
// keeps that compiler state, unreleased, until the process ends (its kernel
// cache in /tmp hides this once warm). halnorm's own allocations are still
// checked.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libpocl.so\n"
         "leak:libLLVM-15.so\n";
}
