// Typing in difftest is the binder's: generated queries and any of their
// subexpressions are rendered to QUEL, parsed and bound against a catalog
// with the entry points the engine uses (frontend::parse, frontend::bind).
// The generator, the shrinker, the checker and the SQLite oracle read types
// and typed operators only from what these return.
#pragma once

#include <vector>

#include "difftest/gtree.h"
#include "frontend/frontend.h"

namespace quelkit::difftest {

frontend::RangeTable ranges_of(const std::vector<GVar>& vars);

struct BoundText {
  SourceRef src;
  frontend::BoundQuery query;
};
// Binds q's statement, written after `prefix` in its source (the same
// statement elsewhere in a text). Throws QuelError where the binder does.
BoundText bind_query(const GQuery& q, const CatalogView& catalog, const std::string& prefix = "");

// The bound tree of one expression over vars: a target, or a condition as a
// qualification. nullptr if the binder rejects it either way.
ir::NodePtr bind_expr(const GNode& e, const std::vector<GVar>& vars, const CatalogView& catalog);

}  // namespace quelkit::difftest
