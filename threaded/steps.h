// What each node kind does, written once as a template over its KindDesc and
// instantiated for every kind of kKinds by both dispatch methods
// (threaded/run.cpp). A step runs one node and returns the next node to run,
// or nullptr after raising a runtime error (r0 = -1). Every rule with a
// subtlety is a runtime helper (runtime), the same code the
// interpreter, the fold pass and the JITs run; this file only picks which one,
// from the operator's row of the catalogue (ops.def), at compile time. Not a general header:
// only threaded/run.cpp includes it.
#pragma once

#include <cmath>
#include <cstring>
#include <type_traits>

#include "storage/page.h"
#include "storage/stored.h"
#include "frontend/op_rules.h"
#include "runtime/inline.h"
#include "runtime/runtime_inline.h"
#include "threaded/program.h"

namespace quelkit::threaded::steps {

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
QK_INLINE auto rget(const Reg& r) {
  if constexpr (T == Tk::F4) return r.f4;
  else if constexpr (T == Tk::F8) return r.f8;
  else if constexpr (T == Tk::C) return r.s;
  else return r.i;  // integers of every width, booleans
}

template <Tk T, class V>
QK_INLINE void rset(Reg& r, V v) {
  if constexpr (T == Tk::F4) r.f4 = v;
  else if constexpr (T == Tk::F8) r.f8 = v;
  else if constexpr (T == Tk::C) r.s = v;
  else r.i = v;
}

// Stored fields loaded into registers and stored back (storage/stored.h).
using harness::load_as;
using harness::load_stored;
using harness::store_col;

// ---- operators: each typed row's runtime rule (frontend/op_rules.h) ----

// An operand in a register, as the rule of a row with operand type T takes it
// (characters need their length, which the node carries).
template <Tk T>
QK_INLINE ir::held_t<T> arg(const Reg& r, uint8_t len) {
  if constexpr (T == Tk::C) return {r.s, len};
  else return rget<reg_class(T)>(r);
}

// A rule's result into register d (a character result is already in scratch).
template <Tk T>
QK_INLINE void put(Reg& d, const ir::result_t<T>& v) {
  if constexpr (T == Tk::C) d.s = v.p;
  else rset<reg_class(T)>(d, v);
}

// One catalogue operator over registers. and/or are control flow: the left
// operand is already in d (== a); when it decides, skip the right one.
template <ir::Op OP>
QK_INLINE const Node* op_step(const Node* n, Reg* R, qk_ctx* ctx) {
  constexpr ir::OpInfo row = ir::op_info(OP);
  if constexpr (row.generic == ir::Generic::And) {
    if (R[n->a].i == 0) return n + int32_t(n->off);
  } else if constexpr (row.generic == ir::Generic::Or) {
    if (R[n->a].i != 0) return n + int32_t(n->off);
  } else {
    static_assert(ir::has_rule<OP>, "an operator without a runtime rule");
    ir::result_t<row.result> r{};
    if constexpr (row.result == Tk::C) r = {ctx->scratch + n->off, n->off2};  // its slot and width
    if constexpr (row.arity == 1) QT_CHECK(ir::rule_of<OP>(arg<row.left>(R[n->a], n->alen), &r));
    else QT_CHECK(ir::rule_of<OP>(arg<row.left>(R[n->a], n->alen), arg<row.right>(R[n->b], n->blen), &r));
    put<row.result>(R[n->dst], r);
  }
  return n + 1;
}

// One node of kind K (every form except the two ends, which the dispatchers
// handle because they decide what runs next).
template <KindDesc K>
QK_INLINE const Node* step(const Node* n, Reg* R, const uint8_t* t, uint8_t* row, qk_ctx* ctx) {
  if constexpr (K.form == Form::Op) {
    return op_step<K.op>(n, R, ctx);
  } else if constexpr (K.form == Form::Attr) {
    rset<K.to>(R[n->dst], load_as<K.src, K.to>(t + n->off));
  } else if constexpr (K.form == Form::Param) {
    rset<K.to>(R[n->dst], load_stored<K.src>(ctx->params + n->off));
  } else if constexpr (K.form == Form::CmpAttr || K.form == Form::ArithAttr) {
    // The row's rule with its left operand read from the tuple.
    constexpr ir::OpInfo r0 = ir::op_info(K.op);
    ir::held_t<K.to> x;
    if constexpr (K.to == Tk::C) x = {t + n->off, n->alen};
    else x = load_as<K.src, K.to>(t + n->off);
    ir::result_t<r0.result> r;
    QT_CHECK(ir::rule_of<K.op>(x, arg<r0.right>(R[n->b], n->blen), &r));
    put<r0.result>(R[n->dst], r);
  } else if constexpr (K.form == Form::Move) {
    R[n->dst] = R[n->a];
  } else if constexpr (K.form == Form::Store) {
    if constexpr (K.src == Tk::C) {
      // value alen bytes, column blen bytes
      rt::store_char(row + n->off, n->blen, R[n->a].s, n->alen);
    } else {
      store_col<K.src>(row + n->off, rget<reg_class(K.src)>(R[n->a]));
    }
  } else if constexpr (K.form == Form::Copy) {
    if constexpr (K.src == Tk::C) rt::copy_short(row + n->off2, t + n->off, n->alen);
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
