// The 1976 INGRES interpreter as a quelkit back end ("interp", modes "switch"
// and "goto"): a stack machine over postfix symbols (interp/symbol.h) that
// types operands and converts per operator per tuple. getsymbol and interpret
// are separate, never-inlined functions so a profile shows them as the
// paper's Table 3 did (GETSYMBOL 17.1%, INTERPRET 14.8%).
#pragma once

#include <cstdint>
#include <memory>

#include "engine/backend.h"
#include "runtime/runtime.h"
#include "interp/symbol.h"

namespace quelkit::interp {

// Registers "interp" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(bool use_goto);

// Fetches symbol `s`, checks its type and length, and for a Const or Attr
// loads its value into `ts` (the free stack cell), reading attributes from
// `tuple`. Returns `s`. Like INGRES's GETSYMBOL, it runs once per symbol.
const Symbol* getsymbol(const Symbol* s, Cell* ts, const uint8_t* tuple);

// Dispatch methods, one overload of interpret each, both in the same binary so
// one run compares them (modes interp:switch and interp:goto).
struct SwitchDispatch {};  // a switch over the symbol code: the 1976 design
struct GotoDispatch {};    // computed goto (labels as values), one indirect jump per operator

// Runs a symbol list ending in End over one tuple. `stack` holds at least
// Program::depth + 1 cells; `row` is the output row (target lists) or null.
// Returns the qualification's truth value (1/0), 0 after a target list, or
// -1 after raising a runtime error into ctx with the operator's position.
int interpret(SwitchDispatch, const Symbol* list, const uint8_t* tuple, uint8_t* row, Cell* stack, qk_ctx* ctx);
int interpret(GotoDispatch, const Symbol* list, const uint8_t* tuple, uint8_t* row, Cell* stack, qk_ctx* ctx);

}  // namespace quelkit::interp
