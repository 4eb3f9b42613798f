// Access-path choice and key bounds (access_path.h).
#include "engine/access_path.h"

#include "frontend/consteval.h"
#include "engine/exec.h"
#include "engine/rows.h"
#include "runtime/runtime_inline.h"

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

// A conversion the binder inserted from a number to f4 or f8 (i2 -> f4,
// i4 -> f8, f4 -> f8, ...): what a comparison of mixed numeric types is made
// in. Its result type, or kNoTk for any other node.
Tk to_float(const Node* n) {
  if (!n || !n->implicit || ir::op_info(n->op).generic != ir::Generic::Cvt) return kNoTk;
  const ir::OpInfo& i = ir::op_info(n->op);
  const bool from_number = is_int(i.left) || i.left == Tk::F4;
  return from_number && (i.result == Tk::F4 || i.result == Tk::F8) ? i.result : kNoTk;
}

// Whether every value of an integer key converts to `cmp` exactly (so one
// float value is at most one key: a hash lookup can take it). i4 in f4 rounds.
bool exact_in(Tk key, Tk cmp) { return !(key == Tk::I4 && cmp == Tk::F4); }

// The key value an integer key converted to `cmp` compares as.
double converted(int64_t k, Tk cmp) { return cmp == Tk::F4 ? double(float(k)) : double(k); }

// The range of an integer key type.
int64_t int_min(Tk k) { return k == Tk::I1 ? INT8_MIN : k == Tk::I2 ? INT16_MIN : INT32_MIN; }
int64_t int_max(Tk k) { return k == Tk::I1 ? INT8_MAX : k == Tk::I2 ? INT16_MAX : INT32_MAX; }

// The least key of [lo, hi] whose converted value passes `pass` (monotone:
// false, then true), or hi + 1 when none does.
template <class Pass>
int64_t first_passing(int64_t lo, int64_t hi, Pass pass) {
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (pass(mid)) hi = mid - 1; else lo = mid + 1;
  }
  return lo;
}

// Whether `n` is a value each execution computes before its scan: operators
// over constants and parameters, no attribute of the scanned tuple and no
// connective (a key's value is never a condition).
bool per_execution(const Node& n) {
  if (n.op == Op::ATTR || ir::is_nary(n.op)) return false;
  for (const auto& k : n.kid)
    if (k && !per_execution(*k)) return false;
  return true;
}

// The value of a per_execution() tree over the parameter block, by the
// run-time rules (consteval.h); false where an operator raises an error.
bool evaluate(const Node& n, const std::vector<uint8_t>& params, ir::Value* out) {
  if (n.op == Op::CONST) {
    *out = n.val;
    return true;
  }
  if (n.op == Op::PARAM) {
    *out = get_value(Attribute{"", n.type, n.offset}, params.data());
    return true;
  }
  ir::Value args[2];
  const int arity = n.arity();
  for (int i = 0; i < arity; ++i)
    if (!evaluate(*n.kid[size_t(i)], params, &args[i])) return false;
  int err = 0;
  return frontend::eval_const(n.op, n.type, args, out, &err);
}

}  // namespace

const Node* key_side(const Node* n, Structure st, const Type& key, Tk* cmp) {
  n = strip_widen(n);
  *cmp = to_float(n);
  if (*cmp != kNoTk) {
    if (key.is_int() ? st == Structure::Hash && !exact_in(key.kind, *cmp) : key.kind != Tk::F4) return nullptr;
    n = strip_widen(n->kid[0].get());
  }
  return n && n->op == Op::ATTR ? n : nullptr;
}

bool bounds_key(const Type& v, const Type& key, Tk cmp) {
  return key.is_int() && cmp == kNoTk ? v.is_int() : v.kind == (cmp != kNoTk ? cmp : key.kind);
}

namespace {

// `cmp`: the float type the key was converted to for this comparison, or
// kNoTk; the value is then of that type, a constant or a parameter,
// perhaps converted to it.
bool value_src(const Node* v, const Attribute& key, Tk cmp, BoundSrc& out) {
  v = strip_widen(v);
  if (!v || !bounds_key(v->type, key.type, cmp)) return false;
  if (Tk to = to_float(v); to != kNoTk && v->kid[0] && strip_widen(v->kid[0].get())->op == Op::PARAM) {
    const Node* p = strip_widen(v->kid[0].get());
    out.present = true;
    out.is_param = true;
    out.offset = p->offset;
    out.type = p->type;
    out.param_to = to;
    return true;
  }
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
  // An expression of parameters: each execution evaluates it (with any
  // conversion to the comparison's float type, which is part of the tree).
  if (per_execution(*v)) {
    out.present = true;
    out.is_param = false;
    out.expr = v->clone();
    out.type = v->type;
    return true;
  }
  return false;
}

// The key, or the key converted to a float type (*cmp set to it): an
// integer key to f4 or f8, an f4 key to f8. A hash lookup takes one key
// value, so not an i4 key compared in f4, where rounding makes many equal.
bool is_key(const Node* n, Structure st, const Attribute& key, Tk* cmp) {
  n = key_side(n, st, key.type, cmp);
  return n && n->offset == key.offset && n->type == key.type;
}

int family(Op op) {  // 0 eq, 1 lt, 2 le, 3 gt, 4 ge, -1 other
  switch (ir::op_info(op).generic) {
    case ir::Generic::Eq: return 0;
    case ir::Generic::Lt: return 1;
    case ir::Generic::Le: return 2;
    case ir::Generic::Gt: return 3;
    case ir::Generic::Ge: return 4;
    default: return -1;
  }
}

// The first conjunct `key = value` for this key domain, its value in s.
// An integer key compared in a float type: the bound is made an integer
// when each execution resolves it (resolve_bounds, key_in). A float key
// compared in f8 needs nothing: its values compare as doubles.
bool find_eq(const std::vector<const Node*>& conj, Structure st, const Attribute& key, BoundSrc& s) {
  for (const Node* c : conj) {
    if (family(c->op) != 0) continue;
    Tk cmp = kNoTk;
    s = BoundSrc{};
    if ((is_key(c->kid[0].get(), st, key, &cmp) && value_src(c->kid[1].get(), key, cmp, s)) ||
        (is_key(c->kid[1].get(), st, key, &cmp) && value_src(c->kid[0].get(), key, cmp, s))) {
      if (key.type.is_int()) s.key_in = cmp;
      return true;
    }
  }
  return false;
}

}  // namespace

// Key lookups and ranges come from conjuncts `key op value` of the folded
// qualification, the value a constant, a parameter or an expression of
// them, looking through integer widening and through the conversion of a
// mixed comparison (an integer key or an f4 key made f4 or f8, a value made
// the key's float type). A key through a pattern or a function is never
// used as a key. Bounds only narrow the pages: the whole qualification is
// still evaluated on every tuple fetched. A key of several domains: a hash
// lookup needs equality on every domain; ISAM takes equality on a prefix of
// the domains (the later ones compared in their own types) or a range on
// the first.
AccessSpec choose_keyed(const Plan& plan, Structure st, const std::vector<Attribute>& keys, const std::string& name) {
  AccessSpec a;
  a.text = name + " full scan";
  if (st == Structure::Heap || keys.empty() || !plan.qual_folded) return a;
  const Attribute& key = keys[0];
  a.key = key.type;
  std::vector<const Node*> conj;
  flatten_and(plan.qual_folded.get(), conj);

  // Equality first: one key beats any range.
  BoundSrc s;
  if (find_eq(conj, st, key, s)) {
    // The later domains' equalities, in their own types, as far as they go.
    std::vector<BoundSrc> rest;
    const bool exact = s.key_in == kNoTk;
    for (size_t d = 1; exact && d < keys.size(); ++d) {
      BoundSrc r;
      if (!find_eq(conj, st, keys[d], r) || r.key_in != kNoTk) break;
      rest.push_back(std::move(r));
    }
    if (st == Structure::Isam || rest.size() + 1 == keys.size()) {
      a.kind = KeyBounds::Eq;
      a.lo = s;
      a.rest = std::move(rest);
      for (size_t d = 1; d <= a.rest.size(); ++d) a.rest_keys.push_back(keys[d].type);
      a.text = name + " key =";
      if (keys.size() > 1) a.text += " (" + std::to_string(a.rest.size() + 1) + " of " + std::to_string(keys.size()) + " domains)";
      return a;
    }
  }
  if (st != Structure::Isam) return a;
  for (const Node* c : conj) {
    int f = family(c->op);
    if (f <= 0) continue;
    BoundSrc b;
    Tk cmp = kNoTk;
    bool key_left = is_key(c->kid[0].get(), st, key, &cmp) && value_src(c->kid[1].get(), key, cmp, b);
    bool key_right = !key_left && is_key(c->kid[1].get(), st, key, &cmp) && value_src(c->kid[0].get(), key, cmp, b);
    if (!key_left && !key_right) continue;
    if (key.type.is_int()) b.key_in = cmp;
    if (key_right) f = (f == 1 ? 3 : f == 2 ? 4 : f == 3 ? 1 : 2);  // c op key  ==  key op' c
    b.incl = (f == 2 || f == 4);
    BoundSrc& slot = (f <= 2) ? a.hi : a.lo;
    if (!slot.present) slot = b;  // first bound of each side in text order
  }
  if (a.lo.present || a.hi.present) {
    a.kind = KeyBounds::Range;
    a.text = name + " key range";
  }
  return a;
}

AccessSpec choose_access(const Plan& plan, const Relation* rel, int key_attr) {
  if (!rel) {
    AccessSpec a;
    a.text = "no relation";
    return a;
  }
  std::vector<Attribute> keys;
  if (key_attr >= 0)
    for (const int k : rel->key_attrs()) keys.push_back(rel->schema().attrs[size_t(k)]);
  return choose_keyed(plan, rel->structure(), keys, rel->structure() == Structure::Heap ? "heap" : structure_name(rel->structure()));
}

KeyBounds resolve_bounds(const AccessSpec& a, const std::vector<uint8_t>& params) {
  KeyBounds b;
  b.kind = a.kind;
  bool raised = false;  // an expression bound raised an error: no bounds
  auto val = [&](const BoundSrc& s) {
    KeyVal v;
    if (s.expr) {
      ir::Value x;
      if (!evaluate(*s.expr, params, &x)) {
        raised = true;
        return v;
      }
      switch (s.type.kind) {
        case Tk::F4: v.f = double(x.f4); break;
        case Tk::F8: v.f = x.f8; break;
        case Tk::C: v.s = std::string(rt::strip(x.s)); break;
        default: v.i = x.i; break;
      }
      return v;
    }
    if (!s.is_param) return s.val;
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
    // Converted as the comparison converts it: an integer to f4 rounds.
    if (s.param_to != kNoTk) {
      const double x = s.type.is_int() ? double(v.i) : v.f;
      v.f = s.param_to == Tk::F4 ? double(s.type.is_int() ? float(int32_t(v.i)) : float(x)) : x;
    }
    return v;
  };
  // An integer key compared in f4 or f8 (`in`): the least key whose
  // converted value is past `c` (lo side), or the greatest before it (hi
  // side), an inclusive integer bound. None: one past the key type's range,
  // so no key is within it.
  const int64_t kmin = int_min(a.key.kind), kmax = int_max(a.key.kind);
  auto lo_key = [&](double c, bool incl, Tk in) {
    KeyVal v;
    v.i = first_passing(kmin, kmax, [&](int64_t k) { return incl ? converted(k, in) >= c : converted(k, in) > c; });
    return v;
  };
  auto hi_key = [&](double c, bool incl, Tk in) {
    KeyVal v;
    v.i = first_passing(kmin, kmax, [&](int64_t k) { return incl ? converted(k, in) > c : converted(k, in) >= c; }) - 1;
    return v;
  };
  if (a.kind == KeyBounds::Eq) {
    b.lo = val(a.lo);
    for (const BoundSrc& r : a.rest) b.lo.rest.push_back(val(r));
    if (raised) return KeyBounds{};
    b.has_lo = true;
    if (const Tk in = a.lo.key_in; in != kNoTk) {
      const double c = b.lo.f;
      b.lo = lo_key(c, true, in);
      if (exact_in(a.key.kind, in)) return b;  // at most one key is c: b.lo (or none is, then none of b.lo's match)
      b.kind = KeyBounds::Range;  // (ISAM only: is_key) the i4 keys that round to c
      b.hi = hi_key(c, true, in);
      b.has_hi = true;
    }
  } else if (a.kind == KeyBounds::Range) {
    if (a.lo.present) {
      b.lo = val(a.lo);
      b.has_lo = true;
      b.lo_incl = a.lo.incl;
      if (a.lo.key_in != kNoTk) b.lo = lo_key(b.lo.f, a.lo.incl, a.lo.key_in), b.lo_incl = true;
    }
    if (a.hi.present) {
      b.hi = val(a.hi);
      b.has_hi = true;
      b.hi_incl = a.hi.incl;
      if (a.hi.key_in != kNoTk) b.hi = hi_key(b.hi.f, a.hi.incl, a.hi.key_in), b.hi_incl = true;
    }
  }
  if (raised) b = KeyBounds{};
  return b;  // moved, not copied (as `raised ? KeyBounds{} : b` did)
}

}  // namespace quelkit::harness
