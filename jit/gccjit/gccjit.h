// The "gccjit" back end: native code built by libgccjit (GCC 12) from the
// folded typed IR through the shared walk (jit/codegen.h), in the modes
// "fused" (default: a page-at-a-time kernel per plan) and "qual" (per-tuple
// functions). Built only when CMake finds libgccjit (QUELKIT_HAVE_GCCJIT on
// the targets that link it).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "jit/codegen.h"

namespace quelkit::jit::gccjit {

// Registers "gccjit" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt);

// The GIMPLE libgccjit makes of `plan` (the functions prepare would compile
// first): after gimplification, with a comment and the source location on
// every IR node's code, and after the --jit-opt passes. What --dump=gimple
// prints.
void print_gimple(const harness::Plan& plan, Mode mode, const harness::PrepareOptions& opt, std::ostream& os);

// Compiled results currently loaded in the process (each prepared plan holds
// one or two; evicted plans must have released theirs).
size_t loaded_results();

// "" if every runtime helper generated code imports resolves, in this
// process, to the kit's own definition (the executable exports them);
// otherwise the first that does not. The back end checks it when created.
std::string unresolved_helper();

// What "-march=native" means on this machine, as cc1 options for --jit-cpu
// native (the driver of the same GCC version is asked once; exits with a
// message if it cannot say).
const std::vector<std::string>& native_cpu_options();

}  // namespace quelkit::jit::gccjit
