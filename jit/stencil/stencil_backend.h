// The "stencil" back end: copy-and-patch native code (Xu & Kjolstad, OOPSLA
// 2021; CPython's Tools/jit), stitched at prepare time from stencils that
// clang-19 compiled at build time from the runtime rules of the operator
// catalogue, in the modes "fused" (default: a page kernel) and "qual"
// (per-tuple functions), like the other JITs (jit/README.md). Built only when
// CMake finds clang-19 and LLVM 19 (QUELKIT_HAVE_STENCIL on the targets that
// link it).
#pragma once

#include <cstddef>
#include <memory>

#include "engine/backend.h"
#include "jit/codegen.h"

namespace quelkit::jit::stencil {

// Registers "stencil" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt);

// Arena pages held by prepared plans (evicted plans must have returned theirs).
size_t live_pages();

}  // namespace quelkit::jit::stencil
