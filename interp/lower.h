// Lowering a one-variable plan's UNFOLDED typed IR to the 1976 interpreter's
// postfix symbol lists, with the parameter values inlined as constants (INGRES
// substituted each tuple's values into the query and interpreted it afresh;
// there is no plan reuse). Also prints the lists (--dump=postfix).
#pragma once

#include <iosfwd>
#include <vector>

#include "engine/plan.h"
#include "interp/symbol.h"

namespace quelkit::interp {

// A lowered plan. Character constants point into `chars`, which the program
// owns; moving a Program keeps them valid, copying would not (hence deleted).
struct Program {
  // Postordered qualification, ending in End; empty when the plan has none
  // (every tuple qualifies).
  std::vector<Symbol> qual;
  // All targets, each followed by its Store, then End.
  std::vector<Symbol> targets;
  std::vector<uint8_t> chars;  // bytes of character constants (query literals, parameters)
  uint32_t depth = 0;          // stack cells the deeper of the two lists needs

  Program() = default;
  Program(Program&&) = default;
  Program& operator=(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
};

// Lowers plan.qual and plan.targets (never the folded trees). `params` is the
// parameter block the PARAM nodes read (plan.params layout); it may be null
// only when the plan has no PARAM node.
Program lower(const harness::Plan& plan, const uint8_t* params);

// One symbol per line: index, kind, type, value or operator, position.
void dump_postfix(const harness::Plan& plan, const Program& prog, std::ostream& os);

}  // namespace quelkit::interp
