// A back end's size limits (registers, selection vectors, code size, a plan
// its compiler would take minutes over) as one statement error on every back
// end, and how several back ends' results are compared around one: a refusal
// is no answer, so it is said as an answer missing, never as a disagreement
// (docs/DESIGN.md, "Language (QUEL subset) and semantics": size limits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "frontend/source.h"

namespace quelkit::harness {

struct Result;
struct Plan;

// Error::code of the limit error, a type error (ErrKind::Type): outside the
// runtime's qk_err codes (runtime/runtime.h), which no type error carries.
constexpr int32_t kTooLargeCode = 100;

// Throws "the statement is too large for BACKEND: it needs NEED" (the session
// positions it on the statement).
[[noreturn]] void throw_too_large(std::string_view backend, std::string_view need);
bool is_too_large(const Error& e);

// A back end that could not run the statement: one of its size limits, or
// the machine's trouble (ErrKind::IO: gccjit's toolchain, stencil's arena).
// Not an answer: `-b a,b` and difftest compare the others' answers.
bool could_not_run(const Result& r);

// Nodes of the plan's folded qualification and targets: the size a compiler's
// limit (gccjit's) and cost (adaptive's model) are measured by.
size_t plan_nodes(const Plan& plan);

}  // namespace quelkit::harness
