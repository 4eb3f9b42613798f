// Postfix lowering for the 1976 interpreter: a postorder walk of the UNFOLDED
// typed IR that keeps only what INGRES's symbol lists held — leaves with their
// (type, len, value), generic operators, and/or branches — and throws the
// static typing away, so the interpreter re-derives it per tuple. No folding:
// log(9.5) stays a Const and a Log symbol and is computed on every tuple.
#include "interp/lower.h"

#include <charconv>
#include <cstdio>
#include <ostream>
#include <string>

#include "storage/page.h"
#include "runtime/runtime_inline.h"

namespace quelkit::interp {

const char* code_name(Code c) {
  static const char* const names[] = {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) #ID,
#include "frontend/ops.def"
      "Store", "End"};
  static_assert(sizeof names / sizeof names[0] == kNumCodes);
  return size_t(c) < size_t(kNumCodes) ? names[size_t(c)] : "?";
}

namespace {

// An implicit conversion the interpreter's per-operator rule re-derives by
// itself: widening into the class an operator computes in (integers to i4,
// integers to f4, integers or f4 to f8). Those are the only implicit
// conversions the binder puts inside expressions; the narrowing ones it
// inserts for append/replace sit at a target's root, where Store converts to
// the column type. Anything else implicit is kept as a Cvt symbol, so the
// result cannot silently differ from the typed IR's.
bool rederived(const ir::Node& n) {
  Tk from = n.kid[0]->type.kind, to = n.type.kind;
  bool from_int = from == Tk::I1 || from == Tk::I2 || from == Tk::I4;
  if (from_int) return to == Tk::I4 || to == Tk::F4 || to == Tk::F8;
  return from == Tk::F4 && to == Tk::F8;
}

class Lowerer {
 public:
  Lowerer(const harness::Plan& plan, const uint8_t* params, Program& prog)
      : plan_(plan), params_(params), prog_(prog) {}

  void qual(const ir::Node& n) {
    out_ = &prog_.qual;
    depth_ = 0;
    expr(n);
    emit_op(Code::End, n, 0);
    if (depth_ != 1) syserr("lower: qualification leaves no single value", nullptr);
  }

  void target(const ir::Node& root, const Attribute& col) {
    out_ = &prog_.targets;
    depth_ = 0;
    // Store converts to the column type; an implicit conversion to exactly
    // that type at the root (append/replace assignment) is what Store does.
    const ir::Node* n = &root;
    if (is_cvt(root) && root.implicit && root.type == col.type) n = root.kid[0].get();
    expr(*n);
    if (col.type.kind == Tk::B || (col.type.kind == Tk::C) != (n->type.kind == Tk::C))
      syserr("lower: target type does not fit its column", nullptr);
    Symbol s = op_symbol(Code::Store, root);
    s.type = col.type.kind;
    s.len = col.type.len;
    s.aux = col.offset;
    push(s, -1);
  }

  void end_targets() {
    Symbol s{};
    s.code = Code::End;
    prog_.targets.push_back(s);
  }

 private:
  static bool is_cvt(const ir::Node& n) { return ir::op_info(n.op).generic == ir::Generic::Cvt; }

  void push(const Symbol& s, int effect) {
    out_->push_back(s);
    depth_ += effect;
    if (depth_ < 0) syserr("lower: stack underflow in the symbol list", &out_->back());
    if (uint32_t(depth_) > prog_.depth) prog_.depth = uint32_t(depth_);
  }

  static Symbol op_symbol(Code c, const ir::Node& n) {
    Symbol s{};
    s.code = c;
    s.v.pos = n.pos.pack();
    return s;
  }

  void emit_op(Code c, const ir::Node& n, int effect) { push(op_symbol(c, n), effect); }

  // Character bytes are recorded by offset now and turned into pointers once
  // the storage stops growing (fixup()).
  uint64_t keep_chars(const uint8_t* p, uint32_t n) {
    uint64_t off = prog_.chars.size();
    prog_.chars.insert(prog_.chars.end(), p, p + n);
    return off;
  }

  void leaf_const(const ir::Node& n) {
    Symbol s{};
    s.code = Code::Const;
    s.type = n.type.kind;
    s.len = n.type.len;
    switch (n.type.kind) {
      case Tk::I1: case Tk::I2: case Tk::I4: s.v.i = int32_t(n.val.i); break;
      case Tk::B: s.v.i = n.val.i != 0; break;
      case Tk::F4: s.v.f4 = n.val.f4; break;
      case Tk::F8: s.v.f8 = n.val.f8; break;
      case Tk::C: {
        std::string b = n.val.s;
        b.resize(n.type.len, ' ');  // the node's length is the symbol's, whatever the literal held
        s.v.bits = keep_chars(reinterpret_cast<const uint8_t*>(b.data()), n.type.len);
        break;
      }
    }
    push(s, +1);
  }

  // The substituted value, read from the parameter block, becomes a Const.
  void leaf_param(const ir::Node& n) {
    if (!params_) syserr("lower: parameter without a parameter block", nullptr);
    if (n.offset + n.type.len > plan_.params.tuple_len)
      syserr("lower: parameter outside the parameter block", nullptr);
    const uint8_t* p = params_ + n.offset;
    Symbol s{};
    s.code = Code::Const;
    s.type = n.type.kind;
    s.len = n.type.len;
    switch (n.type.kind) {
      case Tk::I1: s.v.i = harness::load<int8_t>(p); break;
      case Tk::I2: s.v.i = harness::load<int16_t>(p); break;
      case Tk::I4: s.v.i = harness::load<int32_t>(p); break;
      case Tk::F4: s.v.f4 = harness::load<float>(p); break;
      case Tk::F8: s.v.f8 = harness::load<double>(p); break;
      case Tk::C: s.v.bits = keep_chars(p, n.type.len); break;
      case Tk::B: syserr("lower: boolean parameter", nullptr);
    }
    push(s, +1);
  }

  void leaf_attr(const ir::Node& n) {
    if (n.type.kind == Tk::B || n.offset + n.type.len > plan_.in.tuple_len)
      syserr("lower: attribute outside the tuple", nullptr);
    Symbol s{};
    s.code = Code::Attr;
    s.type = n.type.kind;
    s.len = n.type.len;
    s.aux = n.offset;
    push(s, +1);
  }

  void expr(const ir::Node& n) {
    const ir::OpInfo& info = ir::op_info(n.op);
    const Code code = Code(info.generic);  // identity, see symbol.h
    switch (info.generic) {
      case ir::Generic::Const: return leaf_const(n);
      case ir::Generic::Attr: return leaf_attr(n);
      case ir::Generic::Param: return leaf_param(n);
      case ir::Generic::Cvt: {
        expr(*n.kid[0]);
        if (n.implicit && rederived(n)) return;  // the operator above converts per tuple
        Symbol s = op_symbol(Code::Cvt, n);
        s.type = n.type.kind;
        s.len = n.type.len;
        return push(s, 0);
      }
      case ir::Generic::And:
      case ir::Generic::Or: {
        // Each operand but the last is followed by a branch: it keeps the
        // value and skips every operand after it when the value decides,
        // else pops it and falls through to the next operand.
        std::vector<size_t> branches;
        branches.reserve(n.kid.size() - 1);
        for (size_t i = 0; i < n.kid.size(); ++i) {
          expr(*n.kid[i]);
          if (i + 1 == n.kid.size()) break;
          emit_op(code, n, -1);
          branches.push_back(out_->size() - 1);
        }
        for (size_t b : branches) (*out_)[b].aux = uint32_t(out_->size() - b - 1);
        return;
      }
      default:
        break;
    }
    // Every other operator: its operands, then the generic operator. The
    // position is the IR node's, so errors point where the typed back ends do.
    expr(*n.kid[0]);
    if (info.arity == 2) expr(*n.kid[1]);
    if (ir::generic_info(info.generic).scratch) {
      // A character result: its type, width and slot of qk_ctx.scratch.
      Symbol s = op_symbol(code, n);
      s.type = Tk::C;
      s.len = n.type.len;
      s.aux = n.scratch;
      return push(s, info.arity == 2 ? -1 : 0);
    }
    emit_op(code, n, info.arity == 2 ? -1 : 0);
  }

  const harness::Plan& plan_;
  const uint8_t* params_;
  Program& prog_;
  std::vector<Symbol>* out_ = nullptr;
  int depth_ = 0;
};

void fixup(std::vector<Symbol>& list, const uint8_t* base) {
  for (Symbol& s : list)
    if (s.code == Code::Const && s.type == Tk::C) s.v.s = base + s.v.bits;
}

}  // namespace

Program lower(const harness::Plan& plan, const uint8_t* params) {
  Program prog;
  Lowerer lw(plan, params, prog);
  if (plan.qual) lw.qual(*plan.qual);
  if (plan.targets.size() != plan.out.attrs.size()) syserr("lower: targets and output columns differ", nullptr);
  for (size_t i = 0; i < plan.targets.size(); ++i) lw.target(*plan.targets[i], plan.out.attrs[i]);
  lw.end_targets();
  // Never empty, so even "" constants point at real storage.
  prog.chars.push_back(' ');
  fixup(prog.qual, prog.chars.data());
  fixup(prog.targets, prog.chars.data());
  return prog;
}

// ---- --dump=postfix ----

namespace {

std::string const_text(const Symbol& s) {
  char buf[64];
  switch (s.type) {
    case Tk::I1: case Tk::I2: case Tk::I4: return std::to_string(s.v.i);
    case Tk::B: return s.v.i ? "true" : "false";
    case Tk::F4: return std::string(buf, std::to_chars(buf, buf + sizeof buf, s.v.f4).ptr);
    case Tk::F8: return std::string(buf, std::to_chars(buf, buf + sizeof buf, s.v.f8).ptr);
    case Tk::C: {
      std::string r = "\"";
      for (uint32_t i = 0; i < s.len; ++i) {
        char c = char(s.v.s[i]);
        if (c == '"' || c == '\\') r += '\\';
        r += c;
      }
      return r + "\"";
    }
  }
  return "?";
}

bool has_type(Code c) {
  return c == Code::Const || c == Code::Attr || c == Code::Cvt || c == Code::Store || c == Code::Ascii ||
         c == Code::Concat;
}

void dump_list(const char* title, const std::vector<Symbol>& list, std::ostream& os) {
  os << title << ":\n";
  for (size_t i = 0; i < list.size(); ++i) {
    const Symbol& s = list[i];
    std::string type = has_type(s.code) ? type_name(Type{s.type, s.len}) : "-";
    std::string what;
    bool positioned = true;
    switch (s.code) {
      case Code::Const: what = const_text(s); positioned = false; break;
      case Code::Attr: what = "tuple+" + std::to_string(s.aux); positioned = false; break;
      case Code::And: what = "false: skip " + std::to_string(s.aux); break;
      case Code::Or: what = "true: skip " + std::to_string(s.aux); break;
      case Code::Store: what = "row+" + std::to_string(s.aux); break;
      case Code::End: positioned = false; break;
      case Code::Cvt: what = "convert"; break;
      case Code::Ascii: case Code::Concat:
        what = std::string(ir::generic_name(ir::Generic(s.code))) + " scratch+" + std::to_string(s.aux);
        break;
      default: what = ir::generic_name(ir::Generic(s.code)); break;
    }
    char line[160];
    std::snprintf(line, sizeof line, "%4zu  %-8s %-6s %-20s", i, code_name(s.code), type.c_str(), what.c_str());
    std::string l = line;
    // A store into a detachment's temporary comes from no text of the statement (line 0).
    if (SrcPos p = SrcPos::unpack(s.v.pos); positioned && p.line)
      l += " @" + std::to_string(p.line) + ":" + std::to_string(p.col);
    l.resize(rt::strip(l).size());
    os << l << '\n';
  }
}

}  // namespace

void dump_postfix(const harness::Plan& plan, const Program& prog, std::ostream& os) {
  os << "postfix " << (plan.name.empty() ? "plan" : plan.name) << " (stack " << prog.depth << ")\n";
  if (prog.qual.empty())
    os << "qual: none\n";
  else
    dump_list("qual", prog.qual, os);
  dump_list("targets", prog.targets, os);
}

}  // namespace quelkit::interp
