// The "llvm" back end: ORC LLJIT native code generated from the folded typed
// IR by the shared walk (jit/codegen.h), in the modes "fused" (default: a
// page-at-a-time kernel per plan) and "qual" (per-tuple functions). Built only
// when CMake finds LLVM 19 (QUELKIT_HAVE_LLVM on the targets that link it).
#pragma once

#include <iosfwd>
#include <memory>

#include "harness/backend.h"
#include "jit/codegen.h"

namespace quelkit::jit::llvmjit {

// Registers "llvm" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt);

// The LLVM IR the back end generates for `plan` (the functions prepare would
// compile first), before or after the --jit-opt pipeline: what --dump=llvm
// prints. Function names carry no process-unique suffix here.
void print_module(const harness::Plan& plan, Mode mode, const harness::PrepareOptions& opt, bool optimized,
                  std::ostream& os);

}  // namespace quelkit::jit::llvmjit
