// The fold pass: evaluates constant subexpressions of a bound tree once, at
// prepare time, with the run-time rules (consteval.h), so threaded code and
// both JITs see `log(9.5) * p.weight` as one constant times a conversion.
// A subexpression whose evaluation raises is kept, so the error still happens
// at run time, at its position, and only if evaluation reaches it.
#include "frontend/consteval.h"
#include "frontend/frontend.h"

namespace quelkit::frontend {

namespace {

using ir::NodePtr;
using ir::Op;

NodePtr bool_const(bool v, SrcPos pos) {
  ir::Value val;
  val.i = v ? 1 : 0;
  return ir::make_const(Type::b(), std::move(val), pos);
}

NodePtr copy_node(const ir::Node& n, NodePtr a, NodePtr b) { return ir::copy_with_kids(n, std::move(a), std::move(b)); }

}  // namespace

NodePtr fold(const ir::Node& n) {
  const int arity = n.arity();
  if (arity == 0) return n.clone();

  if (n.op == Op::AND || n.op == Op::OR) {
    // Only a constant left operand decides: a constant right one cannot
    // remove the left, whose evaluation may raise an error first.
    NodePtr l = fold(*n.kid[0]);
    if (l->op == Op::CONST) {
      bool decides = (n.op == Op::AND) ? l->val.i == 0 : l->val.i != 0;
      if (decides) return bool_const(n.op == Op::OR, n.pos);
      return fold(*n.kid[1]);
    }
    return copy_node(n, std::move(l), fold(*n.kid[1]));
  }

  NodePtr k[2];
  bool all_const = true;
  for (int i = 0; i < arity; ++i) {
    k[i] = fold(*n.kid[i]);
    all_const = all_const && k[i]->op == Op::CONST;
  }
  if (all_const) {
    ir::Value args[2];
    for (int i = 0; i < arity; ++i) args[i] = k[i]->val;
    ir::Value out;
    int err = 0;
    if (eval_const(n.op, n.type, args, &out, &err)) return ir::make_const(n.type, std::move(out), n.pos);
  }
  return copy_node(n, std::move(k[0]), std::move(k[1]));
}

}  // namespace quelkit::frontend
