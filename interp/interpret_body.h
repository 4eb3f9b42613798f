// The body of interpret(): every operator written once, included twice by
// interp/interp.cpp with the dispatch macros of one mode each (switch, goto),
// as Lua's lvm.c/ljumptab.h do. Not a header to include anywhere else.
//
// The includer defines QI_DISPATCH_BEGIN / QI_CASE(name) / QI_NEXT /
// QI_DISPATCH_END and provides: pc (next symbol), s (current symbol), top
// (first free stack cell), stack, tuple, row, ctx. Each operator finds its
// operands' types on the stack, applies DESIGN.md's rules and the runtime
// helpers, leaves its result in the lowest operand's cell and pops the rest.
// A runtime error is raised at the operator's position and ends the run.

#define QI_RAISE(code) return qk_raise(ctx, (code), s->v.pos)
#define QI_CHECK(...)                   \
  do {                                  \
    if (int qi_e_ = (__VA_ARGS__)) QI_RAISE(qi_e_); \
  } while (0)

QI_DISPATCH_BEGIN

// Leaves: getsymbol already loaded the value into the free cell.
QI_CASE(Const)
QI_CASE(Attr) {
  ++top;
  QI_NEXT;
}

QI_CASE(Param) syserr("interpret: parameter symbol (parameters are inlined as constants)", s);

// Explicit int1..float8 (and implicit narrowing ones lowering kept).
QI_CASE(Cvt) {
  QI_CHECK(convert(top - 1, s->type, s));
  QI_NEXT;
}

// Unary minus: integers in i4 (-2147483648 overflows), floats flip the sign.
// Every operator of class Arith, Compare or Function (ops.def): one case
// each, generated, typing its operands per tuple (apply_generic).
#define QI_OPERATOR_Leaf(ID)
#define QI_OPERATOR_Convert(ID)
#define QI_OPERATOR_Logic(ID)
#define QI_OPERATOR_Arith(ID)                                \
  QI_CASE(ID) {                                              \
    QI_CHECK(apply_generic<ir::Generic::ID>(top, s, ctx));   \
    QI_NEXT;                                                 \
  }
#define QI_OPERATOR_Compare(ID) QI_OPERATOR_Arith(ID)
#define QI_OPERATOR_Function(ID) QI_OPERATOR_Arith(ID)
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) QI_OPERATOR_##CLASS(ID)
#include "frontend/ops.def"
#undef QI_OPERATOR_Leaf
#undef QI_OPERATOR_Convert
#undef QI_OPERATOR_Logic
#undef QI_OPERATOR_Arith
#undef QI_OPERATOR_Compare
#undef QI_OPERATOR_Function

QI_CASE(And) {
  const Cell* a = top - 1;
  if (a->type != Tk::B) syserr("interpret: and of a non-boolean", s);
  if (a->v.i == 0) {
    pc += s->aux;  // false stays on the stack as the result
    QI_NEXT;
  }
  --top;
  QI_NEXT;
}
QI_CASE(Or) {
  const Cell* a = top - 1;
  if (a->type != Tk::B) syserr("interpret: or of a non-boolean", s);
  if (a->v.i != 0) {
    pc += s->aux;  // true stays on the stack as the result
    QI_NEXT;
  }
  --top;
  QI_NEXT;
}
QI_CASE(Not) {
  Cell* a = top - 1;
  if (a->type != Tk::B) syserr("interpret: not of a non-boolean", s);
  a->v.i = !a->v.i;
  QI_NEXT;
}

// abs keeps its operand's type (integers as i4).
QI_CASE(Store) {
  --top;
  QI_CHECK(convert(top, s->type, s));
  put(row + s->aux, *top, s);
  QI_NEXT;
}

// End of a list: a qualification leaves its truth value, a target list nothing.
QI_CASE(End) {
  if (top == stack) return 0;
  if (top != stack + 1 || stack->type != Tk::B) syserr("interpret: list does not end with one boolean", s);
  return stack->v.i != 0;
}

QI_DISPATCH_END

#undef QI_CHECK
#undef QI_RAISE
