// The stencil set of the copy-and-patch back end, enumerated at compile time
// from the operator catalogue (frontend/ops.def): one stencil per typed row
// and operand-location variant, plus the control stencils (entries, returns,
// the page loop, error exits). Three programs read this one list: the
// generator (gen_stencils.cpp) writes a C++ source defining every stencil for
// clang-19, the extractor (extract_main.cpp) finds them by name in the object
// clang made, and prepare (stitch.cpp) picks them by index. Nothing here names
// an operator by hand.
//
// A value lives in one place while a plan runs:
//
//   Slot     a frame slot (8 bytes, on the entry shim's stack): computed numbers
//   Const    the stencil's 64-bit hole (numbers: their bits; characters: a pointer)
//   Tuple    the tuple at a 32-bit offset, stored as `s` (widened on load)
//   Param    the parameter block (ctx->params) at an offset, stored as `s`
//   Scratch  ctx->scratch at an offset: computed characters (concat, ascii)
//
// Characters are a place and a static length, never copied into a slot.
#pragma once

#include <array>
#include <cstdint>

#include "frontend/ir.h"
#include "frontend/types.h"

namespace quelkit::jit::stencil {

enum class Where : uint8_t { None, Slot, Const, Tuple, Param, Scratch };

struct Loc {
  Where w = Where::None;
  Tk s = kNoTk;  // Tuple, Param: the stored type
  constexpr Loc(Where w_ = Where::None, Tk s_ = kNoTk) : w(w_), s(s_) {}
  constexpr bool operator==(const Loc&) const = default;
  constexpr bool memory() const { return w == Where::Tuple || w == Where::Param; }
};

enum class Kind : uint8_t {
  // C-ABI entry shims (jit/codegen.h's calling convention): save what the
  // chain clobbers, make the frame, call into the chain, return its value.
  EntryQual,     // int32 (tuple, ctx)
  EntryProject,  // int32 (tuple, row, ctx)
  EntryKernel,   // int64 (page, rows, ctx): prefetches the next page
  // The chain.
  Op,       // a computing row: result into a slot (numbers) or scratch (characters)
  Branch,   // a comparison row: jumps to TARGET when it is `jump_if`, else continues
  Select,   // a comparison as a value in `e` (0 or 1): fused kernels' nobranch selection
  Load,     // a = operand of type `t` into a slot (both operands of a binary row in memory)
  Store,    // row column (type `t`) <- a
  Jump,     // to TARGET
  RetTrue,  // return 1 (qualification)
  RetFalse, // return 0
  RetZero,  // return 0 (projection done)
  Exit,     // error exit of a qualification or projection: return -1
  Raise,    // qk_raise(ctx, e, POS), then on to the error exit
  RaiseK,   // qk_raise(ctx, CODE, POS): an operator that raises one error only
  LoopTail, // fused, at the loop's foot: the next live line of the page, on to TARGET (the loop's
            // body) with it as the tuple, or on to the next stencil when none is left
  RowDone,  // fused: the row is written; count it, on to TARGET (the loop head)
  RowIf,    // fused, branch-free: the row is written; keep it if `e` (SELECT's value). t: kNoTk,
            // a row of any length (the hole's length times e); I1, I2, I4 or F8, a row exactly that
            // type's size, so that e is scaled in the address arithmetic (rowif_type says which)
  PageDone, // fused: return where the rows end (the entry makes it a count)
  PageExit, // fused: error exit: ctx->err_slot = line, return -1
  // Nobranch selection (engine/selection.h): the qualification's value in `e`.
  SetE,     // e = jump_if (0 or 1): a guarded part's outcome, or a constant
  SaveE,    // the slot at D_OFF = e (the left operand of and/or)
  AndE,     // e = e & the slot at A_OFF
  OrE,      // e = e | the slot at A_OFF
  NotE,     // e = !e
  JumpE,    // to TARGET when e == jump_if: the guard of an and/or operand that can raise,
            // and of targets that can raise (projected only for a qualifying tuple)
  // Nobranch over a conjunction, refined (stitch.cpp): a selection vector of
  // tuple offsets in the frame, narrowed by one term per pass.
  SelPut,   // the tuple's offset into entry n of the vector at D_OFF; n += e; to TARGET
  SelStart, // a pass begins: the slot at D_OFF = n (the vector's length), n = 0, line = -1;
            // on to TARGET (the pass's SEL_TAIL)
  SelTail,  // at the pass's foot: the next entry (line) of the vector at A_OFF, of the length in
            // the slot at D_OFF, as the tuple, on to TARGET (the body); or on when none is left
};

struct Desc {
  Kind kind = Kind::Jump;
  ir::Op op = ir::Op::CONST;  // Op, Branch
  Loc a, b;                   // operands (Load: a; Store: the source)
  Tk t = kNoTk;               // Load: the register type; Store: the column type
  bool jump_if = false;       // Branch
  constexpr Desc(Kind k = Kind::Jump, ir::Op o = ir::Op::CONST, Loc a_ = {}, Loc b_ = {}, Tk t_ = kNoTk,
                 bool j = false)
      : kind(k), op(o), a(a_), b(b_), t(t_), jump_if(j) {}
  constexpr bool operator==(const Desc&) const = default;
};

// The register class a number of type k is computed in (types.def's REG).
constexpr Tk reg(Tk k) { return k == kNoTk ? kNoTk : type_info(k).reg; }

// A stored value of type s loads into a register of type t without a check:
// the same class, or a widening conversion (the threaded tree's rule: integers
// to f4 or f8, f4 to f8).
constexpr bool loads_as(Tk s, Tk t) {
  if (s == Tk::B || t == Tk::B || s == Tk::C || t == Tk::C) return false;
  if (reg(s) == reg(t)) return true;
  return (is_int(s) && (t == Tk::F4 || t == Tk::F8)) || (s == Tk::F4 && t == Tk::F8);
}

inline constexpr Tk kStored[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8, Tk::C};

// An operator whose ERRORS column lists one error: its stencil leaves the
// code to its raise stencil (a hole), so that its failure path is a bare jump.
constexpr bool one_error(const ir::OpInfo& r) { return r.errors != 0 && (r.errors & (r.errors - 1)) == 0; }
constexpr int the_error(const ir::OpInfo& r) {
  for (int c = 1; c < 16; ++c)
    if (r.raises(c)) return c;
  return 0;
}

// Where an operand of type t (a row's LEFT or RIGHT) may be read from.
// Numbers: a slot, a constant, or memory whose stored type loads as t (tuple
// attributes may widen; parameters only of t's own class). Characters: any
// place but a slot.
template <class F>
constexpr void for_each_loc(Tk t, F&& f) {
  if (t == Tk::C) {
    for (Where w : {Where::Tuple, Where::Param, Where::Scratch, Where::Const})
      f(Loc{w, w == Where::Tuple || w == Where::Param ? Tk::C : kNoTk});
    return;
  }
  f(Loc{Where::Slot});
  f(Loc{Where::Const});
  for (Tk s : kStored)
    if (loads_as(s, t)) f(Loc{Where::Tuple, s});
  for (Tk s : kStored)
    if (s != Tk::C && reg(s) == reg(t)) f(Loc{Where::Param, s});
}

// Pairs of operand places a binary row's stencils take. Characters: every
// pair. Numbers: at most one operand in memory (the walk loads the other into
// a slot first), never two constants (the fold pass leaves two constants only
// where evaluating them raises; the walk loads one).
constexpr bool pair_ok(Tk lt, Loc a, Loc b) {
  if (lt == Tk::C) return true;
  if (a.memory() && b.memory()) return false;
  if (a.w == Where::Const && b.w == Where::Const) return false;
  return true;
}

// ROW_IF's sized variants: rows of 1, 2, 4 and 8 bytes (one narrow target, or
// two i4s) keep a row with one scaled add (lea) where any other length takes
// a load of the hole, a multiply and an add, a sizeable share of a
// single-predicate nobranch kernel's instructions per tuple (docs/DESIGN.md,
// "Measuring", has the counts).
inline constexpr Tk kRowIfSized[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F8};
constexpr Tk rowif_type(uint32_t row_len) {
  for (Tk w : kRowIfSized)
    if (type_info(w).size == row_len) return w;
  return kNoTk;
}

struct Table {
  std::array<Desc, 4096> d{};
  int n = 0;
};

constexpr Table make_table() {
  Table t;
  auto add = [&](Desc d) { t.d[size_t(t.n++)] = d; };
  for (Kind k : {Kind::EntryQual, Kind::EntryProject, Kind::EntryKernel, Kind::Jump, Kind::RetTrue, Kind::RetFalse,
                 Kind::RetZero, Kind::Exit, Kind::Raise, Kind::RaiseK, Kind::LoopTail, Kind::RowDone, Kind::RowIf, Kind::PageDone,
                 Kind::PageExit, Kind::SaveE, Kind::AndE, Kind::OrE, Kind::NotE, Kind::SelPut, Kind::SelStart,
                 Kind::SelTail})
    add(Desc{k});
  for (Tk w : kRowIfSized) add(Desc{Kind::RowIf, ir::Op::CONST, {}, {}, w});
  for (bool v : {false, true}) {
    add(Desc{Kind::SetE, ir::Op::CONST, {}, {}, kNoTk, v});
    add(Desc{Kind::JumpE, ir::Op::CONST, {}, {}, kNoTk, v});
  }
  // Loads into a slot, and stores of a column from every place it can come
  // from (numbers copied from memory only when stored as the column is).
  for (Tk r : {Tk::I4, Tk::F4, Tk::F8})
    for_each_loc(r, [&](Loc a) {
      if (a.w != Where::Slot) add(Desc{Kind::Load, ir::Op::CONST, a, {}, r});
    });
  for (Tk c : kStored)
    for_each_loc(c, [&](Loc a) {
      if (!a.memory() || a.s == c) add(Desc{Kind::Store, ir::Op::CONST, a, {}, c});
    });
  // One stencil per typed row and operand places.
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& r = ir::kOps[i];
    const ir::Class cls = r.cls();
    if (cls == ir::Class::Leaf || cls == ir::Class::Logic) continue;  // leaves are places; logic is control flow
    const ir::Op op = ir::Op(i);
    if (r.arity == 1) {
      // A conversion's operand is exactly its LEFT type (the binder's node);
      // the other rows take any place their operand type loads from.
      for_each_loc(r.left, [&](Loc a) {
        if (cls == ir::Class::Convert && a.memory() && a.s != r.left) return;
        add(Desc{Kind::Op, op, a});
      });
      continue;
    }
    for_each_loc(r.left, [&](Loc a) {
      for_each_loc(r.right, [&](Loc b) {
        if (!pair_ok(r.left, a, b)) return;
        if (cls == ir::Class::Compare) {
          add(Desc{Kind::Branch, op, a, b, kNoTk, false});
          add(Desc{Kind::Branch, op, a, b, kNoTk, true});
          add(Desc{Kind::Select, op, a, b});
        } else {
          add(Desc{Kind::Op, op, a, b});
        }
      });
    });
  }
  return t;
}

inline constexpr Table kTable = make_table();
inline constexpr int kNumStencils = kTable.n;
static_assert(kNumStencils < int(kTable.d.size()), "the stencil table is full");

constexpr const Desc& desc(int i) { return kTable.d[size_t(i)]; }

// A descriptor packed into one number: what prepare looks stencils up by.
constexpr uint64_t key(const Desc& d) {
  auto tk = [](Tk t) { return uint64_t(uint8_t(t)); };
  return uint64_t(d.kind) | uint64_t(d.op) << 8 | uint64_t(d.a.w) << 24 | tk(d.a.s) << 28 | uint64_t(d.b.w) << 36 |
         tk(d.b.s) << 40 | tk(d.t) << 48 | uint64_t(d.jump_if) << 56;
}

// What the generated stencils were made from: the generator writes it into the
// object (qs_fingerprint), the extractor checks it there and writes it into the
// header, and prepare's static_assert compares it with this table, so stale
// stencils fail the build instead of being used.
constexpr uint64_t fingerprint() {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < kNumStencils; ++i) {
    uint64_t k = key(kTable.d[size_t(i)]);
    for (int b = 0; b < 8; ++b) h = (h ^ ((k >> (8 * b)) & 0xff)) * 0x100000001b3ULL;
  }
  return h;
}

}  // namespace quelkit::jit::stencil
