// The DC-INGRES back end ("threaded", modes "call" and "goto"): a plan's
// folded typed IR readied into a tree of typed operator nodes over a register
// file (threaded/program.h), prepared once per plan shape and reused for
// every parameter block (plan reuse), run tuple by tuple or through a fused
// page kernel.
#pragma once

#include <memory>

#include "engine/backend.h"
#include "threaded/program.h"

namespace quelkit::threaded {

// Registers "threaded" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(Dispatch d);

}  // namespace quelkit::threaded
