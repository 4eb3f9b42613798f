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
QI_CASE(Neg) {
  Cell* a = top - 1;
  switch (kUnaryClass[size_t(a->type)]) {
    case Cls::I4: set_i4(a); QI_CHECK(rt::neg_i4(a->v.i, &a->v.i)); break;
    case Cls::F4: a->v.f4 = -a->v.f4; break;
    case Cls::F8: a->v.f8 = -a->v.f8; break;
    default: syserr("interpret: - of a non-number", s);
  }
  QI_NEXT;
}

// Binary arithmetic in the operands' class (i4, f4 or f8), converting per tuple.
QI_CASE(Add) {
  --top;
  QI_CHECK(arith<rt::add_i4, rt::add_f4, rt::add_f8>(top - 1, top, s));
  QI_NEXT;
}
QI_CASE(Sub) {
  --top;
  QI_CHECK(arith<rt::sub_i4, rt::sub_f4, rt::sub_f8>(top - 1, top, s));
  QI_NEXT;
}
QI_CASE(Mul) {
  --top;
  QI_CHECK(arith<rt::mul_i4, rt::mul_f4, rt::mul_f8>(top - 1, top, s));
  QI_NEXT;
}
QI_CASE(Div) {
  --top;
  QI_CHECK(arith<rt::div_i4, rt::div_f4, rt::div_f8>(top - 1, top, s));
  QI_NEXT;
}

// a ** b: both operands to f8.
QI_CASE(Pow) {
  --top;
  Cell* a = top - 1;
  if (!is_numeric_class(kClass[size_t(a->type)][size_t(top->type)])) syserr("interpret: ** of non-numbers", s);
  double r;
  QI_CHECK(rt::pow_f8(as_f8(*a), as_f8(*top), &r));
  set_f8(a, r);
  QI_NEXT;
}

// mod: integers only, in i4.
QI_CASE(Mod) {
  --top;
  Cell* a = top - 1;
  if (kClass[size_t(a->type)][size_t(top->type)] != Cls::I4) syserr("interpret: mod of non-integers", s);
  set_i4(a);
  QI_CHECK(rt::mod_i4(a->v.i, top->v.i, &a->v.i));
  QI_NEXT;
}

// Comparisons: numbers in their class, characters blank-stripped and unsigned.
QI_CASE(Eq) {
  --top;
  compare<std::equal_to<>>(top - 1, top, s);
  QI_NEXT;
}
QI_CASE(Ne) {
  --top;
  compare<std::not_equal_to<>>(top - 1, top, s);
  QI_NEXT;
}
QI_CASE(Lt) {
  --top;
  compare<std::less<>>(top - 1, top, s);
  QI_NEXT;
}
QI_CASE(Le) {
  --top;
  compare<std::less_equal<>>(top - 1, top, s);
  QI_NEXT;
}
QI_CASE(Gt) {
  --top;
  compare<std::greater<>>(top - 1, top, s);
  QI_NEXT;
}
QI_CASE(Ge) {
  --top;
  compare<std::greater_equal<>>(top - 1, top, s);
  QI_NEXT;
}

// Pattern matches: the pattern (a query literal) is the right operand.
QI_CASE(Match) {
  --top;
  match(top - 1, top, s, 1);
  QI_NEXT;
}
QI_CASE(NoMatch) {
  --top;
  match(top - 1, top, s, 0);
  QI_NEXT;
}

// and/or branches: the left value decides, or is popped for the right one.
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
QI_CASE(Abs) {
  Cell* a = top - 1;
  switch (kUnaryClass[size_t(a->type)]) {
    case Cls::I4: set_i4(a); QI_CHECK(rt::abs_i4(a->v.i, &a->v.i)); break;
    case Cls::F4: a->v.f4 = std::fabs(a->v.f4); break;
    case Cls::F8: a->v.f8 = std::fabs(a->v.f8); break;
    default: syserr("interpret: abs of a non-number", s);
  }
  QI_NEXT;
}

// Functions of one f8: the operand is converted to f8 first.
QI_CASE(Sqrt) {
  QI_CHECK(math1<rt::sqrt_f8>(top - 1, s));
  QI_NEXT;
}
QI_CASE(Log) {
  QI_CHECK(math1<rt::log_f8>(top - 1, s));
  QI_NEXT;
}
QI_CASE(Exp) {
  QI_CHECK(math1<rt::exp_f8>(top - 1, s));
  QI_NEXT;
}
QI_CASE(Sin) {
  QI_CHECK(math1<rt::sin_f8>(top - 1, s));
  QI_NEXT;
}
QI_CASE(Cos) {
  QI_CHECK(math1<rt::cos_f8>(top - 1, s));
  QI_NEXT;
}
QI_CASE(Atan) {
  QI_CHECK(math1<rt::atan_f8>(top - 1, s));
  QI_NEXT;
}

// Character results go to the node's scratch slot: no allocation per tuple.
QI_CASE(Ascii) {
  Cell* a = top - 1;
  uint8_t* out = ctx->scratch + s->aux;
  switch (a->type) {
    case Tk::I1: case Tk::I2: case Tk::I4: qk_ascii_i4(a->v.i, out, s->len); break;
    case Tk::F4: qk_ascii_f4(a->v.f4, out, s->len); break;
    case Tk::F8: qk_ascii_f8(a->v.f8, out, s->len); break;
    default: syserr("interpret: ascii of a non-number", s);
  }
  a->type = Tk::C;
  a->len = s->len;
  a->v.s = out;
  QI_NEXT;
}
QI_CASE(Concat) {
  --top;
  Cell* a = top - 1;
  if (a->type != Tk::C || top->type != Tk::C) syserr("interpret: concat of non-characters", s);
  uint8_t* out = ctx->scratch + s->aux;
  qk_concat(a->v.s, a->len, top->v.s, top->len, out);
  a->len = uint8_t(a->len + top->len);  // lowering checked the sum is the node's width
  a->v.s = out;
  QI_NEXT;
}

// A target's value, converted to its column type, into the output row.
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
