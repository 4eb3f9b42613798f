// What the front end knows of QUEL aggregates: their names (the parser turns a
// call of one into an Aggregate node) and a deep copy of an expression, which
// the harness uses to rewrite a statement once its aggregates have values.
#include "frontend/aggregate_names.h"
#include "frontend/frontend.h"

namespace quelkit::frontend {

bool is_aggregate_name(std::string_view name) {
  for (auto n : kAggregateNames)
    if (n == name) return true;
  return false;
}

ast::ExprPtr clone(const ast::Expr& e) {
  auto c = std::make_unique<ast::Expr>();
  c->kind = e.kind;
  c->pos = e.pos;
  c->ival = e.ival;
  c->fval = e.fval;
  c->text = e.text;
  c->attr = e.attr;
  c->value_type = e.value_type;
  c->op = e.op;
  for (const auto& a : e.args) c->args.push_back(clone(*a));
  for (const auto& b : e.by) c->by.push_back(clone(*b));
  if (e.qual) c->qual = clone(*e.qual);
  return c;
}

}  // namespace quelkit::frontend
