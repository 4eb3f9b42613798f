// The 1976 INGRES stack machine: getsymbol (fetch and check one symbol, load a
// leaf's value) and interpret (the loop that applies each generic operator to
// the operands' run-time types). Both stay out of line so they show up in a
// profile as they did in the paper's Table 3. All semantics come from the
// runtime helpers (runtime); this file only decides which to call.
#include "interp/interp.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "storage/page.h"
#include "frontend/op_rules.h"
#include "runtime/inline.h"
#include "runtime/runtime_inline.h"

namespace quelkit::interp {

[[noreturn]] void syserr(const char* what, const Symbol* s) {
  if (s)
    std::fprintf(stderr, "quelkit: internal error: %s (symbol %s, type %d, len %d)\n", what, code_name(s->code),
                 int(s->type), int(s->len));
  else
    std::fprintf(stderr, "quelkit: internal error: %s\n", what);
  std::abort();
}

namespace {

// Bytes of each type in a symbol or cell; 0 = any (characters).
constexpr std::array<uint8_t, kNumTk> kWidth = [] {
  std::array<uint8_t, kNumTk> w{};
  for (int k = 0; k < kNumTk; ++k) w[size_t(k)] = kTypes[k].size;
  return w;
}();

// The class an operator computes in, from its operands' types (DESIGN.md,
// "Types and arithmetic"): integers in i4; with an f8 in f8; else with an f4
// in f4; characters only with characters (kNoTk: no class). The same rule the
// binder applies statically when it inserts conversions, re-derived here per
// tuple. A class is a register class of types.def (integers held as i4).
constexpr Tk binary_class(Tk a, Tk b) {
  Tk x = reg_class(a), y = reg_class(b);
  if (x == Tk::C || y == Tk::C || x == Tk::B || y == Tk::B) return x == y ? x : kNoTk;
  if (x == Tk::F8 || y == Tk::F8) return Tk::F8;
  if (x == Tk::F4 || y == Tk::F4) return Tk::F4;
  return Tk::I4;
}

// One table lookup per operator instead of a chain of type tests.
constexpr std::array<std::array<Tk, kNumTk>, kNumTk> kClass = [] {
  std::array<std::array<Tk, kNumTk>, kNumTk> t{};
  for (int a = 0; a < kNumTk; ++a)
    for (int b = 0; b < kNumTk; ++b) t[size_t(a)][size_t(b)] = binary_class(Tk(a), Tk(b));
  return t;
}();
static_assert(kClass[size_t(Tk::I2)][size_t(Tk::F8)] == Tk::F8 && kClass[size_t(Tk::I4)][size_t(Tk::F4)] == Tk::F4 &&
              kClass[size_t(Tk::I1)][size_t(Tk::I2)] == Tk::I4 && kClass[size_t(Tk::F4)][size_t(Tk::F8)] == Tk::F8 &&
              kClass[size_t(Tk::C)][size_t(Tk::I4)] == kNoTk);

QK_INLINE bool is_numeric_class(Tk c) { return c == Tk::I4 || c == Tk::F4 || c == Tk::F8; }

QK_INLINE double as_f8(const Cell& c) {
  return c.type == Tk::F8 ? c.v.f8 : c.type == Tk::F4 ? double(c.v.f4) : double(c.v.i);
}
QK_INLINE float as_f4(const Cell& c) { return c.type == Tk::F4 ? c.v.f4 : float(c.v.i); }

QK_INLINE void set_i4(Cell* c) {
  c->type = Tk::I4;
  c->len = 4;
}
QK_INLINE void set_f4(Cell* c, float v) {
  c->type = Tk::F4;
  c->len = 4;
  c->v.f4 = v;
}
QK_INLINE void set_f8(Cell* c, double v) {
  c->type = Tk::F8;
  c->len = 8;
  c->v.f8 = v;
}
QK_INLINE void set_b(Cell* c, bool v) {
  c->type = Tk::B;
  c->len = 1;
  c->v.i = v;
}

// An operand of a typed row whose operand type is T: integers are held as
// int32, f4 and f8 cells are widened exactly as the binder's CVT_* nodes do.
template <Tk T>
QK_INLINE ir::held_t<T> operand(const Cell& c) {
  if constexpr (T == Tk::F8) return as_f8(c);
  else if constexpr (T == Tk::F4) return as_f4(c);
  else if constexpr (T == Tk::C) return {c.v.s, c.len};
  else return c.v.i;
}

// Applies the typed row of generic operator G for operands of class T, if
// there is one: its operands converted to the row's types, its runtime rule,
// its result left in a.
template <ir::Generic G, Tk T>
QK_INLINE int apply_row(Cell* a, const Cell* b, const Symbol* s, qk_ctx* ctx) {
  constexpr ir::Op op = [] {
    ir::Op o = ir::Op::CONST;
    ir::typed_op(G, T, &o);
    return o;
  }();
  if constexpr (op == ir::Op::CONST) {
    syserr("interpret: operand types the operator has no row for", s);
  } else {
    constexpr ir::OpInfo row = ir::op_info(op);
    ir::result_t<row.result> r{};
    if constexpr (row.result == Tk::C) r = {ctx->scratch + s->aux, s->len};
    int e;
    if constexpr (row.arity == 1) e = ir::rule_of<op>(operand<row.left>(*a), &r);
    else e = ir::rule_of<op>(operand<row.left>(*a), operand<row.right>(*b), &r);
    if constexpr (row.result == Tk::C) {
      a->type = Tk::C;
      a->len = s->len;  // the node's width: lowering checked it
      a->v.s = r.p;
    } else if constexpr (row.result == Tk::F8) {
      set_f8(a, r);
    } else if constexpr (row.result == Tk::F4) {
      set_f4(a, r);
    } else if constexpr (row.result == Tk::B) {
      set_b(a, r);
    } else {
      set_i4(a);
      a->v.i = r;
    }
    return e;
  }
}

// One generic operator of class Arith, Compare or Function (ops.def): the
// operands' run-time types decide, per tuple, which typed row applies, by the
// operator's typing rule, as the binder decides it statically.
template <ir::Generic G>
QK_INLINE int apply_generic(Cell*& top, const Symbol* s, qk_ctx* ctx) {
  constexpr ir::GenericInfo gi = ir::generic_info(G);
  if constexpr (gi.arity == 2) --top;
  Cell* a = top - 1;
  const Cell* b = top;  // binary operators' right operand
  Tk cls;
  if constexpr (gi.typing == ir::Typing::Numeric || gi.typing == ir::Typing::Compare) {
    cls = kClass[size_t(a->type)][size_t(b->type)];
    if constexpr (G == ir::Generic::Match || G == ir::Generic::NoMatch)
      if (cls != Tk::C) syserr("interpret: pattern match on non-characters", s);
  } else if constexpr (gi.typing == ir::Typing::Keep) {
    cls = reg_class(a->type);
  } else if constexpr (gi.typing == ir::Typing::Float8) {
    cls = gi.arity == 2 ? kClass[size_t(a->type)][size_t(b->type)] : reg_class(a->type);
    if (!is_numeric_class(cls)) syserr("interpret: a function of numbers applied to a non-number", s);
    cls = Tk::F8;
  } else if constexpr (gi.typing == ir::Typing::Integer) {
    cls = gi.arity == 2 ? kClass[size_t(a->type)][size_t(b->type)] : reg_class(a->type);
    if (cls != Tk::I4 || (gi.arity == 2 && !is_int(b->type)) || !is_int(a->type))
      syserr("interpret: an integer operator applied to non-integers", s);
  } else if constexpr (gi.typing == ir::Typing::Ascii) {
    cls = a->type;
  } else if constexpr (gi.typing == ir::Typing::Concat) {
    if (a->type != Tk::C || b->type != Tk::C) syserr("interpret: concat of non-characters", s);
    cls = Tk::C;
  } else {
    static_assert(gi.typing == ir::Typing::Numeric, "a typing rule the interpreter does not know");
  }
  switch (cls) {
    case Tk::I1: return apply_row<G, Tk::I1>(a, b, s, ctx);
    case Tk::I2: return apply_row<G, Tk::I2>(a, b, s, ctx);
    case Tk::I4: return apply_row<G, Tk::I4>(a, b, s, ctx);
    case Tk::F4: return apply_row<G, Tk::F4>(a, b, s, ctx);
    case Tk::F8: return apply_row<G, Tk::F8>(a, b, s, ctx);
    case Tk::C: return apply_row<G, Tk::C>(a, b, s, ctx);
    default: syserr("interpret: operand types the operator has no row for", s);
  }
}

// Conversion to `to` (explicit int1..float8, and Store's conversion to the
// column type): to integers truncating and range checked, to f4 rounded and
// checked for infinity, to f8 exact — the typed CVT_* rules, via the helpers.
QK_INLINE int convert(Cell* c, Tk to, const Symbol* s) {
  const Tk from = c->type;
  if (from == to) return 0;
  const bool from_int = is_int(from), from_float = is_float(from);
  int e = 0;
  switch (to) {
    case Tk::I1:
      if (from_int) e = rt::cvt_i4_i1(c->v.i, &c->v.i);
      else if (from_float) e = rt::cvt_f8_i1(as_f8(*c), &c->v.i);
      else syserr("interpret: conversion of a non-number to i1", s);
      c->len = 1;
      break;
    case Tk::I2:
      if (from_int) e = rt::cvt_i4_i2(c->v.i, &c->v.i);
      else if (from_float) e = rt::cvt_f8_i2(as_f8(*c), &c->v.i);
      else syserr("interpret: conversion of a non-number to i2", s);
      c->len = 2;
      break;
    case Tk::I4:
      if (from_float) e = rt::cvt_f8_i4(as_f8(*c), &c->v.i);
      else if (!from_int) syserr("interpret: conversion of a non-number to i4", s);
      c->len = 4;
      break;
    case Tk::F4:
      if (from_int) c->v.f4 = float(c->v.i);
      else if (from == Tk::F8) e = rt::cvt_f8_f4(c->v.f8, &c->v.f4);
      else syserr("interpret: conversion of a non-number to f4", s);
      c->len = 4;
      break;
    case Tk::F8:
      if (from_int || from_float) c->v.f8 = as_f8(*c);
      else syserr("interpret: conversion of a non-number to f8", s);
      c->len = 8;
      break;
    default:
      syserr("interpret: conversion between characters, booleans and numbers", s);
  }
  c->type = to;
  return e;
}

// Writes a value already converted to the column type at its width: integers
// little-endian at 1/2/4 bytes, floats as themselves, characters truncated or
// blank padded.
QK_INLINE void put(uint8_t* p, const Cell& c, const Symbol* s) {
  switch (s->type) {
    case Tk::I1: harness::store<int8_t>(p, int8_t(c.v.i)); break;
    case Tk::I2: harness::store<int16_t>(p, int16_t(c.v.i)); break;
    case Tk::I4: harness::store<int32_t>(p, c.v.i); break;
    case Tk::F4: harness::store<float>(p, c.v.f4); break;
    case Tk::F8: harness::store<double>(p, c.v.f8); break;
    case Tk::C: rt::store_char(p, s->len, c.v.s, c.len); break;
    case Tk::B: syserr("interpret: boolean stored into a row", s);
  }
}

}  // namespace

// ---- GETSYMBOL ----

__attribute__((noinline)) const Symbol* getsymbol(const Symbol* s, Cell* ts, const uint8_t* tuple) {
  switch (s->code) {
    case Code::Const:
      if (size_t(s->type) >= size_t(kNumTk) || (kWidth[size_t(s->type)] && s->len != kWidth[size_t(s->type)]))
        syserr("getsymbol: constant of a bad type or length", s);
      ts->type = s->type;
      ts->len = s->len;
      ts->v = s->v;
      return s;
    case Code::Attr: {
      if (size_t(s->type) >= size_t(kNumTk) || (kWidth[size_t(s->type)] && s->len != kWidth[size_t(s->type)]))
        syserr("getsymbol: attribute of a bad type or length", s);
      const uint8_t* p = tuple + s->aux;
      ts->type = s->type;
      ts->len = s->len;
      switch (s->type) {
        case Tk::I1: ts->v.i = harness::load<int8_t>(p); break;
        case Tk::I2: ts->v.i = harness::load<int16_t>(p); break;
        case Tk::I4: ts->v.i = harness::load<int32_t>(p); break;
        case Tk::F4: ts->v.f4 = harness::load<float>(p); break;
        case Tk::F8: ts->v.f8 = harness::load<double>(p); break;
        case Tk::C: ts->v.s = p; break;
        case Tk::B: syserr("getsymbol: boolean attribute", s);
      }
      return s;
    }
    default:
      // Operators carry no value; the check keeps a bad code out of the
      // dispatch table (and lets the switch mode skip its range check).
      if (size_t(s->code) >= size_t(kNumCodes)) syserr("getsymbol: bad symbol code", s);
      return s;
  }
}

// ---- INTERPRET, switch dispatch (the 1976 design) ----

__attribute__((noinline)) int interpret(SwitchDispatch, const Symbol* pc, const uint8_t* tuple, uint8_t* row,
                                        Cell* stack, qk_ctx* ctx) {
  Cell* top = stack;
  const Symbol* s;
#define QI_DISPATCH_BEGIN               \
  for (;;) {                            \
    s = getsymbol(pc++, top, tuple);    \
    switch (s->code) {
#define QI_CASE(name) case Code::name:
#define QI_NEXT continue
#define QI_DISPATCH_END                  \
  default: __builtin_unreachable();     \
    }                                   \
  }
#include "interp/interpret_body.h"
#undef QI_DISPATCH_BEGIN
#undef QI_CASE
#undef QI_NEXT
#undef QI_DISPATCH_END
}

// ---- INTERPRET, computed goto: an indirect jump at the end of each operator ----

__attribute__((noinline)) int interpret(GotoDispatch, const Symbol* pc, const uint8_t* tuple, uint8_t* row,
                                        Cell* stack, qk_ctx* ctx) {
  Cell* top = stack;
  const Symbol* s;
  static const void* const kLabels[] = {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) &&L_##ID,
#include "frontend/ops.def"
      &&L_Store, &&L_End};
  static_assert(sizeof kLabels / sizeof kLabels[0] == kNumCodes, "one label per code");
#define QI_DISPATCH_BEGIN QI_NEXT;
#define QI_CASE(name) L_##name:
#define QI_NEXT                           \
  do {                                    \
    s = getsymbol(pc++, top, tuple);      \
    goto* kLabels[size_t(s->code)];       \
  } while (0)
#define QI_DISPATCH_END __builtin_unreachable();
#include "interp/interpret_body.h"
#undef QI_DISPATCH_BEGIN
#undef QI_CASE
#undef QI_NEXT
#undef QI_DISPATCH_END
}

}  // namespace quelkit::interp
