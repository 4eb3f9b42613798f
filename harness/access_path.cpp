// Access-path choice and key bounds (access_path.h).
#include "harness/access_path.h"

#include "harness/exec.h"
#include "harness/runtime/runtime_inline.h"

namespace quelkit::harness {

using ir::Node;
using ir::NodePtr;
using ir::Op;

namespace {

// Strips widening integer conversions: key detection looks through them.
const Node* strip_widen(const Node* n) {
  while (n && n->implicit &&
         (n->op == Op::CVT_I1_I4 || n->op == Op::CVT_I2_I4 || n->op == Op::CVT_I1_I2))
    n = n->kid[0].get();
  return n;
}

}  // namespace

// Key lookups and ranges come from conjuncts `key op constant-or-parameter`
// of the folded qualification, looking through integer widening only (a key
// compared in another type, or through a pattern, is never used as a key).
AccessSpec choose_access(const Plan& plan, const Relation* rel, int key_attr) {
  AccessSpec a;
  if (!rel) {
    a.text = "no relation";
    return a;
  }
  a.text = std::string(rel->structure() == Structure::Heap ? "heap" : structure_name(rel->structure())) +
           " full scan";
  if (rel->structure() == Structure::Heap || key_attr < 0 || !plan.qual_folded) return a;
  const Attribute& key = rel->schema().attrs[size_t(key_attr)];
  std::vector<const Node*> conj;
  flatten_and(plan.qual_folded.get(), conj);

  auto value_src = [&](const Node* v, BoundSrc& out) -> bool {
    v = strip_widen(v);
    if (!v) return false;
    bool key_int = key.type.is_int();
    bool ok_type = key_int ? v->type.is_int() : (v->type.kind == key.type.kind);
    if (!ok_type) return false;
    if (v->op == Op::CONST) {
      out.present = true;
      out.is_param = false;
      out.val.i = v->val.i;
      out.val.f = v->type.kind == Tk::F4 ? double(v->val.f4) : v->val.f8;
      out.val.s = rt::strip(v->val.s);
      return true;
    }
    if (v->op == Op::PARAM) {
      out.present = true;
      out.is_param = true;
      out.offset = v->offset;
      out.type = v->type;
      return true;
    }
    return false;
  };
  auto is_key = [&](const Node* n) {
    n = strip_widen(n);
    return n && n->op == Op::ATTR && n->offset == key.offset && n->type == key.type;
  };
  auto family = [](Op op) -> int {  // 0 eq, 1 lt, 2 le, 3 gt, 4 ge, -1 other
    switch (ir::op_info(op).generic) {
      case ir::Generic::Eq: return 0;
      case ir::Generic::Lt: return 1;
      case ir::Generic::Le: return 2;
      case ir::Generic::Gt: return 3;
      case ir::Generic::Ge: return 4;
      default: return -1;
    }
  };
  // Equality first: one key beats any range.
  for (const Node* c : conj) {
    int f = family(c->op);
    if (f != 0) continue;
    BoundSrc s;
    if ((is_key(c->kid[0].get()) && value_src(c->kid[1].get(), s)) ||
        (is_key(c->kid[1].get()) && value_src(c->kid[0].get(), s))) {
      a.kind = KeyBounds::Eq;
      a.lo = s;
      a.text = std::string(structure_name(rel->structure())) + " key =";
      return a;
    }
  }
  if (rel->structure() != Structure::Isam) return a;
  for (const Node* c : conj) {
    int f = family(c->op);
    if (f <= 0) continue;
    BoundSrc s;
    bool key_left = is_key(c->kid[0].get()) && value_src(c->kid[1].get(), s);
    bool key_right = !key_left && is_key(c->kid[1].get()) && value_src(c->kid[0].get(), s);
    if (!key_left && !key_right) continue;
    if (key_right) f = (f == 1 ? 3 : f == 2 ? 4 : f == 3 ? 1 : 2);  // c op key  ==  key op' c
    s.incl = (f == 2 || f == 4);
    BoundSrc& slot = (f <= 2) ? a.hi : a.lo;
    if (!slot.present) slot = s;  // first bound of each side in text order
  }
  if (a.lo.present || a.hi.present) {
    a.kind = KeyBounds::Range;
    a.text = "isam key range";
  }
  return a;
}

KeyBounds resolve_bounds(const AccessSpec& a, const std::vector<uint8_t>& params) {
  KeyBounds b;
  b.kind = a.kind;
  auto val = [&](const BoundSrc& s) {
    if (!s.is_param) return s.val;
    KeyVal v;
    const uint8_t* p = params.data() + s.offset;
    switch (s.type.kind) {
      case Tk::I1: v.i = int8_t(p[0]); break;
      case Tk::I2: v.i = load<int16_t>(p); break;
      case Tk::I4: v.i = load<int32_t>(p); break;
      case Tk::F4: v.f = double(load<float>(p)); break;
      case Tk::F8: v.f = load<double>(p); break;
      case Tk::C: v.s.assign(reinterpret_cast<const char*>(p), rt::strip(p, s.type.len)); break;
      case Tk::B: break;
    }
    return v;
  };
  if (a.kind == KeyBounds::Eq) {
    b.lo = val(a.lo);
    b.has_lo = true;
  } else if (a.kind == KeyBounds::Range) {
    if (a.lo.present) {
      b.lo = val(a.lo);
      b.has_lo = true;
      b.lo_incl = a.lo.incl;
    }
    if (a.hi.present) {
      b.hi = val(a.hi);
      b.has_hi = true;
      b.hi_incl = a.hi.incl;
    }
  }
  return b;
}

}  // namespace quelkit::harness
