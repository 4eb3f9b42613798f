// What each node kind does, written once as a template over its KindDesc and
// instantiated for every kind of kKinds by both dispatch methods
// (threaded/run.cpp). A step runs one node and returns the next node to run,
// or nullptr after raising a runtime error (r0 = -1). Every rule with a
// subtlety is a runtime helper (harness/runtime), the same code the
// interpreter, the fold pass and the JITs run; this file only picks which one,
// from the operator's ops.def row, at compile time. Not a general header:
// only threaded/run.cpp includes it.
#pragma once

#include <cmath>
#include <cstring>
#include <type_traits>

#include "harness/page.h"
#include "harness/runtime/runtime_inline.h"
#include "threaded/program.h"

namespace quelkit::threaded::steps {

#define QT_INLINE inline __attribute__((always_inline))

template <auto>
inline constexpr bool kNever = false;

// Errors leave the hot handlers through one cold function.
[[gnu::cold, gnu::noinline]] inline const Node* raise(Reg* R, qk_ctx* ctx, int code, const Node* n) {
  R[kStatusReg].i = -1;
  qk_raise(ctx, code, n->pos);
  return nullptr;
}
#define QT_CHECK(...)                                        \
  do {                                                       \
    if (int qt_e_ = (__VA_ARGS__)) [[unlikely]]              \
      return ::quelkit::threaded::steps::raise(R, ctx, qt_e_, n); \
  } while (0)

// ---- registers and stored values ----

template <Tk T>
QT_INLINE auto rget(const Reg& r) {
  if constexpr (T == Tk::F4) return r.f4;
  else if constexpr (T == Tk::F8) return r.f8;
  else if constexpr (T == Tk::C) return r.s;
  else return r.i;  // integers of every width, booleans
}

template <Tk T, class V>
QT_INLINE void rset(Reg& r, V v) {
  if constexpr (T == Tk::F4) r.f4 = v;
  else if constexpr (T == Tk::F8) r.f8 = v;
  else if constexpr (T == Tk::C) r.s = v;
  else r.i = v;
}

template <Tk S>
QT_INLINE auto load_stored(const uint8_t* p) {
  if constexpr (S == Tk::I1) return int32_t(harness::load<int8_t>(p));
  else if constexpr (S == Tk::I2) return int32_t(harness::load<int16_t>(p));
  else if constexpr (S == Tk::I4) return harness::load<int32_t>(p);
  else if constexpr (S == Tk::F4) return harness::load<float>(p);
  else if constexpr (S == Tk::F8) return harness::load<double>(p);
  else if constexpr (S == Tk::C) return p;
  else static_assert(kNever<S>, "no stored booleans");
}

// A stored value loaded into a register of type T (loads_as(S, T)): the
// widening conversions exactly as the CVT_* nodes and the interpreter do them.
template <Tk S, Tk T>
QT_INLINE auto load_as(const uint8_t* p) {
  static_assert(loads_as(S, T));
  auto v = load_stored<S>(p);
  if constexpr (T == Tk::F4 && is_int(S)) return float(v);
  else if constexpr (T == Tk::F8 && S != Tk::F8) return double(v);
  else return v;
}

template <Tk S, class V>
QT_INLINE void store_col(uint8_t* p, V v) {
  if constexpr (S == Tk::I1) harness::store<int8_t>(p, int8_t(v));
  else if constexpr (S == Tk::I2) harness::store<int16_t>(p, int16_t(v));
  else if constexpr (S == Tk::I4) harness::store<int32_t>(p, v);
  else if constexpr (S == Tk::F4) harness::store<float>(p, v);
  else if constexpr (S == Tk::F8) harness::store<double>(p, v);
  else static_assert(kNever<S>, "characters are stored by length");
}

// Copies n (< 256) bytes with overlapping fixed-size moves: character
// attributes are short, and a variable-length memcpy became `rep movsq`,
// whose start-up cost dominated the projection.
QT_INLINE void copy_bytes(uint8_t* d, const uint8_t* s, uint32_t n) {
  auto mv = [&](uint32_t at, auto tag) {
    decltype(tag) v;
    std::memcpy(&v, s + at, sizeof v);
    std::memcpy(d + at, &v, sizeof v);
  };
  struct B16 {
    uint64_t x[2];
  };
  struct B32 {
    uint64_t x[4];
  };
  if (n >= 32) {
    for (uint32_t i = 0; i + 32 < n; i += 32) mv(i, B32{});
    mv(n - 32, B32{});
  } else if (n >= 16) {
    mv(0, B16{});
    mv(n - 16, B16{});
  } else if (n >= 8) {
    mv(0, uint64_t{});
    mv(n - 8, uint64_t{});
  } else if (n >= 4) {
    mv(0, uint32_t{});
    mv(n - 4, uint32_t{});
  } else if (n >= 2) {
    mv(0, uint16_t{});
    mv(n - 2, uint16_t{});
  } else if (n == 1) {
    d[0] = s[0];
  }
}

// ---- operator rules, chosen by the ops.def row ----

template <ir::Generic G, class V>
QT_INLINE bool compare(V x, V y) {
  using enum ir::Generic;
  if constexpr (G == Eq) return x == y;
  else if constexpr (G == Ne) return x != y;
  else if constexpr (G == Lt) return x < y;
  else if constexpr (G == Le) return x <= y;
  else if constexpr (G == Gt) return x > y;
  else if constexpr (G == Ge) return x >= y;
  else static_assert(kNever<G>, "not a comparison");
}

// The checked binary rule of an arithmetic operator in class T.
template <ir::Generic G, Tk T>
constexpr auto arith() {
  using enum ir::Generic;
  if constexpr (T == Tk::I4) {
    if constexpr (G == Add) return &rt::add_i4;
    else if constexpr (G == Sub) return &rt::sub_i4;
    else if constexpr (G == Mul) return &rt::mul_i4;
    else if constexpr (G == Div) return &rt::div_i4;
    else if constexpr (G == Mod) return &rt::mod_i4;
    else static_assert(kNever<G>, "no i4 rule");
  } else if constexpr (T == Tk::F4) {
    if constexpr (G == Add) return &rt::add_f4;
    else if constexpr (G == Sub) return &rt::sub_f4;
    else if constexpr (G == Mul) return &rt::mul_f4;
    else if constexpr (G == Div) return &rt::div_f4;
    else static_assert(kNever<G>, "no f4 rule");
  } else if constexpr (T == Tk::F8) {
    if constexpr (G == Add) return &rt::add_f8;
    else if constexpr (G == Sub) return &rt::sub_f8;
    else if constexpr (G == Mul) return &rt::mul_f8;
    else if constexpr (G == Div) return &rt::div_f8;
    else if constexpr (G == Pow) return &rt::pow_f8;
    else static_assert(kNever<G>, "no f8 rule");
  } else {
    static_assert(kNever<T>, "arithmetic on a non-number");
  }
}

// The checked f8 function rules.
template <ir::Generic G>
constexpr auto math1() {
  using enum ir::Generic;
  if constexpr (G == Sqrt) return &rt::sqrt_f8;
  else if constexpr (G == Log) return &rt::log_f8;
  else if constexpr (G == Exp) return &rt::exp_f8;
  else if constexpr (G == Sin) return &rt::sin_f8;
  else if constexpr (G == Cos) return &rt::cos_f8;
  else if constexpr (G == Atan) return &rt::atan_f8;
  else static_assert(kNever<G>, "not an f8 function");
}

constexpr int int_rank(Tk t) { return t == Tk::I1 ? 1 : t == Tk::I2 ? 2 : 4; }

// f8 (and f4, exactly widened) to an integer type: truncated, range checked.
template <Tk To>
QT_INLINE int float_to_int(double v, int32_t* r) {
  if constexpr (To == Tk::I1) return rt::cvt_f8_i1(v, r);
  else if constexpr (To == Tk::I2) return rt::cvt_f8_i2(v, r);
  else return rt::cvt_f8_i4(v, r);
}

// CVT_<A>_<T>: the rules of ops.def's conversion rows (as interp's convert()).
template <Tk A, Tk T>
QT_INLINE const Node* convert(const Node* n, Reg* R, qk_ctx* ctx) {
  Reg& d = R[n->dst];
  const Reg& a = R[n->a];
  if constexpr (is_int(A) && is_int(T)) {
    if constexpr (int_rank(T) >= int_rank(A)) d.i = a.i;
    else if constexpr (T == Tk::I1) QT_CHECK(rt::cvt_i4_i1(a.i, &d.i));
    else QT_CHECK(rt::cvt_i4_i2(a.i, &d.i));
  } else if constexpr (is_int(A) && T == Tk::F4) {
    d.f4 = float(a.i);
  } else if constexpr (is_int(A) && T == Tk::F8) {
    d.f8 = double(a.i);
  } else if constexpr (A == Tk::F4 && T == Tk::F8) {
    d.f8 = double(a.f4);
  } else if constexpr (A == Tk::F4 && is_int(T)) {
    QT_CHECK(float_to_int<T>(double(a.f4), &d.i));
  } else if constexpr (A == Tk::F8 && is_int(T)) {
    QT_CHECK(float_to_int<T>(a.f8, &d.i));
  } else if constexpr (A == Tk::F8 && T == Tk::F4) {
    QT_CHECK(rt::cvt_f8_f4(a.f8, &d.f4));
  } else {
    static_assert(kNever<A>, "no such conversion");
  }
  return n + 1;
}

// One ops.def operator over registers.
template <ir::Op OP>
QT_INLINE const Node* op_step(const Node* n, Reg* R, qk_ctx* ctx) {
  using enum ir::Generic;
  constexpr OpRow row = op_row(OP);
  constexpr ir::Generic G = row.generic;
  constexpr Tk A = tk_of(row.left);
  constexpr Tk T = tk_of(row.result);
  Reg& d = R[n->dst];
  if constexpr (G == Cvt) {
    return convert<A, T>(n, R, ctx);
  } else if constexpr (G == Neg) {
    if constexpr (A == Tk::I4) QT_CHECK(rt::neg_i4(R[n->a].i, &d.i));
    else rset<A>(d, -rget<A>(R[n->a]));
  } else if constexpr (G == Abs) {
    if constexpr (A == Tk::I4) QT_CHECK(rt::abs_i4(R[n->a].i, &d.i));
    else rset<A>(d, std::fabs(rget<A>(R[n->a])));
  } else if constexpr (G == Add || G == Sub || G == Mul || G == Div || G == Pow || G == Mod) {
    constexpr auto f = arith<G, A>();
    auto x = rget<A>(R[n->a]), y = rget<A>(R[n->b]);
    std::remove_reference_t<decltype(x)> r;
    QT_CHECK(f(x, y, &r));
    rset<T>(d, r);
  } else if constexpr (G == Eq || G == Ne || G == Lt || G == Le || G == Gt || G == Ge) {
    if constexpr (A == Tk::C) d.i = compare<G>(rt::char_cmp(R[n->a].s, n->alen, R[n->b].s, n->blen), 0);
    else d.i = compare<G>(rget<A>(R[n->a]), rget<A>(R[n->b]));
  } else if constexpr (G == Match || G == NoMatch) {
    d.i = qk_pattern_match(R[n->a].s, n->alen, R[n->b].s, n->blen) == (G == Match ? 1 : 0);
  } else if constexpr (G == And) {
    // The left operand is already in d (== a): false decides, skip the right.
    if (R[n->a].i == 0) return n + int32_t(n->off);
  } else if constexpr (G == Or) {
    if (R[n->a].i != 0) return n + int32_t(n->off);
  } else if constexpr (G == Not) {
    d.i = !R[n->a].i;
  } else if constexpr (G == Sqrt || G == Log || G == Exp || G == Sin || G == Cos || G == Atan) {
    constexpr auto f = math1<G>();
    double r;
    QT_CHECK(f(R[n->a].f8, &r));
    d.f8 = r;
  } else if constexpr (G == Ascii) {
    uint8_t* out = ctx->scratch + n->off;
    if constexpr (is_int(A)) qk_ascii_i4(R[n->a].i, out, n->alen);
    else if constexpr (A == Tk::F4) qk_ascii_f4(R[n->a].f4, out, n->alen);
    else qk_ascii_f8(R[n->a].f8, out, n->alen);
    d.s = out;
  } else if constexpr (G == Concat) {
    uint8_t* out = ctx->scratch + n->off;
    qk_concat(R[n->a].s, n->alen, R[n->b].s, n->blen, out);
    d.s = out;
  } else {
    static_assert(kNever<OP>, "an ops.def operator without a rule here");
  }
  return n + 1;
}

// One node of kind K (every form except the two ends, which the dispatchers
// handle because they decide what runs next).
template <KindDesc K>
QT_INLINE const Node* step(const Node* n, Reg* R, const uint8_t* t, uint8_t* row, qk_ctx* ctx) {
  if constexpr (K.form == Form::Op) {
    return op_step<K.op>(n, R, ctx);
  } else if constexpr (K.form == Form::Attr) {
    rset<K.to>(R[n->dst], load_as<K.src, K.to>(t + n->off));
  } else if constexpr (K.form == Form::Param) {
    rset<K.to>(R[n->dst], load_stored<K.src>(ctx->params + n->off));
  } else if constexpr (K.form == Form::CmpAttr) {
    constexpr ir::Generic G = op_row(K.op).generic;
    if constexpr (G == ir::Generic::Match || G == ir::Generic::NoMatch)
      R[n->dst].i = qk_pattern_match(t + n->off, n->alen, R[n->b].s, n->blen) == (G == ir::Generic::Match ? 1 : 0);
    else if constexpr (K.to == Tk::C)
      R[n->dst].i = compare<G>(rt::char_cmp(t + n->off, n->alen, R[n->b].s, n->blen), 0);
    else
      R[n->dst].i = compare<G>(load_as<K.src, K.to>(t + n->off), rget<K.to>(R[n->b]));
  } else if constexpr (K.form == Form::ArithAttr) {
    constexpr auto f = arith<op_row(K.op).generic, K.to>();
    auto x = load_as<K.src, K.to>(t + n->off);
    auto y = rget<K.to>(R[n->b]);
    decltype(y) r;
    QT_CHECK(f(x, y, &r));
    rset<K.to>(R[n->dst], r);
  } else if constexpr (K.form == Form::Move) {
    R[n->dst] = R[n->a];
  } else if constexpr (K.form == Form::Store) {
    if constexpr (K.src == Tk::C) {
      // value alen bytes, column blen bytes; the kept bytes moved by copy_bytes
      auto copy = [](uint8_t* d, const uint8_t* s, uint32_t k) __attribute__((always_inline)) { copy_bytes(d, s, k); };
      rt::store_char(row + n->off, n->blen, R[n->a].s, n->alen, copy);
    } else {
      store_col<K.src>(row + n->off, rget<reg_class(K.src)>(R[n->a]));
    }
  } else if constexpr (K.form == Form::Copy) {
    if constexpr (K.src == Tk::C) copy_bytes(row + n->off2, t + n->off, n->alen);
    else if constexpr (K.src == Tk::I1) row[n->off2] = t[n->off];
    else if constexpr (K.src == Tk::I2) std::memcpy(row + n->off2, t + n->off, 2);
    else if constexpr (K.src == Tk::I4 || K.src == Tk::F4) std::memcpy(row + n->off2, t + n->off, 4);
    else std::memcpy(row + n->off2, t + n->off, 8);
  } else {
    static_assert(kNever<K.form>, "ends are run by the dispatchers");
  }
  return n + 1;
}

}  // namespace quelkit::threaded::steps
