// Spelling lookups of the operator catalogue (ops.def), node construction, the canonical
// shape text used as the plan-cache key, and the IR dump.
#include "frontend/ir.h"

#include <charconv>
#include <cstring>

#include "runtime/runtime_inline.h"

namespace quelkit::ir {

bool generic_by_quel(const std::string& text, int arity, bool function, Generic* out) {
  for (int i = 0; i < kNumGenerics; ++i) {
    const GenericInfo& g = kGenerics[i];
    if (g.arity != arity || text != g.quel) continue;
    if (function ? g.cls != Class::Function : (g.cls == Class::Function || g.cls == Class::Leaf ||
                                               g.cls == Class::Convert || Generic(i) == Generic::Match ||
                                               Generic(i) == Generic::NoMatch))
      continue;
    *out = Generic(i);
    return true;
  }
  return false;
}

bool may_raise(const Node& n) {
  if (op_info(n.op).can_raise()) return true;
  for (const auto& k : n.kid)
    if (k && may_raise(*k)) return true;
  return false;
}

NodePtr copy_with_kids(const Node& n, NodePtr a, NodePtr b) {
  std::vector<NodePtr> kids;
  kids.push_back(std::move(a));
  kids.push_back(std::move(b));
  return copy_with_kids(n, std::move(kids));
}

NodePtr copy_with_kids(const Node& n, std::vector<NodePtr> kids) {
  NodePtr m = make_node(n.op, n.type, n.pos);
  if (kids.size() < 2) kids.resize(2);
  m->kid = std::move(kids);
  m->val = n.val;
  m->var = n.var;
  m->attr = n.attr;
  m->slot = n.slot;
  m->offset = n.offset;
  m->scratch = n.scratch;
  m->implicit = n.implicit;
  return m;
}

NodePtr Node::clone() const {
  std::vector<NodePtr> kids;
  kids.reserve(kid.size());
  for (const auto& k : kid) kids.push_back(k ? k->clone() : nullptr);
  return copy_with_kids(*this, std::move(kids));
}

NodePtr make_const(Type t, Value v, SrcPos pos) {
  auto n = std::make_unique<Node>();
  n->op = Op::CONST;
  n->type = t;
  n->pos = pos;
  n->val = std::move(v);
  return n;
}

NodePtr make_node(Op op, Type t, SrcPos pos, NodePtr a, NodePtr b) {
  auto n = std::make_unique<Node>();
  n->op = op;
  n->type = t;
  n->pos = pos;
  n->kid[0] = std::move(a);
  n->kid[1] = std::move(b);
  return n;
}

NodePtr make_nary(Op op, Type t, SrcPos pos, std::vector<NodePtr> kids) {
  auto n = make_node(op, t, pos);
  n->kid = std::move(kids);
  return n;
}

// Exact text of a constant: floats as their bit pattern so -0.0 and 0.0 (and
// every rounding) are told apart in cache keys and golden dumps.
static std::string const_text(const Node& n) {
  char buf[64];
  switch (n.type.kind) {
    case Tk::I1: case Tk::I2: case Tk::I4: case Tk::B:
      return std::to_string(n.val.i);
    case Tk::F4: {
      auto r = std::to_chars(buf, buf + sizeof buf, n.val.f4);
      return std::string(buf, r.ptr);
    }
    case Tk::F8: {
      auto r = std::to_chars(buf, buf + sizeof buf, n.val.f8);
      return std::string(buf, r.ptr);
    }
    case Tk::C: {
      std::string s = "\"";
      for (char c : n.val.s) {
        if (c == '"' || c == '\\') s += '\\';
        s += c;
      }
      return s + "\"";
    }
  }
  return "?";
}

static std::string bits_text(const Node& n) {
  char buf[32];
  if (n.type.kind == Tk::F4) {
    uint32_t b;
    std::memcpy(&b, &n.val.f4, 4);
    snprintf(buf, sizeof buf, "#%08x", b);
    return buf;
  }
  if (n.type.kind == Tk::F8) {
    uint64_t b;
    std::memcpy(&b, &n.val.f8, 8);
    snprintf(buf, sizeof buf, "#%016llx", (unsigned long long)b);
    return buf;
  }
  return {};
}

// Written into one string as the walk goes: a tree's text built from its
// kids' texts copied each one at every level above it, quadratic in depth
// (a long chain of additions spent its statement in memmove).
static void shape_into(const Node& n, std::string& s) {
  s += '(';
  s += op_name(n.op);
  s += ':';
  s += type_name(n.type);
  // Appended piece by piece: every plan of every statement makes its key
  // from this, and a temporary string per node was much of its cost.
  switch (n.op) {
    case Op::CONST:
      s += ' ';
      s += const_text(n);
      s += bits_text(n);
      break;
    case Op::ATTR:
      s += " @";
      s += std::to_string(n.offset);
      break;
    case Op::PARAM:
      s += " $";
      s += std::to_string(n.offset);
      break;
    default: break;
  }
  if (generic_info(op_info(n.op).generic).scratch) {
    s += " s";
    s += std::to_string(n.scratch);
  }
  for (const auto& k : n.kid)
    if (k) {
      s += ' ';
      shape_into(*k, s);
    }
  s += ')';
}

std::string shape(const Node& n) {
  std::string s;
  shape_into(n, s);
  return s;
}

std::string dump(const Node& n, int indent) {
  std::string s(size_t(indent) * 2, ' ');
  s += op_name(n.op);
  s += ' ';
  s += type_name(n.type);
  switch (n.op) {
    case Op::CONST: s += ' ' + const_text(n); break;
    case Op::ATTR:
      s += " var" + std::to_string(n.var) + ".attr" + std::to_string(n.attr) + " @" + std::to_string(n.offset);
      break;
    case Op::PARAM: s += " $" + std::to_string(n.slot) + " @" + std::to_string(n.offset); break;
    default: break;
  }
  if (n.implicit) s += " implicit";
  if (generic_info(op_info(n.op).generic).scratch) s += " scratch@" + std::to_string(n.scratch);
  if (n.pos.line) s += "  @" + std::to_string(n.pos.line) + ":" + std::to_string(n.pos.col);
  s += '\n';
  for (const auto& k : n.kid)
    if (k) s += dump(*k, indent + 1);
  return s;
}

// A float as Python's repr writes it: the shortest digits that round-trip,
// in positional form when the decimal point falls within 16 digits of them
// (with ".0" when integral), else d.ddde+XX; so 100000.0 and 11.0 print as
// themselves, never as 1e+05 or 11, and every printed float reads as a float.
template <class F>
static std::string float_text(F x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  size_t e = sci.find('e');
  if (e == std::string::npos) return sci;  // inf, nan
  std::string sign, digits;
  for (size_t i = 0; i < e; ++i) {
    if (sci[i] == '-') sign = "-";
    else if (sci[i] != '.') digits += sci[i];
  }
  const int decpt = std::stoi(sci.substr(e + 1)) + 1;  // digits[0] is at 10^(decpt-1)
  if (decpt <= -4 || decpt > 16) return sci;
  const int nd = int(digits.size());
  if (decpt <= 0) return sign + "0." + std::string(size_t(-decpt), '0') + digits;
  if (decpt >= nd) return sign + digits + std::string(size_t(decpt - nd), '0') + ".0";
  return sign + digits.substr(0, size_t(decpt)) + "." + digits.substr(size_t(decpt));
}

std::string format_value(Type t, const Value& v) {
  switch (t.kind) {
    case Tk::I1: case Tk::I2: case Tk::I4: return std::to_string(v.i);
    case Tk::B: return v.i ? "true" : "false";
    case Tk::F4: return float_text(v.f4);
    case Tk::F8: return float_text(v.f8);
    case Tk::C: return std::string(rt::strip(v.s));
  }
  return "?";
}

}  // namespace quelkit::ir
