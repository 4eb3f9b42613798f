// The 1976 INGRES stack machine: getsymbol (fetch and check one symbol, load a
// leaf's value) and interpret (the loop that applies each generic operator to
// the operands' run-time types). Both stay out of line so they show up in a
// profile as they did in the paper's Table 3. All semantics come from the
// runtime helpers (harness/runtime); this file only decides which to call.
#include "interp/interp.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "harness/page.h"
#include "harness/runtime/runtime_inline.h"

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

#define QI_INLINE inline __attribute__((always_inline))

constexpr int kNumTk = int(Tk::B) + 1;

// Bytes of each type in a symbol or cell; 0 = any (characters).
constexpr uint8_t kWidth[kNumTk] = {1, 2, 4, 4, 8, 0, 1};

// The class an operator computes in, from its operands' types (DESIGN.md,
// "Types and arithmetic"): integers in i4; with an f8 in f8; else with an f4
// in f4; characters only with characters. The same rule the binder applies
// statically when it inserts conversions, re-derived here per tuple.
enum class Cls : uint8_t { I4, F4, F8, C, B, Bad };

constexpr Cls unary_class(Tk t) {
  switch (t) {
    case Tk::I1: case Tk::I2: case Tk::I4: return Cls::I4;
    case Tk::F4: return Cls::F4;
    case Tk::F8: return Cls::F8;
    case Tk::C: return Cls::C;
    case Tk::B: return Cls::B;
  }
  return Cls::Bad;
}

constexpr Cls binary_class(Tk a, Tk b) {
  Cls x = unary_class(a), y = unary_class(b);
  if (x == Cls::C || y == Cls::C || x == Cls::B || y == Cls::B) return x == y ? x : Cls::Bad;
  if (x == Cls::F8 || y == Cls::F8) return Cls::F8;
  if (x == Cls::F4 || y == Cls::F4) return Cls::F4;
  return Cls::I4;
}

// One table lookup per operator instead of a chain of type tests.
constexpr std::array<Cls, kNumTk> kUnaryClass = [] {
  std::array<Cls, kNumTk> t{};
  for (int a = 0; a < kNumTk; ++a) t[size_t(a)] = unary_class(Tk(a));
  return t;
}();
constexpr std::array<std::array<Cls, kNumTk>, kNumTk> kClass = [] {
  std::array<std::array<Cls, kNumTk>, kNumTk> t{};
  for (int a = 0; a < kNumTk; ++a)
    for (int b = 0; b < kNumTk; ++b) t[size_t(a)][size_t(b)] = binary_class(Tk(a), Tk(b));
  return t;
}();
static_assert(kClass[size_t(Tk::I2)][size_t(Tk::F8)] == Cls::F8 && kClass[size_t(Tk::I4)][size_t(Tk::F4)] == Cls::F4 &&
              kClass[size_t(Tk::I1)][size_t(Tk::I2)] == Cls::I4 && kClass[size_t(Tk::F4)][size_t(Tk::F8)] == Cls::F8 &&
              kClass[size_t(Tk::C)][size_t(Tk::I4)] == Cls::Bad);

QI_INLINE bool is_numeric_class(Cls c) { return c == Cls::I4 || c == Cls::F4 || c == Cls::F8; }
QI_INLINE bool is_int(Tk t) { return t == Tk::I1 || t == Tk::I2 || t == Tk::I4; }

// Widening into a class: exact (integers and f4 to f8, small integers to f4)
// or rounded to nearest (i4 to f4), exactly as the typed CVT_* nodes do.
QI_INLINE double as_f8(const Cell& c) {
  return c.type == Tk::F8 ? c.v.f8 : c.type == Tk::F4 ? double(c.v.f4) : double(c.v.i);
}
QI_INLINE float as_f4(const Cell& c) { return c.type == Tk::F4 ? c.v.f4 : float(c.v.i); }

QI_INLINE void set_i4(Cell* c) {
  c->type = Tk::I4;
  c->len = 4;
}
QI_INLINE void set_f4(Cell* c, float v) {
  c->type = Tk::F4;
  c->len = 4;
  c->v.f4 = v;
}
QI_INLINE void set_f8(Cell* c, double v) {
  c->type = Tk::F8;
  c->len = 8;
  c->v.f8 = v;
}
QI_INLINE void set_b(Cell* c, bool v) {
  c->type = Tk::B;
  c->len = 1;
  c->v.i = v;
}

template <int (*I)(int32_t, int32_t, int32_t*), int (*F)(float, float, float*), int (*D)(double, double, double*)>
QI_INLINE int arith(Cell* a, const Cell* b, const Symbol* s) {
  switch (kClass[size_t(a->type)][size_t(b->type)]) {
    case Cls::I4:
      set_i4(a);
      return I(a->v.i, b->v.i, &a->v.i);
    case Cls::F4: {
      float r = 0;
      int e = F(as_f4(*a), as_f4(*b), &r);
      set_f4(a, r);
      return e;
    }
    case Cls::F8: {
      double r = 0;
      int e = D(as_f8(*a), as_f8(*b), &r);
      set_f8(a, r);
      return e;
    }
    default:
      syserr("interpret: arithmetic on non-numbers", s);
  }
}

template <class Cmp>
QI_INLINE void compare(Cell* a, const Cell* b, const Symbol* s) {
  Cmp cmp;
  bool r;
  switch (kClass[size_t(a->type)][size_t(b->type)]) {
    case Cls::I4: r = cmp(a->v.i, b->v.i); break;
    case Cls::F4: r = cmp(as_f4(*a), as_f4(*b)); break;
    case Cls::F8: r = cmp(as_f8(*a), as_f8(*b)); break;
    case Cls::C: r = cmp(rt::char_cmp(a->v.s, a->len, b->v.s, b->len), 0); break;
    default: syserr("interpret: comparison of incomparable types", s);
  }
  set_b(a, r);
}

QI_INLINE void match(Cell* a, const Cell* pat, const Symbol* s, int want) {
  if (a->type != Tk::C || pat->type != Tk::C) syserr("interpret: pattern match on non-characters", s);
  set_b(a, qk_pattern_match(a->v.s, a->len, pat->v.s, pat->len) == want);
}

template <int (*D)(double, double*)>
QI_INLINE int math1(Cell* a, const Symbol* s) {
  if (!is_numeric_class(kUnaryClass[size_t(a->type)])) syserr("interpret: function of a non-number", s);
  double r = 0;
  int e = D(as_f8(*a), &r);
  set_f8(a, r);
  return e;
}

// Conversion to `to` (explicit int1..float8, and Store's conversion to the
// column type): to integers truncating and range checked, to f4 rounded and
// checked for infinity, to f8 exact — the typed CVT_* rules, via the helpers.
QI_INLINE int convert(Cell* c, Tk to, const Symbol* s) {
  const Tk from = c->type;
  if (from == to) return 0;
  const bool from_int = is_int(from), from_float = from == Tk::F4 || from == Tk::F8;
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
QI_INLINE void put(uint8_t* p, const Cell& c, const Symbol* s) {
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
#define QI_LABEL_ADDRESS(name) &&L_##name,
#define QI_DISPATCH_BEGIN                                                           \
  static const void* const kLabels[] = {QK_INTERP_CODES(QI_LABEL_ADDRESS)};         \
  static_assert(sizeof kLabels / sizeof kLabels[0] == kNumCodes, "one label per code"); \
  QI_NEXT;
#define QI_CASE(name) L_##name:
#define QI_NEXT                           \
  do {                                    \
    s = getsymbol(pc++, top, tuple);      \
    goto* kLabels[size_t(s->code)];       \
  } while (0)
#define QI_DISPATCH_END __builtin_unreachable();
#include "interp/interpret_body.h"
#undef QI_LABEL_ADDRESS
#undef QI_DISPATCH_BEGIN
#undef QI_CASE
#undef QI_NEXT
#undef QI_DISPATCH_END
}

}  // namespace quelkit::interp
