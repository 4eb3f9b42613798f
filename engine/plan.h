// A one-variable plan: what every back end prepares. Decomposition reduces each
// statement to a sequence of these; the harness owns the relation and access
// path, the back end only sees the shape: the qualification and target list
// (unfolded for the 1976 interpreter, folded for everyone else) over an input
// tuple layout, producing rows in an output layout, reading a parameter block:
// the values tuple substitution supplies, then the plan's literals (lift_literals).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/ir.h"
#include "frontend/schema.h"

struct qk_accum;  // runtime/accumulate.h

namespace quelkit::harness {

struct Plan {
  // Names generated code and dumps after the statement ("q3", "q3_d1" for a
  // detachment, "q3_s" for the substituted query): perf and gdb show it.
  std::string name;
  // The script the statement came from (Source::name()): generated code's
  // debug locations point into it. Not part of the key.
  std::string source;
  ir::NodePtr qual;         // unfolded; nullptr = always true
  ir::NodePtr qual_folded;  // folded (frontend::fold, frontend.h); nullptr = always true
  std::vector<ir::NodePtr> targets, targets_folded;
  Schema in;      // tuple layout of the relation scanned; ATTR offsets point into it
  Schema out;     // projected row layout; target i is written at out.attrs[i].offset
  Schema params;  // parameter block layout; PARAM node offsets point into it
  // The folded trees' literals as parameters (lift_literals): slots "$0",
  // "$1", ... of params from byte `literal_at` on, their values
  // `literal_block` (params' bytes from literal_at to its end), written into
  // the block before each execution's scan. The unfolded trees (the 1976
  // interpreter's) keep their constants.
  uint32_t literal_at = 0;
  std::vector<uint8_t> literal_block;
  uint32_t scratch_size = 0;  // bytes of qk_ctx.scratch the expressions need
  // An aggregate's inner query: its rows are accumulated (engine/aggregate.cpp),
  // through the back end's Use::Aggregate where it has one, so a back end may
  // make that entry with the plan and --dump shows it. Its aggregates (below)
  // are in the key; the plan's other entries are those of any plan of its key.
  bool accumulates = false;
  // An accumulating plan's aggregates as its block (runtime/accumulate.h's
  // qk_accum) holds them, for back ends that specialise their accumulation:
  // fn a qk_agg_fn, kind a qk_col_kind, the argument's column at `offset` of
  // the row; by_count the by list's columns (0: simple aggregates), by_len
  // their bytes at the row's start.
  // note_accumulation sets them and puts them in the key.
  struct Accumulated {
    uint8_t fn = 0, is_unique = 0, int_sum = 0, kind = 0;
    uint32_t offset = 0;
  };
  std::vector<Accumulated> accumulated;
  uint32_t by_count = 0, by_len = 0;
  // Every tuple qualifies: no qualification, or one folded to a true
  // constant. A page kernel then has nothing to select on (its branch and
  // nobranch variants are one loop).
  bool always_qualifies() const {
    return !qual_folded || (qual_folded->op == ir::Op::CONST && qual_folded->val.i != 0);
  }
  // The scan is a keyed equality lookup (one hash bucket, one ISAM key or an
  // index's entries for one value) that runs once in its statement, outside
  // any tuple substitution: what the harness expects to be little work
  // whatever the relation's size. A JIT may compile it at less optimisation
  // (PrepareOptions::jit_lookup_opt), as PostgreSQL leaves a plan below
  // jit_optimize_above_cost unoptimised. Not in the key: the key's shape
  // and relation decide it, and it changes how code is made, never what it
  // computes.
  bool keyed_lookup = false;
  // Plan-cache key: the folded shape with its literals lifted into parameter
  // slots (their types in it, not their values), layouts and widths.
  // Parameter values are not part of it, so one prepared plan serves every
  // tuple substitution and every statement that differs only in literals.
  std::string key;
};

// Lifts the folded trees' literals into parameter slots appended to
// plan.params (docs/DESIGN.md, "Literals as parameters"): every CONST of a
// value type becomes a PARAM of its type, a character literal compared with
// a wider value widened to that value's width; booleans (what folding made of
// a whole condition) stay constants, in the key. Call before compute_key.
void lift_literals(Plan& plan);
// "$0 = 30, $1 = \"black\"": the literal slots and their values, for dumps.
std::string literal_text(const Plan& plan);
// Fills plan.key from the folded trees and the layouts.
void compute_key(Plan& plan);
// Marks plan as an aggregate's inner query accumulated into acc: its
// aggregates (Plan::accumulated) taken from the block and added to its key,
// after compute_key, so a plan's code may depend on them.
void note_accumulation(Plan& plan, const qk_accum& acc);
// Source positions (packed) of the folded trees' nodes in preorder, qual first.
// Plans with one key have the same trees, so a position found in one plan's
// list names the node at the same index in the other's.
std::vector<uint64_t> plan_positions(const Plan& plan);
// A copy of what a back end reads of a plan (name, source, folded trees,
// layouts, scratch size, key), for prepared plans that generate more code
// later: a fused plan's per-tuple functions, a kernel's other selection.
Plan clone_plan(const Plan& plan);
// Some target of the plan can raise (ir::may_raise): nobranch selection
// projects it only for a qualifying tuple (selection.h).
bool targets_may_raise(const Plan& plan);

}  // namespace quelkit::harness
