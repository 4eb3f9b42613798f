// The primitives of the vectorized back end, generated at compile time from
// the operator catalogue (frontend/ops.def): for every typed row with a
// runtime rule, one primitive per way of reading its operands (a vector
// register, a scalar register, or — in place — an attribute of each tuple,
// widened on the load), and for comparisons one per selection method (with
// and without a branch). Plus the structural primitives: gathers, parameter
// loads, selection arithmetic for and/or/not, and the projection's stores
// and copies. Nothing here lists an operator by hand; the table of function
// pointers (vector/prims.cpp) is an index_sequence over kPrims.
#pragma once

#include <array>
#include <cstdint>

#include "frontend/ir.h"
#include "frontend/types.h"
#include "runtime/accumulate.h"

namespace quelkit::vector {

// Where a primitive reads an operand from.
enum class Src : uint8_t {
  Vec,     // a vector register: one value per tuple of the batch, at the tuple's index
  Scalar,  // a scalar register: one value for every tuple (constants, parameters)
  Attr,    // the tuple itself (in place): the attribute at the instruction's offset,
           // stored as `stored`, widened to the row's operand type on the load
};
struct Operand {
  Src src = Src::Vec;
  Tk stored = Tk::I4;  // Attr only
};

enum class Form : uint8_t {
  None,      // unused slot
  Value,     // vec[dst][i] = rule(a_i, b_i) for each i of sel; errors flag tuple i
  Select,    // sel[dst] = the i of sel with rule(a_i, b_i) true (comparisons, patterns)
  Gather,    // vec[dst][i] = attribute of tuple i (stored `src`, widened to `to`)
  Param,     // scalar[dst] = the parameter block's slot (type `src`)
  SelDiff,   // sel[dst] = sel[a] without sel[b] (b a subset of a): or's "still open", not
  SelUnion,  // sel[dst] = sel[a] with sel[b] (disjoint): or's outcome
  SelNone,   // sel[dst] = {} (a folded false)
  Store,     // row k's column (type `src`) = operand a of the k-th tuple of sel
  Copy,      // row k's column = the attribute's bytes (projected unchanged, type `src`)
  // Accumulation (an aggregate's inner query, Use::Aggregate), over the rows
  // the projection wrote for the tuples of sel, in scan order:
  Probe,     // group[k] = row k's group's accumulators in the block's table, the batch at once
  Accum,     // aggregate `a` += row k's column (type `src`) for each row k: `agg` known
             // here, not a u variant (accumulate_inline.h); grouped: into group[k]'s
  AccumRow,  // the same through the runtime's qk_agg_add_row, per row: u variants, characters
};

struct PrimDesc {
  Form form = Form::None;
  ir::Op op = ir::Op::CONST;
  Operand a, b;         // Value, Select: the operands; Store: a
  Tk src = Tk::I4;      // Gather, Param, Store, Copy: the stored type
  Tk to = Tk::I4;       // Gather: the type loaded as
  bool branch = false;  // Select: selection with a branch (else: write and advance by the outcome)
  uint8_t agg = 0;      // Accum: the function (qk_agg_fn)
  bool grouped = false; // Accum, AccumRow: into each row's group (else the block's aggregate)
};

// A value held in a register: integers of every width and booleans as int32,
// f4 as float, f8 as double, characters as a pointer (length static, in the
// instruction). A stored value of type s may be read as a value of type t
// without a run-time check, as the walk leaves it: an integer as a wider
// integer (no work: registers hold int32), an integer as f4 or f8, f4 as f8.
constexpr bool widening(Tk from, Tk to) {
  return (is_int(from) && (to == Tk::F4 || to == Tk::F8)) || (from == Tk::F4 && to == Tk::F8);
}
constexpr int int_width(Tk t) { return t == Tk::I1 ? 1 : t == Tk::I2 ? 2 : 4; }
constexpr bool reads_as(Tk s, Tk t) {
  if (s == Tk::B || t == Tk::B || t == kNoTk) return false;
  if (is_int(s) && is_int(t)) return int_width(s) <= int_width(t);
  return s == t || widening(s, t);
}

inline constexpr Tk kStored[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8, Tk::C};
constexpr int kStoredCount = 6;
// A way of reading an operand, as an index: 0 vector, 1 scalar, 2 + s attribute stored as kStored[s].
constexpr int kOperandWays = 2 + kStoredCount;
constexpr int way_of(Operand o) {
  if (o.src == Src::Vec) return 0;
  if (o.src == Src::Scalar) return 1;
  for (int s = 0; s < kStoredCount; ++s)
    if (kStored[s] == o.stored) return 2 + s;
  return -1;
}
constexpr Operand operand_of(int way) {
  return way == 0 ? Operand{Src::Vec} : way == 1 ? Operand{Src::Scalar} : Operand{Src::Attr, kStored[way - 2]};
}
// Rows the primitives compute: every row with a runtime rule except the
// logic class (and/or/not combine selections, they compute no values).
constexpr bool computed(const ir::OpInfo& r) { return r.arity > 0 && r.cls() != ir::Class::Logic; }
constexpr bool selects(const ir::OpInfo& r) { return r.result == Tk::B; }

// The runtime's aggregate functions (runtime/accumulate.h: QK_AGG_COUNT .. QK_AGG_ANY).
constexpr int kAggFns = QK_AGG_ANY + 1;
// A numeric column an Accum primitive reads (characters go through AccumRow).
constexpr bool accum_reads(Tk s) { return s != Tk::C && s != Tk::B; }

constexpr int kMaxPrims = 1280;

struct PrimTable {
  std::array<PrimDesc, kMaxPrims> k{};
  int n = 0;
  // Lookups for the builder; 0 (slot 0 is Form::None) means "none".
  // op[row][way a][way b][branch]: Value and Select (b's way 0 for unary rows).
  std::array<std::array<std::array<std::array<uint16_t, 2>, 2>, kOperandWays>, ir::kNumOps> op{};
  std::array<std::array<uint16_t, kNumTk>, kNumTk> gather{};  // [stored][as]
  std::array<uint16_t, kNumTk> param{}, copy{};
  std::array<std::array<uint16_t, 2>, kNumTk> store{};        // [column type][0 vector, 1 scalar]
  uint16_t sel_diff = 0, sel_union = 0, sel_none = 0;
  std::array<std::array<std::array<uint16_t, 2>, kNumTk>, kAggFns> accum{};  // [fn][column type][grouped]
  std::array<uint16_t, 2> accum_row{};                                         // [grouped]
  uint16_t probe = 0;
};

constexpr PrimTable make_prims() {
  PrimTable t;
  auto add = [&](PrimDesc d) {
    t.k[size_t(t.n)] = d;
    return uint16_t(t.n++);
  };
  add(PrimDesc{});  // slot 0: "none"
  // 1. The catalogue's rows: operand a read any way its type allows (an
  //    attribute in place when its stored type reads as the row's operand
  //    type), operand b from a register. The walk swaps the operands of
  //    mirrored comparisons and of + and * to read a right attribute in place.
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& r = ir::kOps[i];
    if (!computed(r)) continue;
    for (int wa = 0; wa < kOperandWays; ++wa) {
      Operand a = operand_of(wa);
      if (a.src == Src::Attr && !reads_as(a.stored, r.left)) continue;
      for (int wb = 0; wb < (r.arity == 2 ? 2 : 1); ++wb)
        for (int br = 0; br < (selects(r) ? 2 : 1); ++br)
          t.op[size_t(i)][size_t(wa)][size_t(wb)][size_t(br)] =
              add({selects(r) ? Form::Select : Form::Value, ir::Op(i), a, operand_of(wb), Tk::I4, Tk::I4, br == 1});
    }
  }
  // 2. Gathers (attributes into vector registers), with each widening they can feed.
  for (Tk s : kStored)
    for (Tk to : kStored)
      if (reg_class(s) == to || widening(s, to))
        t.gather[size_t(s)][size_t(to)] = add({Form::Gather, ir::Op::ATTR, {}, {}, s, to});
  // 3. Parameters, stores and copies into the row, selection arithmetic.
  for (Tk s : kStored) t.param[size_t(s)] = add({Form::Param, ir::Op::PARAM, {}, {}, s, reg_class(s)});
  for (Tk s : kStored)
    for (int w = 0; w < 2; ++w) t.store[size_t(s)][size_t(w)] = add({Form::Store, ir::Op::CONST, operand_of(w), {}, s, s});
  for (Tk s : kStored) t.copy[size_t(s)] = add({Form::Copy, ir::Op::ATTR, {}, {}, s, s});
  auto form_only = [](Form f) {
    PrimDesc d;
    d.form = f;
    return d;
  };
  t.sel_diff = add(form_only(Form::SelDiff));
  t.sel_union = add(form_only(Form::SelUnion));
  t.sel_none = add(form_only(Form::SelNone));
  // 4. Accumulation: each aggregate function over each numeric column type,
  //    into the block's aggregate or each row's group; the runtime's per-row
  //    path; the group probe.
  for (int f = 0; f < kAggFns; ++f)
    for (Tk s : kStored)
      if (accum_reads(s))
        for (int g = 0; g < 2; ++g) {
          PrimDesc d{Form::Accum, ir::Op::CONST, {}, {}, s, s};
          d.agg = uint8_t(f);
          d.grouped = g == 1;
          t.accum[size_t(f)][size_t(s)][size_t(g)] = add(d);
        }
  for (int g = 0; g < 2; ++g) {
    PrimDesc d = form_only(Form::AccumRow);
    d.grouped = g == 1;
    t.accum_row[size_t(g)] = add(d);
  }
  t.probe = add(form_only(Form::Probe));
  return t;
}

inline constexpr PrimTable kPrims = make_prims();
inline constexpr int kNumPrims = kPrims.n;
static_assert(kNumPrims <= kMaxPrims, "primitives no longer fit the table");
static_assert(kPrims.op[size_t(ir::Op::LT_F8)][2 + 1][0][0] != 0 && kPrims.op[size_t(ir::Op::LT_F8)][2 + 1][0][1] != 0,
              "qoh < r: an i2 attribute compared in place as f8, with and without a branch");
static_assert(kPrims.op[size_t(ir::Op::LT_I4)][2 + 3][1][0] == 0 && kPrims.op[size_t(ir::Op::MOD_I4)][2 + 4][0][0] == 0,
              "no float attribute reads as an integer");
static_assert(kPrims.op[size_t(ir::Op::ADD_I4)][0][0][1] == 0, "only comparisons have a branch variant");
static_assert(kPrims.gather[size_t(Tk::I2)][size_t(Tk::F8)] != 0 && kPrims.gather[size_t(Tk::F8)][size_t(Tk::F4)] == 0,
              "gathers widen, never narrow");

}  // namespace quelkit::vector
