// A deliberately broken back end for the mutant check: it wraps a real back
// end and hands it every plan with one typed operator replaced by its
// neighbour in ops.def (same operand and result types, another operator:
// LT_I4 becomes LE_I4, ADD_I4 becomes SUB_I4, ...). Which operator is broken
// is the test-only build flag QUELKIT_MUTANT (test/CMakeLists.txt); this code
// is compiled into test_mutant only, never into the quelkit binary. The
// stale-literal back end breaks plan reuse instead of an operator.
#pragma once

#include <string>

#include "frontend/ir.h"

namespace quelkit::test {

// The operator the mutant computes instead of `op`.
ir::Op mutated(ir::Op op);
// Registers back end "mutant" (mode: the broken operator, lower case) around
// the registered back end `inner` (its default mode). Returns "mutant:<mode>".
std::string register_mutant(ir::Op broken, const std::string& inner = "interp");

// Registers back end "stale" (mode "literals") around the registered back end
// `inner` (its default mode, one that reuses plans): it runs each prepared
// plan with the literal values of the statement that prepared it, the
// parameter block's literal slots as they were at prepare, while the slots
// tuple substitution fills stay live. A statement that reuses the plan of
// another with other literals then answers for those. Returns "stale:literals".
std::string register_stale_literals(const std::string& inner = "threaded");

}  // namespace quelkit::test
