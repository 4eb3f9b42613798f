// Literal twins, the plan-reuse net of difftest and the corpus: a statement
// with the same tree and other literal values of the same types and shape,
// so that it shares the statement's plan key (docs/DESIGN.md, "Literals as
// parameters"). The twin runs first; the statement then runs on the twin's
// plan and must answer as it does with the plan cache off.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "difftest/gtree.h"
#include "engine/session.h"
#include "frontend/ast.h"

namespace quelkit::difftest {

// Another value of the same shape, chosen by `salt` (deterministic).
// Integers keep their class: 0..32767 (a target's i2) stays there, a larger
// one stays in i4's range above it.
int64_t other_int(int64_t v, uint64_t salt);
// A float of about the same magnitude, exactly representable: finite and
// of its literal type (f8) whatever it was.
double other_float(double v, uint64_t salt);
// The text of a float literal that QUEL reads as one ("2.25", "5e299").
std::string float_text(double v);
// The same length; every character but a letter or digit kept, and those
// inside a pattern's [...] too, so a pattern stays a pattern of the same
// classes. "" stays "" (the empty string stays in the key).
std::string other_chars(const std::string& value, uint64_t salt);

// q with every literal replaced by another value (nullopt: q has none).
std::optional<GQuery> literal_twin(const GQuery& q, uint64_t salt);
// The same on a parsed statement, in place: its targets' and qualification's
// literals. Returns how many it changed; 0 and nothing changed where an
// aggregate is written (the session binds those per runner).
int twin_literals(frontend::ast::Stmt& s, uint64_t salt);

// A copy of each of the session's runners with the plan cache off
// (--no-plan-cache), in the same order: the net's reruns.
std::vector<std::unique_ptr<harness::Runner>> cache_off_runners(harness::Session& s);

// A salt from a query's text: its twin is the same in every run and for
// every shrunk candidate of one mismatch, whose salt is kept.
uint64_t twin_salt(const std::string& text);

}  // namespace quelkit::difftest
