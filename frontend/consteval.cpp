// eval_const (consteval.h): the fold pass's evaluator. Its switch is
// generated from the operator catalogue (ops.def), one case per typed
// operator calling the operator's runtime rule (frontend/op_rules.h), the
// same code the back ends run. It has no default and -Wswitch is an error
// here, so the switch and the catalogue cannot disagree.
#include "frontend/consteval.h"

#include <cmath>

#include "frontend/op_rules.h"

#pragma GCC diagnostic error "-Wswitch"

namespace quelkit::frontend {

namespace {

using ir::Op;

// An operand of type T as its rule takes it.
template <Tk T>
ir::held_t<T> get(const ir::Value& v) {
  if constexpr (T == Tk::F4) return v.f4;
  else if constexpr (T == Tk::F8) return v.f8;
  else if constexpr (T == Tk::C) return {reinterpret_cast<const uint8_t*>(v.s.data()), uint32_t(v.s.size())};
  else return static_cast<int32_t>(v.i);
}

constexpr int kNotConstant = -1;

// One typed operator over constant operands, by its catalogue row.
template <Op OP>
int eval_row(Type result, const ir::Value* args, ir::Value& r) {
  constexpr ir::OpInfo o = ir::op_info(OP);
  if constexpr (o.cls() == ir::Class::Leaf) {
    return kNotConstant;
  } else if constexpr (o.generic == ir::Generic::And) {
    r.i = args[0].i && args[1].i;  // both operands are values here: no short-circuit needed
    return 0;
  } else if constexpr (o.generic == ir::Generic::Or) {
    r.i = args[0].i || args[1].i;
    return 0;
  } else {
    static_assert(ir::has_rule<OP>, "an operator without a rule that the fold pass cannot evaluate");
    ir::result_t<o.result> out{};
    if constexpr (o.result == Tk::C) {
      r.s.resize(result.len);
      out = {reinterpret_cast<uint8_t*>(r.s.data()), result.len};
    }
    int e;
    if constexpr (o.arity == 1) e = ir::rule_of<OP>(get<o.left>(args[0]), &out);
    else e = ir::rule_of<OP>(get<o.left>(args[0]), get<o.right>(args[1]), &out);
    if constexpr (o.result == Tk::F4) r.f4 = out;
    else if constexpr (o.result == Tk::F8) r.f8 = out;
    else if constexpr (o.result != Tk::C) r.i = out;
    return e;
  }
}

}  // namespace

bool eval_const(ir::Op op, Type result, const ir::Value* args, ir::Value* out, int* err) {
  ir::Value r;
  int e = 0;
  switch (op) {
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) \
  case Op::ID:                                   \
    e = eval_row<Op::ID>(result, args, r);       \
    break;
#include "frontend/ops.def"
  }
  if (e == kNotConstant) {  // leaves are evaluated by the back ends
    *err = 0;
    return false;
  }
  if (e != 0) {
    *err = e;
    return false;
  }
  *err = 0;
  *out = std::move(r);
  return true;
}

}  // namespace quelkit::frontend
