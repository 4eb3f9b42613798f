// Readying a plan's folded typed IR into a vectorized program (program.h),
// and --dump=vector. One walk: a condition becomes primitives that narrow a
// selection vector, a value becomes a primitive computing a vector register
// under the selection of the tuples that evaluate it. Instructions follow the
// IR's evaluation order (operands before operators, left before right; only
// side-effect-free attribute reads move, into the primitive that consumes
// them), so for each tuple the first error flagged is the one tuple-at-a-time
// evaluation raises.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>

#include "engine/limits.h"
#include "runtime/accumulate_inline.h"
#include "vector/program.h"

namespace quelkit::vector {

namespace {

using ir::Generic;
using ir::Op;

[[noreturn]] void syserr(const char* what) {
  std::fprintf(stderr, "quelkit: internal error: vector: %s\n", what);
  std::abort();
}

// A program past one of the format's 16-bit limits. Reachable from the
// language (a qualification of tens of thousands of terms): the limit error
// every back end gives, not an abort; the session positions it.
[[noreturn]] void too_large(const char* what) {
  harness::throw_too_large("the vector back end", std::string("more than 65,535 ") + what);
}

// "i2", "c", "bool" (types.def's formats), and "I2" for primitive names.
std::string tk_lower(Tk t) { return t == kNoTk ? "?" : type_info(t).format; }
std::string tk_upper(Tk t) {
  std::string s = tk_lower(t);
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A value as the walk sees it: in a vector register, in a scalar register,
// or an attribute not read yet (so its consumer may read it in place).
struct Opnd {
  enum Where : uint8_t { Vec, Scalar, Attr } where = Vec;
  uint16_t reg = 0;
  Tk stored = Tk::I4;  // Attr: stored type
  Tk type = Tk::I4;    // value type (after widening the reads fuse)
  uint16_t len = 0;    // characters: length of the value
  uint32_t off = 0;    // Attr: tuple offset
};

class Lowerer {
 public:
  Lowerer(const harness::Plan& plan, Program& p) : plan_(plan), p_(p) {}

  void run() {
    p_.scalars.clear();
    p_.row_len = plan_.out.tuple_len;
    p_.in_len = plan_.in.tuple_len;
    const ir::Node* q = plan_.qual_folded.get();
    if (q && !(q->op == Op::CONST && q->val.i != 0)) p_.qual_sel = select(*q, kAllSel, qual_);
    if (plan_.targets_folded.size() != plan_.out.attrs.size()) syserr("targets and output columns differ");
    for (size_t i = 0; i < plan_.targets_folded.size(); ++i) target(*plan_.targets_folded[i], plan_.out.attrs[i]);

    // [prologue] [qualification] [projection], numbered in that order.
    p_.code = std::move(prologue_);
    p_.qual_start = uint32_t(p_.code.size());
    p_.code.insert(p_.code.end(), qual_.begin(), qual_.end());
    p_.proj_start = uint32_t(p_.code.size());
    p_.code.insert(p_.code.end(), proj_.begin(), proj_.end());
    if (p_.code.size() > 0xffff) too_large("instructions");
    for (size_t i = 0; i < p_.code.size(); ++i) p_.code[i].index = uint16_t(i);

    p_.chars.push_back(' ');  // never empty, so "" constants point at real storage
    for (const auto& [reg, off] : char_consts_) p_.scalars[reg].s = p_.chars.data() + off;
  }

 private:
  uint16_t new_vec() {
    if (p_.nvec == 0xffff) too_large("vector registers");
    return p_.nvec++;
  }
  uint16_t new_sel() {
    if (p_.nsel == 0xffff) too_large("selection registers");
    return p_.nsel++;
  }
  uint16_t new_scalar() {
    if (p_.scalars.size() >= 0xffff) too_large("scalar registers");
    p_.scalars.push_back(Scalar{});
    return uint16_t(p_.scalars.size() - 1);
  }

  static void emit(std::vector<Instr>& to, uint16_t kind, Instr in) {
    if (!kind) syserr("no primitive for that operator and operands");
    in.kind = kind;
    in.fn = prim_of(kind);
    to.push_back(in);
  }

  // ---- conditions: selection vectors ----

  // The selection of the tuples of `sel` for which n holds.
  uint16_t select(const ir::Node& n, uint16_t sel, std::vector<Instr>& to) {
    const ir::OpInfo& row = ir::op_info(n.op);
    switch (row.generic) {
      case Generic::Const: {
        if (n.val.i) return sel;
        uint16_t d = new_sel();
        emit(to, kPrims.sel_none, Instr{.dst = d, .sel = sel});
        return d;
      }
      case Generic::And:  // n-ary (ir.h): each operand narrows the last one's selection
        for (const auto& k : n.kid) sel = select(*k, sel, to);
        return sel;
      case Generic::Or: {
        // Each operand runs on the tuples no earlier operand selected
        // (`open`), which keeps the short-circuit rule; the union collects.
        uint16_t yes = select(*n.kid[0], sel, to);  // selected so far
        uint16_t open = sel, last = yes;             // not yet selected; the latest operand's pick
        for (size_t i = 1; i < n.kid.size(); ++i) {
          uint16_t rest = new_sel();  // last is a subset of open (sel_diff's contract)
          emit(to, kPrims.sel_diff, Instr{.dst = rest, .a = open, .b = last, .sel = sel});
          open = rest;
          last = select(*n.kid[i], open, to);
          uint16_t d = new_sel();  // disjoint: last comes from what yes left open
          emit(to, kPrims.sel_union, Instr{.dst = d, .a = yes, .b = last, .sel = sel});
          yes = d;
        }
        return yes;
      }
      case Generic::Not: {
        uint16_t yes = select(*n.kid[0], sel, to);
        uint16_t d = new_sel();
        emit(to, kPrims.sel_diff, Instr{.dst = d, .a = sel, .b = yes, .sel = sel});
        return d;
      }
      default:
        break;
    }
    if (row.result != Tk::B || row.arity != 2 || !computed(row)) syserr("a condition that is no comparison");
    Opnd l = operand(*n.kid[0], sel, to), r = operand(*n.kid[1], sel, to);
    return apply(n, l, r, sel, to);
  }

  // ---- values: vector and scalar registers ----

  Opnd operand(const ir::Node& n, uint16_t sel, std::vector<Instr>& to) {
    const ir::OpInfo& row = ir::op_info(n.op);
    switch (row.generic) {
      case Generic::Const:
        return constant(n);
      case Generic::Attr: {
        if (n.type.kind == Tk::B || n.offset + n.type.len > plan_.in.tuple_len) syserr("attribute outside the tuple");
        Opnd o;
        o.where = Opnd::Attr;
        o.stored = o.type = n.type.kind;
        o.len = n.type.len;
        o.off = n.offset;
        return o;
      }
      case Generic::Param: {
        if (n.type.kind == Tk::B || n.offset + n.type.len > plan_.params.tuple_len)
          syserr("parameter outside the parameter block");
        Opnd o;
        o.where = Opnd::Scalar;
        o.type = n.type.kind;
        o.len = n.type.len;
        o.reg = new_scalar();
        emit(prologue_, kPrims.param[size_t(n.type.kind)], Instr{.pos = n.pos.pack(), .dst = o.reg, .off = n.offset});
        return o;
      }
      case Generic::Cvt: {
        Tk from = n.kid[0]->type.kind, to_t = n.type.kind;
        Opnd o = operand(*n.kid[0], sel, to);
        if (is_int(from) && is_int(to_t) && int_width(from) <= int_width(to_t)) {
          o.type = to_t;  // integer widening: registers hold every integer as int32
          return o;
        }
        // A widening read of an attribute not read yet (an integer as f4 or
        // f8, f4 as f8): fused into the read.
        if (o.where == Opnd::Attr && widening(from, to_t) && (o.type == o.stored || (is_int(o.type) && is_int(o.stored)))) {
          o.type = to_t;
          return o;
        }
        return computed_value(n, o, Opnd{}, sel, to);
      }
      default:
        break;
    }
    if (!computed(row) || row.result == Tk::B) syserr("a value that is no computation");
    Opnd l = operand(*n.kid[0], sel, to);
    Opnd r;
    if (row.arity == 2) r = operand(*n.kid[1], sel, to);
    return computed_value(n, l, r, sel, to);
  }

  Opnd computed_value(const ir::Node& n, Opnd l, Opnd r, uint16_t sel, std::vector<Instr>& to) {
    Opnd o;
    o.where = Opnd::Vec;
    o.type = n.type.kind;
    o.len = n.type.len;
    o.reg = apply(n, l, r, sel, to);
    return o;
  }

  // A folded constant or query literal: a scalar register loaded now, once.
  Opnd constant(const ir::Node& n) {
    Opnd o;
    o.where = Opnd::Scalar;
    o.type = n.type.kind;
    o.len = n.type.len;
    o.reg = new_scalar();
    Scalar& s = p_.scalars[o.reg];
    switch (n.type.kind) {
      case Tk::I1: case Tk::I2: case Tk::I4: case Tk::B: s.i = int32_t(n.val.i); break;
      case Tk::F4: s.f4 = n.val.f4; break;
      case Tk::F8: s.f8 = n.val.f8; break;
      case Tk::C: {
        std::string bytes = n.val.s;  // the node's length is the value's, whatever the literal held
        bytes.resize(n.type.len, ' ');
        char_consts_.emplace_back(o.reg, uint32_t(p_.chars.size()));
        p_.chars.insert(p_.chars.end(), bytes.begin(), bytes.end());
        break;
      }
    }
    return o;
  }

  // An attribute read into a vector register (under sel, where it is needed).
  Opnd gathered(const Opnd& o, uint16_t sel, std::vector<Instr>& to) {
    if (o.where != Opnd::Attr) return o;
    Opnd g = o;
    g.where = Opnd::Vec;
    g.reg = new_vec();
    emit(to, kPrims.gather[size_t(o.stored)][size_t(reg_class(o.type))], Instr{.dst = g.reg, .sel = sel, .off = o.off});
    return g;
  }

  static int way(const Opnd& o) {
    if (o.where == Opnd::Vec) return 0;
    if (o.where == Opnd::Scalar) return 1;
    return way_of(Operand{Src::Attr, o.stored});
  }

  // Emits the primitive of IR node n (a computed row) over operands l and r;
  // returns the register it writes (a vector, or a selection for a comparison).
  uint16_t apply(const ir::Node& n, Opnd l, Opnd r, uint16_t sel, std::vector<Instr>& to) {
    const ir::OpInfo& row = ir::op_info(n.op);
    const int br = p_.opt.selection == Selection::Branch && selects(row) ? 1 : 0;
    const bool unary = row.arity == 1;
    const auto& table = kPrims.op;
    Op op = n.op, m;
    if (p_.opt.attrs == Attrs::Gather) {
      l = gathered(l, sel, to);
      if (!unary) r = gathered(r, sel, to);
    } else if (l.where != Opnd::Attr && !unary && r.where == Opnd::Attr && ir::mirrored(op, &m) &&
               table[size_t(m)][size_t(way(r))][0][0]) {
      std::swap(l, r);  // read the right attribute in place
      op = m;
    }
    if (l.where == Opnd::Attr && !table[size_t(op)][size_t(way(l))][0][0]) l = gathered(l, sel, to);
    if (!unary) r = gathered(r, sel, to);  // operand b is always a register
    uint16_t kind = table[size_t(op)][size_t(way(l))][unary ? 0 : size_t(way(r))][size_t(br)];
    const uint16_t d = selects(row) ? new_sel() : new_vec();
    Instr in{.pos = n.pos.pack(), .dst = d, .a = l.reg, .sel = sel, .alen = l.len, .off = l.off};
    if (!unary) in.b = r.reg, in.blen = r.len;
    if (ir::generic_info(row.generic).scratch) {  // a character result: a slot per place of the batch
      uint64_t bytes = uint64_t(p_.scratch_bytes) + uint64_t(n.type.len) * p_.opt.batch;
      if (bytes > 0xffffffffu) syserr("character results of a batch beyond 4 GiB");
      in.out = p_.scratch_bytes;
      in.width = n.type.len;
      p_.scratch_bytes = uint32_t(bytes);
    }
    emit(to, kind, in);
    return d;
  }

  // ---- the projection ----

  void target(const ir::Node& root, const Attribute& col) {
    if (root.type.kind != col.type.kind) syserr("target type does not fit its column");
    Opnd o = operand(root, p_.qual_sel, proj_);
    Instr in{.pos = root.pos.pack(), .sel = p_.qual_sel, .out = col.offset};
    if (o.where == Opnd::Attr && o.stored == col.type.kind && o.type == col.type.kind && o.len == col.type.len) {
      in.off = o.off;
      in.alen = o.len;
      emit(proj_, kPrims.copy[size_t(col.type.kind)], in);
      return;
    }
    o = gathered(o, p_.qual_sel, proj_);
    in.a = o.reg;
    in.alen = o.len;
    in.width = col.type.len;
    emit(proj_, kPrims.store[size_t(col.type.kind)][size_t(way(o))], in);
  }

  const harness::Plan& plan_;
  Program& p_;
  std::vector<Instr> prologue_, qual_, proj_;
  std::vector<std::pair<uint16_t, uint32_t>> char_consts_;  // (scalar register, offset in chars)
};

std::string way_name(Operand o) {
  if (o.src == Src::Vec) return "vec";
  if (o.src == Src::Scalar) return "scalar";
  return "attr_" + tk_lower(o.stored);
}

// ---- the dump ----

std::string scalar_text(const Program& p, uint16_t r, Tk t, uint16_t len) {
  std::string s = "c" + std::to_string(r);
  const Scalar& v = p.scalars[r];
  bool param = false;
  for (uint32_t i = 0; i < p.qual_start; ++i) param = param || p.code[i].dst == r;
  if (param) return s;
  if (t == Tk::C) {
    if (!v.s) return s;
    return s + "=\"" + std::string(reinterpret_cast<const char*>(v.s), len) + "\"";
  }
  char buf[64];
  if (t == Tk::F4) std::snprintf(buf, sizeof buf, "=%.9g", double(v.f4));
  else if (t == Tk::F8) std::snprintf(buf, sizeof buf, "=%.17g", v.f8);
  else std::snprintf(buf, sizeof buf, "=%d", v.i);
  return s + buf;
}

std::string operand_text(const Program& p, const Instr& in, Operand o, Tk t, bool is_a) {
  if (o.src == Src::Attr) {
    std::string at = "tuple@" + std::to_string(in.off);
    if (reg_class(o.stored) == reg_class(t)) return at;
    return "CVT_" + tk_upper(o.stored) + "_" + tk_upper(t) + "(" + at + ")";
  }
  uint16_t r = is_a ? in.a : in.b;
  if (o.src == Src::Scalar) return scalar_text(p, r, t, is_a ? in.alen : in.blen);
  return "v" + std::to_string(r);
}

std::string instr_text(const Program& p, const Instr& in) {
  const PrimDesc& d = kPrims.k[in.kind];
  std::string s, under = "  under s" + std::to_string(in.sel);
  switch (d.form) {
    case Form::Value:
    case Form::Select: {
      const ir::OpInfo& row = ir::op_info(d.op);
      s = (d.form == Form::Select ? "s" : "v") + std::to_string(in.dst) + " <- " +
          operand_text(p, in, d.a, row.left, true);
      if (row.arity == 2) s += ", " + operand_text(p, in, d.b, row.right, false);
      if (ir::generic_info(row.generic).scratch) s += "  scratch@" + std::to_string(in.out);
      s += under;
      break;
    }
    case Form::Gather: s = "v" + std::to_string(in.dst) + " <- tuple@" + std::to_string(in.off) + under; break;
    case Form::Param: s = "c" + std::to_string(in.dst) + " <- param@" + std::to_string(in.off); break;
    case Form::SelDiff:
      s = "s" + std::to_string(in.dst) + " <- s" + std::to_string(in.a) + " without s" + std::to_string(in.b);
      break;
    case Form::SelUnion:
      s = "s" + std::to_string(in.dst) + " <- s" + std::to_string(in.a) + " with s" + std::to_string(in.b);
      break;
    case Form::SelNone: s = "s" + std::to_string(in.dst) + " <- none"; break;
    case Form::Store:
      s = "row@" + std::to_string(in.out) + " <- " + operand_text(p, in, d.a, d.src, true) + under;
      break;
    case Form::Copy: s = "row@" + std::to_string(in.out) + " <- tuple@" + std::to_string(in.off) + under; break;
    case Form::Probe: s = "group <- by values of the rows" + under; break;
    case Form::Accum:
    case Form::AccumRow:
      s = "aggregate " + std::to_string(in.a) + (d.grouped ? " of each group" : "") + " += row@" +
          std::to_string(in.off) + under;
      break;
    case Form::None: break;
  }
  if (in.pos) {
    SrcPos pos = SrcPos::unpack(in.pos);
    if (pos.line) s += "  @" + std::to_string(pos.line) + ":" + std::to_string(pos.col);
  }
  return s;
}

void print(const Program& p, const std::string& label, std::ostream& os) {
  const bool branch = p.opt.selection == Selection::Branch;
  os << "vector " << label << ": " << p.code.size() << " primitives, " << p.nvec << " vector, " << p.scalars.size()
     << " scalar, " << p.nsel << " selection registers\n";
  os << "attributes: "
     << (p.opt.attrs == Attrs::InPlace ? "in place (primitives read tuple + offset)"
                                       : "gathered (into vector registers first)")
     << "\nselection: "
     << (branch ? "branch (a candidate is written only if it passes)"
                : "nobranch (every candidate written, the output advanced by the outcome)")
     << "\nbatch: " << p.opt.batch << " tuples (batches span pages)\n";
  auto section = [&](const char* name, uint32_t from, uint32_t to) {
    os << name << ":" << (from == to ? " none" : "") << '\n';
    for (uint32_t i = from; i < to; ++i) {
      char head[96];
      std::snprintf(head, sizeof head, "%4u  %-34s ", i, prim_name(p.code[i].kind).c_str());
      std::string line = head + instr_text(p, p.code[i]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      os << line << '\n';
    }
  };
  section("prologue", 0, p.qual_start);
  section("qual", p.qual_start, p.proj_start);
  os << "qualifying: s" << p.qual_sel << (p.qual_sel == kAllSel ? " (every tuple)" : "") << '\n';
  section("project", p.proj_start, uint32_t(p.code.size()));
}

}  // namespace

std::string prim_name(int kind) {
  if (kind <= 0 || kind >= kNumPrims) return "?";
  const PrimDesc& d = kPrims.k[size_t(kind)];
  switch (d.form) {
    case Form::None: return "?";
    case Form::Value:
    case Form::Select: {
      const ir::OpInfo& row = ir::op_info(d.op);
      std::string s = std::string(row.name) + "(" + way_name(d.a);
      if (row.arity == 2) s += ", " + way_name(d.b);
      s += ")";
      if (d.form == Form::Select) s += d.branch ? " branch" : " nobranch";
      return s;
    }
    case Form::Gather:
      return "GATHER_" + tk_upper(d.src) + (reg_class(d.src) == d.to ? "" : "_" + tk_upper(d.to));
    case Form::Param: return "PARAM_" + tk_upper(d.src);
    case Form::SelDiff: return "SEL_DIFF";
    case Form::SelUnion: return "SEL_UNION";
    case Form::SelNone: return "SEL_NONE";
    case Form::Store: return "STORE_" + tk_upper(d.src) + "(" + way_name(d.a) + ")";
    case Form::Copy: return "COPY_" + tk_upper(d.src);
    case Form::Probe: return "GROUP_PROBE";
    case Form::Accum: {
      static constexpr const char* kFn[kAggFns] = {"COUNT", "SUM", "AVG", "MIN", "MAX", "ANY"};
      return std::string("ACC_") + kFn[d.agg] + "_" + tk_upper(d.src) + (d.grouped ? " grouped" : "");
    }
    case Form::AccumRow: return std::string("ACC_ROW") + (d.grouped ? " grouped" : "");
  }
  return "?";
}

std::vector<Instr> lower_accumulate(const qk_accum* acc, uint16_t qual_sel) {
  std::vector<Instr> code;
  auto add = [&](uint16_t kind) -> Instr& {
    Instr in;
    in.kind = kind;
    in.fn = prim_of(kind);
    in.sel = qual_sel;
    in.index = uint16_t(code.size());
    code.push_back(in);
    return code.back();
  };
  const bool grouped = acc->nby != 0;
  if (grouped) add(kPrims.probe);
  const qk_agg* protos = qk_accum_protos(acc);
  for (uint32_t i = 0; i < acc->naggs; ++i) {
    const qk_agg& g = protos[i];
    const Tk t = Tk(g.arg.kind);
    // The primitive of the function and column type where the runtime's
    // column step takes it (accumulate_inline.h), else the per-row path.
    Instr& in = add(rt::agg_adds_column(&g) ? kPrims.accum[g.fn][size_t(t)][grouped] : kPrims.accum_row[grouped]);
    in.a = uint16_t(i);
    in.off = g.arg.offset;
    in.alen = uint16_t(g.arg.len);
  }
  return code;
}

Program lower(const harness::Plan& plan, const Options& opt, std::ostream* dump) {
  Program p;
  p.opt = opt;
  if (p.opt.batch == 0) p.opt.batch = kDefaultBatch;
  if (p.opt.batch > kMaxBatch) p.opt.batch = kMaxBatch;
  Lowerer lw(plan, p);
  lw.run();
  if (dump) print(p, plan.name.empty() ? "plan" : plan.name, *dump);
  return p;
}

}  // namespace quelkit::vector
