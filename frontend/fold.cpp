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

  if (ir::is_nary(n.op)) {
    // Left to right. A constant that does not decide is dropped. One that
    // decides ends the list: the operands after it never run; the ones
    // before it stay, since their evaluation may raise an error first, so
    // only a deciding constant in first place decides the whole. An operand
    // that is itself the same connective (`(a or b) or c`) is spliced in.
    const bool conj = n.op == Op::AND;
    std::vector<NodePtr> keep;
    for (const auto& kid : n.kid) {
      NodePtr k = fold(*kid);
      if (k->op == Op::CONST) {
        if ((k->val.i == 0) != conj) continue;  // true in an and, false in an or
        if (keep.empty()) return bool_const(!conj, n.pos);
        keep.push_back(std::move(k));
        break;
      }
      if (k->op == n.op) {
        for (auto& g : k->kid) keep.push_back(std::move(g));
        if (keep.back()->op == Op::CONST) break;  // the spliced list ended in a deciding constant
        continue;
      }
      keep.push_back(std::move(k));
    }
    if (keep.empty()) return bool_const(conj, n.pos);  // every operand a constant that did not decide
    if (keep.size() == 1) return std::move(keep[0]);
    return ir::copy_with_kids(n, std::move(keep));
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
