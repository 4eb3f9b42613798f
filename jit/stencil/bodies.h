// What every stencil does, written once as templates over its descriptor
// (variants.h) and the operator's runtime rule (frontend/op_rules.h, the same
// inline rules the fold pass, the interpreter and threaded code run). Only the
// generated stencils.gen.cpp includes this, and only clang-19 compiles it
// (jit/stencil/CMakeLists.txt has the flags and why).
//
// A stencil is a function of one signature, preserve_none so that the state
// stays in registers across the chain, ending in guaranteed tail calls to
// placeholder symbols: _JIT_CONTINUE (the next stencil: the jump is dropped
// when it is the last instruction), _JIT_TARGET (a label of the plan),
// _JIT_ERROR (the node's raise stencil). Its operands are placeholder
// symbols too; their addresses are the holes prepare patches:
//
//   _JIT_A_OFF _JIT_B_OFF _JIT_D_OFF   32-bit offsets (slot, tuple, params, scratch, row)
//   _JIT_A_LEN _JIT_B_LEN _JIT_D_LEN   32-bit character lengths, column widths
//   _JIT_FRAME _JIT_ROWLEN _JIT_INLEN  frame bytes, row length, tuple length
//   _JIT_A_K _JIT_B_K                  64-bit constants (number bits, character pointers)
//   _JIT_POS _JIT_CODE                 64-bit packed source position, error code (qk_raise)
//
// Small-data placeholders (1 byte) are addressed like any small datum of the
// medium code model: as 32-bit absolute values folded into instructions
// (R_X86_64_32, R_X86_64_32S). The 64-bit ones are declared larger than the
// large-data threshold, so clang materialises their addresses with movabs
// (R_X86_64_64). Jumps and calls are rel32 (R_X86_64_PLT32).
#pragma once

#include <cstdint>
#include <cstring>

#include "frontend/op_rules.h"
#include "storage/page.h"
#include "storage/page_walk.h"
#include "runtime/inline.h"
#include "runtime/runtime.h"
#include "jit/stencil/variants.h"

#define QS_CC __attribute__((preserve_none))
// The chain's state, in registers: the tuple, the frame, the context, the
// output row, the page and line (fused), a refined kernel's selection vector
// length (fused; the rows written are where the row pointer got to), the
// pending error code and the page's line count (fused: read once by the
// entry, not by LOOP_TAIL for every tuple). Scalars only (no struct crosses
// preserve_none).
#define QS_ARGS                                                                                                \
  const uint8_t *t, uint8_t *f, qk_ctx *ctx, uint8_t *row, const uint8_t *page, int64_t line, int64_t n, int64_t e, \
      int64_t lines
#define QS_PASS(s) s.t, s.f, s.ctx, s.row, s.page, s.line, s.n, s.e, s.lines

extern "C" {
QS_CC int64_t _JIT_CONTINUE(QS_ARGS);
QS_CC int64_t _JIT_TARGET(QS_ARGS);
QS_CC int64_t _JIT_ERROR(QS_ARGS);
extern char _JIT_A_OFF[1], _JIT_B_OFF[1], _JIT_D_OFF[1];
extern char _JIT_A_LEN[1], _JIT_B_LEN[1], _JIT_D_LEN[1];
extern char _JIT_FRAME[1], _JIT_ROWLEN[1], _JIT_INLEN[1], _JIT_CODE[1];
extern char _JIT_A_K[1 << 20], _JIT_B_K[1 << 20], _JIT_POS[1 << 20];
}

namespace quelkit::jit::stencil::body {

struct St {
  const uint8_t* t;
  uint8_t* f;
  qk_ctx* ctx;
  uint8_t* row;
  const uint8_t* page;
  int64_t line, n, e;
  int64_t lines;
  int64_t ret = 0;
};

enum class Go { Next, Jump, Error, Return };

// ---- holes

// A 32-bit hole used as an offset: added to a base, it folds into the
// instruction's displacement.
#define QS_OFF(H) (reinterpret_cast<uintptr_t>(H))
QK_INLINE uint32_t len_hole(const char* h) { return uint32_t(reinterpret_cast<uintptr_t>(h)); }
// A 64-bit hole. The compiler may not reason about its value (the address of
// a declared object is never null, but a constant may well be zero).
QK_INLINE uint64_t k_hole(const char* h) {
  uint64_t v = reinterpret_cast<uintptr_t>(h);
  asm("" : "+r"(v));
  return v;
}

template <class T>
QK_INLINE T ld(const uint8_t* p) {
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
QK_INLINE void st(uint8_t* p, T v) {
  __builtin_memcpy(p, &v, sizeof v);
}

template <int W>
QK_INLINE const char* off_h() {
  if constexpr (W == 0) return _JIT_A_OFF;
  else if constexpr (W == 1) return _JIT_B_OFF;
  else return _JIT_D_OFF;
}
template <int W>
QK_INLINE const char* len_h() {
  if constexpr (W == 0) return _JIT_A_LEN;
  else if constexpr (W == 1) return _JIT_B_LEN;
  else return _JIT_D_LEN;
}
template <int W>
QK_INLINE const char* k_h() {
  if constexpr (W == 0) return _JIT_A_K;
  else return _JIT_B_K;
}

// ---- operands

template <Tk S>
QK_INLINE auto load_stored(const uint8_t* p) {
  if constexpr (S == Tk::I1) return int32_t(ld<int8_t>(p));
  else if constexpr (S == Tk::I2) return int32_t(ld<int16_t>(p));
  else if constexpr (S == Tk::I4) return ld<int32_t>(p);
  else if constexpr (S == Tk::F4) return ld<float>(p);
  else return ld<double>(p);
}

// A number of register class R from the bits of a constant hole.
template <Tk R>
QK_INLINE ir::held_t<R> from_bits(uint64_t b) {
  if constexpr (R == Tk::F8) return __builtin_bit_cast(double, b);
  else if constexpr (R == Tk::F4) return __builtin_bit_cast(float, uint32_t(b));
  else return int32_t(uint32_t(b));
}

// Where a character or memory operand's bytes are.
template <Loc L, int W>
QK_INLINE const uint8_t* place(const St& s) {
  if constexpr (L.w == Where::Tuple) return s.t + QS_OFF(off_h<W>());
  else if constexpr (L.w == Where::Param) return s.ctx->params + QS_OFF(off_h<W>());
  else if constexpr (L.w == Where::Scratch) return s.ctx->scratch + QS_OFF(off_h<W>());
  else if constexpr (L.w == Where::Slot) return s.f + QS_OFF(off_h<W>());
  else return reinterpret_cast<const uint8_t*>(k_hole(k_h<W>()));
}

// Widening conversions, exactly as C converts (cvtsi2sd, cvtsi2ss, cvtss2sd),
// with the destination cleared first. These instructions merge into their
// destination's upper bits; inside a function the compiler breaks that false
// dependency, but across stencils it cannot see the register's last writer,
// and a chain through the previous tuple's conversion would serialise the
// page loop.
QK_INLINE double to_f8(int32_t v) {
  double d;
  asm("xorps %0, %0\n\tcvtsi2sdl %1, %0" : "=&x"(d) : "r"(v));
  return d;
}
QK_INLINE float to_f4(int32_t v) {
  float d;
  asm("xorps %0, %0\n\tcvtsi2ssl %1, %0" : "=&x"(d) : "r"(v));
  return d;
}
QK_INLINE double to_f8(float v) {
  double d;
  asm("xorps %0, %0\n\tcvtss2sd %1, %0" : "=&x"(d) : "x"(v));
  return d;
}

// Operand W (0: a, 1: b) at L, as the rule of a row with operand type T takes it.
template <Loc L, Tk T, int W>
QK_INLINE ir::held_t<T> get(const St& s) {
  constexpr Tk R = reg(T);
  if constexpr (T == Tk::C) {
    return rt::Chars{place<L, W>(s), len_hole(len_h<W>())};
  } else if constexpr (L.w == Where::Const) {
    return from_bits<R>(k_hole(k_h<W>()));
  } else if constexpr (L.w == Where::Slot) {
    return ld<ir::held_t<R>>(place<L, W>(s));
  } else {
    static_assert(loads_as(L.s, T));
    auto v = load_stored<L.s>(place<L, W>(s));
    if constexpr (R == Tk::F4 && is_int(L.s)) return to_f4(v);
    else if constexpr (R == Tk::F8 && is_int(L.s)) return to_f8(v);
    else if constexpr (R == Tk::F8 && L.s == Tk::F4) return to_f8(v);
    else return v;
  }
}

// ---- the stencils

template <Desc D>
QK_INLINE Go op(St& s) {
  constexpr ir::OpInfo r = ir::op_info(D.op);
  ir::result_t<r.result> res{};
  if constexpr (r.result == Tk::C) res = {s.ctx->scratch + QS_OFF(_JIT_D_OFF), len_hole(_JIT_D_LEN)};
  int rc;
  if constexpr (r.arity == 1) rc = ir::rule_of<D.op>(get<D.a, r.left, 0>(s), &res);
  else rc = ir::rule_of<D.op>(get<D.a, r.left, 0>(s), get<D.b, r.right, 1>(s), &res);
  if constexpr (r.can_raise()) {
    if (rc) {
      if constexpr (!one_error(r)) s.e = rc;  // else RAISE_CODE knows it
      return Go::Error;
    }
  }
  if constexpr (r.result != Tk::C) st<ir::held_t<r.result>>(s.f + QS_OFF(_JIT_D_OFF), res);
  return Go::Next;
}

template <Desc D>
QK_INLINE Go branch(St& s) {
  constexpr ir::OpInfo r = ir::op_info(D.op);
  int32_t res = 0;
  ir::rule_of<D.op>(get<D.a, r.left, 0>(s), get<D.b, r.right, 1>(s), &res);
  return (res != 0) == D.jump_if ? Go::Jump : Go::Next;
}

template <Desc D>
QK_INLINE Go select(St& s) {
  constexpr ir::OpInfo r = ir::op_info(D.op);
  int32_t res = 0;
  ir::rule_of<D.op>(get<D.a, r.left, 0>(s), get<D.b, r.right, 1>(s), &res);
  s.e = res != 0;
  return Go::Next;
}

template <Desc D>
QK_INLINE Go store(St& s) {
  constexpr Tk c = D.t;
  uint8_t* dst = s.row + QS_OFF(_JIT_D_OFF);
  if constexpr (c == Tk::C) {
    const uint32_t vlen = len_hole(_JIT_A_LEN), width = len_hole(_JIT_D_LEN);
    const uint32_t k = vlen < width ? vlen : width;
    rt::copy_short(dst, place<D.a, 0>(s), k);  // k is a hole: its branches are always predicted
    for (uint32_t i = k; i < width; ++i) dst[i] = ' ';
  } else if constexpr (D.a.memory()) {
    // Stored as the column is: the bytes as they are.
    uint8_t b[sizeof(ir::held_t<c>) > 4 ? 8 : 4];
    constexpr size_t size = c == Tk::I1 ? 1 : c == Tk::I2 ? 2 : c == Tk::F8 ? 8 : 4;
    __builtin_memcpy(b, place<D.a, 0>(s), size);
    __builtin_memcpy(dst, b, size);
  } else {
    auto v = get<D.a, c, 0>(s);
    if constexpr (c == Tk::I1) st<int8_t>(dst, int8_t(v));
    else if constexpr (c == Tk::I2) st<int16_t>(dst, int16_t(v));
    else st(dst, v);
  }
  return Go::Next;
}

template <Desc D>
QK_INLINE Go body(St& s) {
  if constexpr (D.kind == Kind::Op) {
    return op<D>(s);
  } else if constexpr (D.kind == Kind::Branch) {
    return branch<D>(s);
  } else if constexpr (D.kind == Kind::Select) {
    return select<D>(s);
  } else if constexpr (D.kind == Kind::Load) {
    st(s.f + QS_OFF(_JIT_D_OFF), get<D.a, D.t, 0>(s));
    return Go::Next;
  } else if constexpr (D.kind == Kind::Store) {
    return store<D>(s);
  } else if constexpr (D.kind == Kind::Jump) {
    return Go::Jump;
  } else if constexpr (D.kind == Kind::RetTrue) {
    s.ret = 1;
    return Go::Return;
  } else if constexpr (D.kind == Kind::RetFalse || D.kind == Kind::RetZero) {
    s.ret = 0;
    return Go::Return;
  } else if constexpr (D.kind == Kind::Exit) {
    s.ret = -1;
    return Go::Return;
  } else if constexpr (D.kind == Kind::Raise) {
    qk_raise(s.ctx, int32_t(s.e), k_hole(_JIT_POS));
    return Go::Jump;
  } else if constexpr (D.kind == Kind::RaiseK) {
    qk_raise(s.ctx, int32_t(len_hole(_JIT_CODE)), k_hole(_JIT_POS));
    return Go::Jump;
  } else if constexpr (D.kind == Kind::LoopTail) {
    // The next live line (0 = deleted), in line order, as the harness walks a
    // page (storage/page_walk.h; the entry prefetched the next page). At the
    // loop's foot, so that the body's last stencil falls into it and the
    // jump back to the body is the one taken jump a tuple costs; the page's
    // end falls through to what follows the loop. The line count is the
    // entry's, in a register: a load less a tuple.
    const uint64_t nl = uint64_t(s.lines);
    auto line_at = [&](uint64_t k) { return ld<uint16_t>(s.page + harness::kPageHeader + harness::kLineSize * k); };
    uint64_t i = uint64_t(++s.line);
    if (__builtin_expect(i >= nl, 0)) return Go::Next;
    uint16_t off = line_at(i);
    if (__builtin_expect(off == 0, 0)) {  // deleted lines: rare
      do {
        s.line = int64_t(++i);
        if (i >= nl) return Go::Next;
      } while ((off = line_at(i)) == 0);
    }
    s.t = s.page + off;
    return Go::Jump;
  } else if constexpr (D.kind == Kind::RowDone) {
    // Rows are not counted here: the kernel's entry derives the count from
    // how far the row pointer moved (an instruction less a kept tuple).
    s.row += QS_OFF(_JIT_ROWLEN);
    return Go::Jump;
  } else if constexpr (D.kind == Kind::RowIf) {
    // The row was written either way; only a qualifying tuple keeps it.
    // A row of a type's size: e scaled by it in one lea. Any other length: a
    // multiply (e is 0 or 1) by the hole, off the row pointer's loop-carried
    // chain, where the mask (len & -e) took four instructions to its three.
    if constexpr (D.t != kNoTk)
      s.row += uint64_t(type_info(D.t).size) * uint64_t(s.e);
    else
      s.row += QS_OFF(_JIT_ROWLEN) * uint64_t(s.e);
    return Go::Jump;
  } else if constexpr (D.kind == Kind::SetE) {
    s.e = D.jump_if;
    return Go::Next;
  } else if constexpr (D.kind == Kind::SaveE) {
    st(s.f + QS_OFF(_JIT_D_OFF), s.e);
    return Go::Next;
  } else if constexpr (D.kind == Kind::AndE) {
    s.e &= ld<int64_t>(s.f + QS_OFF(_JIT_A_OFF));
    return Go::Next;
  } else if constexpr (D.kind == Kind::OrE) {
    s.e |= ld<int64_t>(s.f + QS_OFF(_JIT_A_OFF));
    return Go::Next;
  } else if constexpr (D.kind == Kind::NotE) {
    s.e ^= 1;
    return Go::Next;
  } else if constexpr (D.kind == Kind::JumpE) {
    return (s.e != 0) == D.jump_if ? Go::Jump : Go::Next;
  } else if constexpr (D.kind == Kind::SelPut) {
    // Written either way; only a tuple whose term held keeps it.
    st<uint16_t>(s.f + QS_OFF(_JIT_D_OFF) + 2 * uint64_t(s.n), uint16_t(s.t - s.page));
    s.n += s.e;
    return Go::Jump;
  } else if constexpr (D.kind == Kind::SelStart) {
    st<int64_t>(s.f + QS_OFF(_JIT_D_OFF), s.n);
    s.n = 0;
    s.line = -1;
    return Go::Jump;
  } else if constexpr (D.kind == Kind::SelTail) {
    // A later pass writes entry n <= line: the entry read was never overwritten.
    // At the pass's foot, as LOOP_TAIL is at the page loop's.
    const int64_t k = ++s.line;
    if (__builtin_expect(k >= ld<int64_t>(s.f + QS_OFF(_JIT_D_OFF)), 0)) return Go::Next;
    s.t = s.page + ld<uint16_t>(s.f + QS_OFF(_JIT_A_OFF) + 2 * uint64_t(k));
    return Go::Jump;
  } else if constexpr (D.kind == Kind::PageDone) {
    // Where the rows end; the kernel's entry turns it into their count. A
    // user-space address, so never the -1 of PAGE_EXIT.
    s.ret = int64_t(reinterpret_cast<uintptr_t>(s.row));
    return Go::Return;
  } else if constexpr (D.kind == Kind::PageExit) {
    s.ctx->err_slot = s.line;
    s.ret = -1;
    return Go::Return;
  } else {
    static_assert(D.kind == Kind::Op, "entries are written out in stencils.gen.cpp's prologue");
    return Go::Next;
  }
}

}  // namespace quelkit::jit::stencil::body

// One stencil of the chain: its body, then the tail call it chose.
#define QS_STENCIL(I)                                                                  \
  extern "C" QS_CC int64_t qs_##I(QS_ARGS) {                                           \
    using namespace ::quelkit::jit::stencil::body;                                     \
    St s{t, f, ctx, row, page, line, n, e, lines};                                     \
    Go g = body<::quelkit::jit::stencil::desc(I)>(s);                                  \
    if (g == Go::Next) [[clang::musttail]] return _JIT_CONTINUE(QS_PASS(s));          \
    if (g == Go::Jump) [[clang::musttail]] return _JIT_TARGET(QS_PASS(s));            \
    if (g == Go::Error) [[clang::musttail]] return _JIT_ERROR(QS_PASS(s));            \
    return s.ret;                                                                      \
  }

// The C-ABI entry shims: the frame on their own stack (_JIT_FRAME bytes), the
// chain called (not tail-called: the shim saves the callee-saved registers the
// preserve_none chain clobbers, and returns what the chain returns).
#define QS_ENTRIES(QUAL, PROJECT, KERNEL)                                                           \
  extern "C" int32_t qs_##QUAL(const uint8_t* t, qk_ctx* ctx) {                                     \
    uint8_t* f = static_cast<uint8_t*>(__builtin_alloca(QS_OFF(_JIT_FRAME)));                      \
    return int32_t(_JIT_CONTINUE(t, f, ctx, nullptr, nullptr, 0, 0, 0, 0));                        \
  }                                                                                                 \
  extern "C" int32_t qs_##PROJECT(const uint8_t* t, uint8_t* row, qk_ctx* ctx) {                    \
    uint8_t* f = static_cast<uint8_t*>(__builtin_alloca(QS_OFF(_JIT_FRAME)));                      \
    return int32_t(_JIT_CONTINUE(t, f, ctx, row, nullptr, 0, 0, 0, 0));                            \
  }                                                                                                 \
  extern "C" int64_t qs_##KERNEL(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) {                 \
    uint8_t* f = static_cast<uint8_t*>(__builtin_alloca(QS_OFF(_JIT_FRAME)));                      \
    /* Step 2 of storage/page_walk.h: the next page, whole. */                                     \
    ::quelkit::harness::prefetch_page_ahead(page, ::quelkit::jit::stencil::body::len_hole(_JIT_INLEN)); \
    const int64_t end =                                                                             \
        _JIT_CONTINUE(nullptr, f, ctx, rows, page, -1, 0, 0, int64_t(::quelkit::harness::page_nlines(page))); \
    if (end < 0) return end;                                                                        \
    /* PAGE_DONE returned where the rows end: one division a page, not a count a row. A page's rows \
       span less than 4 GiB; the stride is never 0 (stitch.cpp). */                              \
    return uint32_t(uintptr_t(end) - uintptr_t(rows)) / ::quelkit::jit::stencil::body::len_hole(_JIT_ROWLEN); \
  }
