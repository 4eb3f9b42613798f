// Readying a plan's folded typed IR into a threaded program (program.h), and
// --dump=threaded. One postorder walk gives every IR node the kind of its typed
// operator and every value a register. Evaluation order stays the IR's (only
// side-effect-free attribute loads move, into the node that consumes them), so
// errors are raised at the same node, for the same tuple, as the interpreter's.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ostream>
#include <string>

#include "engine/limits.h"
#include "runtime/runtime_inline.h"
#include "threaded/program.h"

namespace quelkit::threaded {

namespace {

using ir::Generic;
using ir::Op;

[[noreturn]] void syserr(const char* what) {
  std::fprintf(stderr, "quelkit: internal error: threaded: %s\n", what);
  std::abort();
}

const char* tk_upper(Tk t) {
  static const char* const names[] = {"I1", "I2", "I4", "F4", "F8", "C", "B"};
  return names[size_t(t)];
}
const char* tk_lower(Tk t) {
  static const char* const names[] = {"i1", "i2", "i4", "f4", "f8", "c", "bool"};
  return names[size_t(t)];
}

// A value as the walk sees it: already in a register, a constant register,
// or an attribute not loaded yet (so its consumer may read the tuple itself).
struct Opnd {
  enum Where : uint8_t { Reg, Const, Attr } where = Reg;
  uint16_t reg = 0;
  Tk src = Tk::I4;     // Attr: stored type
  Tk type = Tk::I4;    // value type (after fused widening)
  uint8_t len = 0;     // characters: length of the value
  uint8_t cmp_len = 0; // characters: length a comparison needs (constants: blanks stripped)
  uint32_t off = 0;    // Attr: tuple offset
  int item = -1;       // dump: the tree line of the IR node this value is
  int inner = -1;      // dump: the ATTR line under a fused conversion
};

class Lowerer {
 public:
  Lowerer(const harness::Plan& plan, Program& p, Dispatch d, bool trace)
      : plan_(plan), p_(p), d_(d), trace_(trace) {}

  void run() {
    // One allocation per vector: at most a node and a register per IR node.
    size_t nodes = 4, bytes = 1;
    if (plan_.qual_folded) count(*plan_.qual_folded, nodes, bytes);
    for (const auto& t : plan_.targets_folded) count(*t, ++nodes, bytes);
    p_.code.reserve(nodes);
    p_.regs.reserve(nodes + kFirstFreeReg);
    p_.regs.assign(kFirstFreeReg, Reg{});
    p_.chars.reserve(bytes);

    // The qualification.
    const ir::Node* q = plan_.qual_folded.get();
    qual_item_ = -1;
    uint16_t result;
    if (!q || (q->op == Op::CONST && q->val.i != 0)) {
      p_.qual_always = true;
      result = bool_const(true);
      if (q && trace_) {
        qual_item_ = new_item(*q, -1);
        note(qual_item_, "always true");
      }
    } else {
      result = value(*q, -1, -1, &qual_item_);
    }
    emit(kKinds.qual_end, Node{.a = result});
    thread_jumps(uint32_t(p_.code.size()));

    // The projection.
    p_.proj_start = uint32_t(p_.code.size());
    p_.row_len = plan_.out.tuple_len;
    p_.in_len = plan_.in.tuple_len;
    if (plan_.targets_folded.size() != plan_.out.attrs.size()) syserr("targets and output columns differ");
    for (size_t i = 0; i < plan_.targets_folded.size(); ++i) target(*plan_.targets_folded[i], plan_.out.attrs[i]);
    emit(kKinds.proj_end, Node{});
    p_.targets_safe = !harness::targets_may_raise(plan_);

    // Character constants: offsets become pointers now that the bytes stop growing.
    p_.chars.push_back(' ');  // never empty, so "" constants point at real storage
    for (const auto& [reg, off] : char_consts_) p_.regs[reg].s = p_.chars.data() + off;
  }

  void dump(std::ostream& os, const std::string& label) const;

 private:
  static void count(const ir::Node& n, size_t& nodes, size_t& char_bytes) {
    ++nodes;
    if (n.op == Op::CONST && n.type.kind == Tk::C) char_bytes += n.type.len;
    for (const auto& k : n.kid)
      if (k) count(*k, nodes, char_bytes);
  }

  uint16_t new_reg() {
    // Reachable from the language (a qualification of tens of thousands of
    // terms with distinct constants): the limit error, not an abort.
    if (p_.regs.size() >= 0xffff) harness::throw_too_large("the threaded back end", "more than 65,535 registers");
    p_.regs.push_back(Reg{});
    return uint16_t(p_.regs.size() - 1);
  }

  uint32_t emit(uint16_t kind, Node n) {
    n.kind = kind;
    n.fn = d_ == Dispatch::Call ? handler_of(kind) : nullptr;
    p_.code.push_back(n);
    return uint32_t(p_.code.size() - 1);
  }

  uint16_t bool_const(bool v) {
    uint16_t r = new_reg();
    p_.regs[r].i = v;
    ++p_.nconst;
    return r;
  }

  // A folded constant (or query literal): a register loaded now, once. A
  // number already loaded (same type, same bits) shares its register: a long
  // `or` of the same few values needs as many registers as values.
  Opnd constant(const ir::Node& n, int item) {
    Opnd o;
    o.where = Opnd::Const;
    o.type = n.type.kind;
    o.item = item;
    if (n.type.kind != Tk::C) {
      uint64_t bits = 0;
      if (n.type.kind == Tk::F4) std::memcpy(&bits, &n.val.f4, sizeof n.val.f4);
      else if (n.type.kind == Tk::F8) std::memcpy(&bits, &n.val.f8, sizeof n.val.f8);
      else bits = uint64_t(int32_t(n.val.i));
      auto [at, fresh] = num_consts_.try_emplace({uint8_t(n.type.kind), bits}, uint16_t(0));
      if (!fresh) {
        o.reg = at->second;
        if (trace_) note_node(item, o.reg, -1, 0);
        return o;
      }
      at->second = o.reg = new_reg();
    } else {
      o.reg = new_reg();
    }
    ++p_.nconst;
    Reg& r = p_.regs[o.reg];
    switch (n.type.kind) {
      case Tk::I1: case Tk::I2: case Tk::I4: case Tk::B: r.i = int32_t(n.val.i); break;
      case Tk::F4: r.f4 = n.val.f4; break;
      case Tk::F8: r.f8 = n.val.f8; break;
      case Tk::C: {
        // the node's length is the value's, whatever the literal held
        uint32_t off = uint32_t(p_.chars.size());
        size_t have = n.val.s.size() < n.type.len ? n.val.s.size() : n.type.len;
        p_.chars.insert(p_.chars.end(), n.val.s.begin(), n.val.s.begin() + long(have));
        p_.chars.insert(p_.chars.end(), n.type.len - have, uint8_t(' '));
        char_consts_.emplace_back(o.reg, off);
        o.len = n.type.len;
        // comparisons and patterns ignore blanks anyway
        o.cmp_len = uint8_t(rt::strip(reinterpret_cast<const uint8_t*>(n.val.s.data()), uint32_t(have)));
        break;
      }
    }
    if (trace_) note_node(item, o.reg, -1, 0);
    return o;
  }

  // The operand for IR node n: emits the nodes computing it, except for
  // constants (registers) and attributes (left for the consumer to load).
  // `dst` >= 0 asks for the value in that register (when it is computed).
  Opnd operand(const ir::Node& n, int parent, int dst) {
    int it = trace_ ? new_item(n, parent) : -1;
    const OpRow& row = op_row(n.op);
    switch (row.generic) {
      case Generic::Const:
        return constant(n, it);
      case Generic::Attr: {
        Opnd o;
        o.where = Opnd::Attr;
        o.src = o.type = n.type.kind;
        o.len = o.cmp_len = n.type.len;
        o.off = n.offset;
        o.item = it;
        if (n.type.kind == Tk::B || n.offset + n.type.len > plan_.in.tuple_len) syserr("attribute outside the tuple");
        return o;
      }
      case Generic::Param: {
        if (n.type.kind == Tk::B || n.offset + n.type.len > plan_.params.tuple_len)
          syserr("parameter outside the parameter block");
        Opnd o;
        o.type = n.type.kind;
        o.len = o.cmp_len = n.type.len;
        o.reg = dst >= 0 ? uint16_t(dst) : new_reg();
        o.item = it;
        uint32_t k = emit(kKinds.param[size_t(n.type.kind)], Node{.dst = o.reg, .off = n.offset});
        if (trace_) note_node(it, o.reg, int(k), p_.code[k].kind);
        return o;
      }
      case Generic::Cvt: {
        Tk from = n.kid[0]->type.kind, to = n.type.kind;
        if (is_int(from) && is_int(to) && reg_class(from) == reg_class(to) &&
            (to == Tk::I4 || (from == Tk::I1 && to == Tk::I2))) {
          // Integer widening: the register already holds the value as int32.
          Opnd o = operand(*n.kid[0], it, dst);
          o.type = to;
          if (trace_) note(it, "no node: registers hold integers as int32");
          return o;
        }
        if (n.kid[0]->op == Op::ATTR && widening(from, to)) {
          // Fused with the load: the consumer reads the tuple and widens.
          Opnd o = operand(*n.kid[0], it, -1);
          o.type = to;
          o.inner = o.item;
          o.item = it;
          return o;
        }
        break;
      }
      default:
        break;
    }
    Opnd o;
    o.type = n.type.kind;
    o.len = o.cmp_len = n.type.len;
    o.reg = compute(n, it, dst);
    o.item = it;
    return o;
  }

  // The value of o in a register (dst if >= 0).
  uint16_t materialize(const Opnd& o, int dst) {
    switch (o.where) {
      case Opnd::Reg:
      case Opnd::Const:
        if (dst < 0 || dst == o.reg) return o.reg;
        emit(kKinds.move, Node{.dst = uint16_t(dst), .a = o.reg});
        return uint16_t(dst);
      case Opnd::Attr: {
        uint16_t r = dst >= 0 ? uint16_t(dst) : new_reg();
        uint16_t kind = kKinds.attr[size_t(o.src)][size_t(reg_class(o.type))];
        if (!kind) syserr("no attribute load for that conversion");
        uint32_t k = emit(kind, Node{.dst = r, .off = o.off, .alen = o.len});
        if (trace_) {
          note_node(o.item, r, int(k), kind);
          loaded_by(o, k, false);
        }
        return r;
      }
    }
    return 0;
  }

  // Dump notes for an attribute operand a node reads straight from the tuple.
  [[gnu::cold, gnu::noinline]] void loaded_by(const Opnd& o, uint32_t k, bool whole) {
    if (o.inner >= 0) note(o.inner, "read by node " + std::to_string(k));
    if (whole) note(o.item, "read by node " + std::to_string(k));
  }

  uint16_t value(const ir::Node& n, int parent, int dst, int* item = nullptr) {
    Opnd o = operand(n, parent, dst);
    if (item) *item = o.item;
    return materialize(o, dst);
  }

  // Emits the nodes of a non-leaf IR node; returns its result register.
  uint16_t compute(const ir::Node& n, int it, int dst) {
    const OpRow& row = op_row(n.op);
    Node node;
    node.pos = n.pos.pack();
    if (row.generic == Generic::And || row.generic == Generic::Or) {
      // n-ary (ir.h): every operand but the last is followed by a jump past
      // the last when its value decides.
      uint16_t d = dst >= 0 ? uint16_t(dst) : new_reg();
      node.dst = node.a = d;
      std::vector<uint32_t> jumps;
      jumps.reserve(n.kid.size() - 1);
      for (size_t i = 0; i < n.kid.size(); ++i) {
        value(*n.kid[i], it, d);
        if (i + 1 < n.kid.size()) jumps.push_back(emit(uint16_t(n.op), node));
      }
      for (uint32_t j : jumps) p_.code[j].off = uint32_t(p_.code.size() - j);
      if (trace_) note_node(it, d, int(jumps.front()), uint16_t(n.op));
      return d;
    }
    node.dst = dst >= 0 ? uint16_t(dst) : 0;  // a fresh register once the operands have theirs
    uint16_t kind = uint16_t(n.op);
    Opnd l, r;
    const Opnd* fused = nullptr;  // an attribute operand the node reads itself
    if (is_compare(row) || is_arith(row)) {
      // Comparisons and patterns need character lengths with blanks stripped
      // (constants are stored stripped); arithmetic needs none.
      l = operand(*n.kid[0], it, -1);
      r = operand(*n.kid[1], it, -1);
      Op m;
      if (l.where == Opnd::Attr && kKinds.attr_op[size_t(n.op)][size_t(l.src)]) {
        // superinstruction: the left attribute is read by the operator itself
        kind = kKinds.attr_op[size_t(n.op)][size_t(l.src)];
        node.b = materialize(r, -1);
        node.off = l.off;
        node.alen = l.len;
        node.blen = r.cmp_len;
        fused = &l;
      } else if (r.where == Opnd::Attr && ir::mirrored(n.op, &m) && kKinds.attr_op[size_t(m)][size_t(r.src)]) {
        kind = kKinds.attr_op[size_t(m)][size_t(r.src)];
        node.b = materialize(l, -1);
        node.off = r.off;
        node.alen = r.len;
        node.blen = l.cmp_len;
        fused = &r;
      } else {
        node.a = materialize(l, -1);
        node.b = materialize(r, -1);
        node.alen = l.cmp_len;
        node.blen = r.cmp_len;
      }
    } else {
      l = operand(*n.kid[0], it, -1);
      node.a = materialize(l, -1);
      node.alen = l.len;
      if (row.arity == 2) {
        r = operand(*n.kid[1], it, -1);
        node.b = materialize(r, -1);
        node.blen = r.len;
      }
      if (ir::generic_info(row.generic).scratch) {  // a character result: its slot and width
        if (n.scratch + n.type.len > plan_.scratch_size) syserr("character result outside the scratch area");
        node.off = n.scratch;
        node.off2 = n.type.len;
      }
    }
    if (dst < 0) node.dst = new_reg();
    uint32_t k = emit(kind, node);
    if (trace_) {
      note_node(it, node.dst, int(k), kind);
      if (fused) loaded_by(*fused, k, true);
    }
    return node.dst;
  }

  void target(const ir::Node& root, const Attribute& col) {
    int it = -1;
    if (trace_) it = target_item(col);
    if (root.type.kind != col.type.kind) syserr("target type does not fit its column");
    Opnd o = operand(root, it, -1);
    if (o.where == Opnd::Attr && o.src == col.type.kind && o.type == col.type.kind && o.len == col.type.len &&
        col.offset <= 0xffff) {
      uint32_t k = emit(kKinds.copy[size_t(col.type.kind)],
                        Node{.off = o.off, .alen = o.len, .off2 = uint16_t(col.offset)});
      if (trace_) note_node(o.item, -1, int(k), p_.code[k].kind);
      return;
    }
    uint16_t r = materialize(o, -1);
    uint32_t k = emit(kKinds.store[size_t(col.type.kind)],
                      Node{.pos = root.pos.pack(), .a = r, .off = col.offset, .alen = o.len, .blen = col.type.len});
    if (trace_) note_node(it, -1, int(k), p_.code[k].kind);
  }

  // An AND/OR that jumps onto another AND/OR of the same register knows that
  // one's outcome: jump straight past it (or to its right operand).
  void thread_jumps(uint32_t end) {
    for (uint32_t j = 0; j < end; ++j) {
      Node& n = p_.code[j];
      if (n.kind != uint16_t(Op::AND) && n.kind != uint16_t(Op::OR)) continue;
      uint32_t t = j + n.off;
      while (t < end && (p_.code[t].kind == uint16_t(Op::AND) || p_.code[t].kind == uint16_t(Op::OR)) &&
             p_.code[t].a == n.a)
        t = p_.code[t].kind == n.kind ? t + p_.code[t].off : t + 1;
      n.off = t - j;
    }
  }

  // ---- the dump's tree: one line per IR node, with what it became ----
  struct Item {
    std::string text;
    std::vector<int> kids;
    int depth = 0;
  };
  [[gnu::cold, gnu::noinline]] int new_item(const ir::Node& n, int parent) {
    std::string s = ir::op_name(n.op);
    s += ' ';
    s += type_name(n.type);
    if (n.op == Op::CONST) {
      std::string v = ir::format_value(n.type, n.val);
      s += ' ' + (n.type.kind == Tk::C ? "\"" + v + "\"" : v);
    } else if (n.op == Op::ATTR) {
      s += " tuple@" + std::to_string(n.offset);
    } else if (n.op == Op::PARAM) {
      s += " param@" + std::to_string(n.offset);
    }
    if (n.implicit) s += " implicit";
    if (n.pos.line) s += "  @" + std::to_string(n.pos.line) + ":" + std::to_string(n.pos.col);
    items_.push_back(Item{s, {}, 0});
    int id = int(items_.size() - 1);
    if (parent >= 0) items_[size_t(parent)].kids.push_back(id);
    return id;
  }
  [[gnu::cold, gnu::noinline]] int target_item(const Attribute& col) {
    items_.push_back(Item{"target " + col.name + ":", {}, 0});
    targets_.push_back(int(items_.size() - 1));
    return targets_.back();
  }
  // "[-> r5  node 2 LT_F8]", "[r2]" (a constant), "[node 4 COPY_I2]" (no register).
  [[gnu::cold, gnu::noinline]] void note_node(int item, int reg, int node, uint16_t kind) {
    std::string s;
    if (reg >= 0) s = (node >= 0 ? "-> r" : "r") + std::to_string(reg);
    if (node >= 0) s += (s.empty() ? "node " : "  node ") + std::to_string(node) + " " + kind_name(kind);
    note(item, s);
  }
  [[gnu::cold, gnu::noinline]] void note(int item, const std::string& text) {
    if (item >= 0) items_[size_t(item)].text += "  [" + text + "]";
  }
  void print_item(std::ostream& os, int id, int depth) const {
    os << std::string(size_t(depth) * 2, ' ') << items_[size_t(id)].text << '\n';
    for (int k : items_[size_t(id)].kids) print_item(os, k, depth + 1);
  }

  const harness::Plan& plan_;
  Program& p_;
  Dispatch d_;
  bool trace_;
  std::vector<std::pair<uint16_t, uint32_t>> char_consts_;  // (register, offset in chars)
  std::map<std::pair<uint8_t, uint64_t>, uint16_t> num_consts_;  // (type, bits) -> its register
  std::vector<Item> items_;
  int qual_item_ = -1;
  std::vector<int> targets_;
};

std::string reg_text(const Program& p, uint16_t r) {
  (void)p;
  return "r" + std::to_string(r);
}

// An attribute a node reads itself, with the conversion its kind applies:
// "tuple@30", or "CVT_I2_F8(tuple@30)" when the load widens.
std::string tuple_operand(const KindDesc& k, const Node& n) {
  std::string at = "tuple@" + std::to_string(n.off);
  if (!widening(k.src, k.to)) return at;
  return std::string("CVT_") + tk_upper(k.src) + "_" + tk_upper(k.to) + "(" + at + ")";
}

std::string node_text(const Program& p, uint32_t i) {
  const Node& n = p.code[i];
  const KindDesc& k = kKinds.k[n.kind];
  std::string s;
  auto R = [&](uint16_t r) { return reg_text(p, r); };
  switch (k.form) {
    case Form::Op: {
      const OpRow& row = op_row(k.op);
      if (row.generic == Generic::And || row.generic == Generic::Or) {
        s = R(n.dst) + (row.generic == Generic::And ? " false" : " true") + ": jump to " +
            std::to_string(i + n.off);
      } else {
        s = R(n.dst) + " <- " + R(n.a);
        if (row.arity == 2) s += ", " + R(n.b);
        if (ir::generic_info(row.generic).scratch) s += "  scratch@" + std::to_string(n.off);
      }
      break;
    }
    case Form::Attr: s = R(n.dst) + " <- " + tuple_operand(k, n); break;
    case Form::Param: s = R(n.dst) + " <- param@" + std::to_string(n.off); break;
    case Form::CmpAttr:
    case Form::ArithAttr: s = R(n.dst) + " <- " + tuple_operand(k, n) + ", " + R(n.b); break;
    case Form::Move: s = R(n.dst) + " <- " + R(n.a); break;
    case Form::Store: s = "row@" + std::to_string(n.off) + " <- " + R(n.a); break;
    case Form::Copy: s = "row@" + std::to_string(n.off2) + " <- tuple@" + std::to_string(n.off); break;
    case Form::QualEnd: s = R(n.a); break;
    case Form::ProjEnd: case Form::None: break;
  }
  if (n.pos) {
    SrcPos pos = SrcPos::unpack(n.pos);
    s += "  @" + std::to_string(pos.line) + ":" + std::to_string(pos.col);
  }
  return s;
}

void Lowerer::dump(std::ostream& os, const std::string& label) const {
  size_t temps = p_.regs.size() - kFirstFreeReg - p_.nconst;
  os << "threaded " << label << ": " << p_.code.size() << " nodes, " << p_.regs.size() << " registers (r0 status, r1 row, "
     << p_.nconst << " constant, " << temps << " temporary)\n";
  os << "qual:" << (plan_.qual_folded ? "" : " none (every tuple qualifies)") << '\n';
  if (qual_item_ >= 0) print_item(os, qual_item_, 1);
  for (int t : targets_) print_item(os, t, 0);
  os << "program:\n";
  for (uint32_t i = 0; i < p_.code.size(); ++i) {
    char head[64];
    std::snprintf(head, sizeof head, "%4u  %-18s ", i, kind_name(p_.code[i].kind).c_str());
    std::string line = head + node_text(p_, i);
    line.resize(rt::strip(line).size());
    os << line << '\n';
  }
}

}  // namespace

std::string kind_name(int kind) {
  if (kind < 0 || kind >= kNumKinds) return "?";
  const KindDesc& k = kKinds.k[size_t(kind)];
  switch (k.form) {
    case Form::None: return "?";
    case Form::Op: return ir::op_name(k.op);
    case Form::Attr:
      if (reg_class(k.src) == k.to) return std::string("ATTR_") + tk_upper(k.src);
      return std::string("CVT_") + tk_upper(k.src) + "_" + tk_upper(k.to) + ".attr";
    case Form::Param: return std::string("PARAM_") + tk_upper(k.src);
    case Form::CmpAttr:
    case Form::ArithAttr: return std::string(ir::op_name(k.op)) + ".attr_" + tk_lower(k.src);
    case Form::Move: return "MOVE";
    case Form::Store: return std::string("STORE_") + tk_upper(k.src);
    case Form::Copy: return std::string("COPY_") + tk_upper(k.src);
    case Form::QualEnd: return "QUAL_END";
    case Form::ProjEnd: return "PROJ_END";
  }
  return "?";
}

Program lower(const harness::Plan& plan, Dispatch d, std::ostream* dump) {
  Program p;
  Lowerer lw(plan, p, d, dump != nullptr);
  lw.run();
  if (dump) lw.dump(*dump, plan.name.empty() ? "plan" : plan.name);
  return p;
}

}  // namespace quelkit::threaded
