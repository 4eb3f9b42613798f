// What the binder hands to the harness for statements that evaluate
// expressions (retrieve, append, replace, delete): range variables resolved to
// relations, every expression typed, conversions inserted (unfolded IR).
// ATTR nodes carry (var, attr, offset) relative to their variable's relation.
#pragma once

#include <string>
#include <vector>

#include "frontend/ir.h"
#include "frontend/schema.h"
#include "frontend/source.h"

namespace quelkit::frontend {

struct BoundVar {
  std::string name;      // range variable as written (lower case)
  std::string relation;  // relation it ranges over (lower case)
  Schema schema;         // copy of the relation's schema at bind time
  SrcPos first_use;      // first appearance in the statement text (ties in substitution)
};

struct BoundTarget {
  std::string name;  // result attribute name (lower case)
  ir::NodePtr expr;  // typed; for append/replace already converted to the column type
  int column = -1;   // append/replace: attribute index in the target relation
  SrcPos pos;
};

struct SortKey {
  int target = 0;  // index into targets
  bool descending = false;
  SrcPos pos;
};

enum class BoundKind : uint8_t { Retrieve, Append, Replace, Delete };

struct BoundQuery {
  BoundKind kind = BoundKind::Retrieve;
  std::vector<BoundVar> vars;        // in order of first appearance
  ir::NodePtr qual;                  // nullptr = no where clause
  std::vector<BoundTarget> targets;  // retrieve: result columns; append/replace: assignments
  // retrieve
  bool unique = false;
  std::string into;                  // "" = to the terminal/sink
  // Its rows as errors name them (the memory budget's): an aggregate's inner
  // query names them "the rows aggregated by count", not "the result".
  std::string rows_what = "the result";
  // Its plans' names (--dump, profiles) start with this; "" is the
  // statement's, q<statement>. An aggregate's inner query is q<statement>_a<k>,
  // so that two of them and the statement's own plan are told apart.
  std::string plan_name;
  std::vector<SortKey> sort;
  // append: target relation; replace/delete: the updated variable
  std::string relation;
  int update_var = -1;
  SrcPos update_pos;                 // of the updated variable (`replace p`): where an ambiguous replace is
  uint32_t scratch_size = 0;         // bytes of qk_ctx.scratch the expressions need
  SrcPos pos;                        // statement start
};

}  // namespace quelkit::frontend
