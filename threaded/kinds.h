// The node kinds of the threaded tree, generated at compile time from the
// operator catalogue (frontend/ops.def): one kind per typed operator, plus the
// leaf, store and end kinds, plus superinstructions derived from the same rows
// (a comparison or arithmetic operator whose left operand is read straight
// from the tuple, a conversion fused with the attribute load it converts).
// Nothing here lists an operator by hand; both dispatch methods' tables are
// built from kKinds.
#pragma once

#include <array>
#include <cstdint>
#include <iterator>

#include "frontend/ir.h"
#include "frontend/types.h"

namespace quelkit::threaded {

// A catalogue row (frontend/ops.def), as every table below reads it.
using OpRow = ir::OpInfo;
constexpr const OpRow& op_row(ir::Op op) { return ir::op_info(op); }

// What a register holds for a value of type t is its register class
// (types.def): integers of every width are held as int32 (as the
// interpreter's cells do), so integer widening is no work at all and never
// needs a node.

// A conversion that cannot raise and changes the register representation:
// integers to f4 (rounded) or f8 (exact), f4 to f8 (exact). These, and only
// these, may be fused with the attribute load that feeds them.
constexpr bool widening(Tk from, Tk to) {
  return (is_int(from) && (to == Tk::F4 || to == Tk::F8)) || (from == Tk::F4 && to == Tk::F8);
}
// An attribute stored as s can be loaded into a register of class t without
// a run-time check.
constexpr bool loads_as(Tk s, Tk t) {
  if (s == Tk::B || t == Tk::B) return false;
  return reg_class(s) == reg_class(t) || widening(s, t);
}

enum class Form : uint8_t {
  None,       // unused table slot
  Op,         // an ops.def operator over registers (AND/OR: conditional jumps)
  Attr,       // R[d] = tuple attribute (stored as src), widened to `to`
  Param,      // R[d] = parameter block slot (type src)
  CmpAttr,    // R[d] = op(tuple attribute widened to op's operand type, R[b])
  ArithAttr,  // R[d] = op(tuple attribute widened to op's operand type, R[b]), checked
  Move,       // R[d] = R[a]
  Store,      // row[off] = R[a] (column type src)
  Copy,       // row[off2] = tuple[off] (an attribute projected unchanged, type src)
  QualEnd,    // the qualification's value is R[a]
  ProjEnd,    // the projection is complete
};

struct KindDesc {
  Form form = Form::None;
  ir::Op op = ir::Op::CONST;
  Tk src = Tk::I4;
  Tk to = Tk::I4;
};

constexpr int kMaxKinds = 512;  // the goto table's size

struct KindTable {
  std::array<KindDesc, kMaxKinds> k{};
  int n = 0;
  // Kind lookups for the builder; 0 (CONST, never emitted) means "none".
  std::array<std::array<uint16_t, kNumTk>, kNumTk> attr{};             // [stored][register type]
  std::array<std::array<uint16_t, kNumTk>, ir::kNumOps> attr_op{};     // [op][stored]: CmpAttr, ArithAttr
  std::array<uint16_t, kNumTk> param{}, store{}, copy{};
  uint16_t move = 0, qual_end = 0, proj_end = 0;
};

// A binary operator computing a number from two numbers of its own type
// (arithmetic and the integer functions): what ArithAttr fuses.
constexpr bool is_arith(const OpRow& r) {
  return r.arity == 2 && (r.cls() == ir::Class::Arith || r.cls() == ir::Class::Function) && r.left == r.right &&
         r.result == r.left && (is_int(r.left) || is_float(r.left));
}
constexpr bool is_compare(const OpRow& r) { return r.cls() == ir::Class::Compare; }

constexpr KindTable make_kinds() {
  KindTable t;
  auto add = [&](KindDesc d) {
    t.k[size_t(t.n)] = d;
    return uint16_t(t.n++);
  };
  constexpr Tk kStored[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8, Tk::C};
  // 1. One kind per typed operator, numbered as ir::Op (leaves stay unused:
  //    constants are registers, attributes and parameters have typed kinds).
  for (int i = 0; i < ir::kNumOps; ++i) {
    const OpRow& r = ir::kOps[i];
    bool leaf = r.arity == 0;
    add(leaf ? KindDesc{} : KindDesc{Form::Op, ir::Op(i)});
  }
  // 2. Attribute loads, fused with each widening conversion they can feed.
  for (Tk s : kStored)
    for (Tk to : {reg_class(s), Tk::F4, Tk::F8})
      if ((to == reg_class(s) || widening(s, to)) && !t.attr[size_t(s)][size_t(to)])
        t.attr[size_t(s)][size_t(to)] = add({Form::Attr, ir::Op::ATTR, s, to});
  // 3. Parameter loads, stores into the row, attribute copies into the row.
  for (Tk s : kStored) t.param[size_t(s)] = add({Form::Param, ir::Op::PARAM, s, reg_class(s)});
  for (Tk s : kStored) t.store[size_t(s)] = add({Form::Store, ir::Op::CONST, s, s});
  for (Tk s : kStored) t.copy[size_t(s)] = add({Form::Copy, ir::Op::ATTR, s, s});
  // 4. Superinstructions: every comparison (and pattern match) and every
  //    binary arithmetic operator of ops.def with its left operand read from
  //    the tuple, for every stored type that loads into the operand type
  //    without a check.
  for (int i = 0; i < ir::kNumOps; ++i) {
    const OpRow& r = ir::kOps[i];
    Form f = is_compare(r) ? Form::CmpAttr : is_arith(r) ? Form::ArithAttr : Form::None;
    if (f == Form::None) continue;
    Tk operand = r.left;
    for (Tk s : kStored)
      if (loads_as(s, operand)) t.attr_op[size_t(i)][size_t(s)] = add({f, ir::Op(i), s, operand});
  }
  t.move = add({Form::Move});
  t.qual_end = add({Form::QualEnd});
  t.proj_end = add({Form::ProjEnd});
  return t;
}

inline constexpr KindTable kKinds = make_kinds();
inline constexpr int kNumKinds = kKinds.n;
static_assert(kNumKinds <= kMaxKinds, "node kinds no longer fit the goto table");
static_assert(kKinds.k[size_t(ir::Op::ADD_F8)].form == Form::Op && kKinds.k[size_t(ir::Op::ADD_F8)].op == ir::Op::ADD_F8,
              "operator kinds are numbered as ir::Op");
static_assert(kKinds.attr_op[size_t(ir::Op::LT_F8)][size_t(Tk::I2)] != 0 &&
                  kKinds.attr[size_t(Tk::I2)][size_t(Tk::F8)] != 0 &&
                  kKinds.attr_op[size_t(ir::Op::LT_I4)][size_t(Tk::F4)] == 0 &&
                  kKinds.attr_op[size_t(ir::Op::MUL_F8)][size_t(Tk::I2)] != 0 &&
                  kKinds.attr_op[size_t(ir::Op::MOD_I4)][size_t(Tk::F8)] == 0,
              "superinstructions follow the widening rules");

}  // namespace quelkit::threaded
