// The limit error and the refusals `-b a,b` and difftest leave out of their
// comparison (limits.h).
#include "engine/limits.h"

#include <string>

#include "engine/engine.h"
#include "engine/plan.h"

namespace quelkit::harness {

void throw_too_large(std::string_view backend, std::string_view need) {
  Error e;
  e.kind = ErrKind::Type;
  e.code = kTooLargeCode;
  e.message = "the statement is too large for " + std::string(backend) + ": it needs " + std::string(need);
  throw QuelError(std::move(e));
}

bool is_too_large(const Error& e) { return e.kind == ErrKind::Type && e.code == kTooLargeCode; }

bool could_not_run(const Result& r) { return !r.ok && (is_too_large(r.error) || r.error.kind == ErrKind::IO); }

size_t plan_nodes(const Plan& plan) {
  size_t n = 0;
  auto count = [&](auto& self, const ir::Node* x) -> void {
    if (!x) return;
    ++n;
    for (const auto& k : x->kid) self(self, k.get());
  };
  count(count, plan.qual_folded.get());
  for (const auto& t : plan.targets_folded) count(count, t.get());
  return n;
}

}  // namespace quelkit::harness
