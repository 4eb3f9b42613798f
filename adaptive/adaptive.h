// The "adaptive" back end (Kohn, Leis, Neumann, "Adaptive Execution of
// Compiled Queries", ICDE 2018): a plan is prepared on the tier cheapest to
// prepare (threaded:goto); a scan whose tuples repay stencil:fused's few
// microseconds of preparation runs on stencil from its first page; it measures its
// per-tuple cost over the first pages, and when the remaining work's saving
// outweighs the compile cost compiles llvm:fused on one background thread,
// switching at a page boundary once the code is ready.
//
// It lives at the top level beside interp/, threaded/ and vector/, not under
// jit/: it generates no code of its own. It composes other back ends through
// the harness's interface and registry, by name, and includes none of their
// headers, so it sits where the architecture shows one evaluator per folder.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "engine/backend.h"

namespace quelkit::adaptive {

// What the back end reads of the world: the clocks its policy measures by,
// and the thread a background compile runs on. The real one (real_world())
// is every runner's; a test gives one of its own, so that the tiered policy's
// decisions follow figures it chose and run deterministically through every
// stage (test/adaptive). Read once a page while the policy measures.
class World {
 public:
  virtual ~World() = default;
  virtual uint64_t now_ns() = 0;         // the wall clock
  virtual uint64_t thread_cpu_ns() = 0;  // CPU time of the calling thread
  // Starts `compile` on a thread of its own, which the back end joins.
  virtual std::thread start(std::function<void()> compile) = 0;
};
World& real_world();

// Modes: "tiered" (default: the cost model decides), and two for tests:
// "switch-every-page" (compiles at the first page, waits for the code, then
// alternates tiers at every page boundary) and "compile-at-start" (starts the
// compile at the first page and never waits: on a small relation the
// statement ends first and the compile is abandoned).
enum class Policy { Tiered, EveryPage, AtStart };

// Registers "adaptive" (cli/ calls it after the back ends it composes, though
// it looks them up only when a runner is made).
void register_backend();

// The back end itself, without the registry (tests), in `world` (outliving it).
std::unique_ptr<harness::Backend> make_backend(Policy policy, const harness::PrepareOptions& opt,
                                               World& world = real_world());

// Background compile threads running now in this process (tests check that
// abandoned compiles were joined).
int compiles_in_flight();

}  // namespace quelkit::adaptive
