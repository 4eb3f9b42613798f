// Test scaffolding for the 1976 interpreter: a miniature binder that builds
// the typed, unfolded IR the real binder produces (integer operators on i4
// over implicit CVT_*_I4 nodes, one implicit conversion straight to the class
// type for mixed operands, MATCH_C with the pattern literal as kid[1]), a
// reference evaluator of that typed IR built on the same runtime helpers, and
// helpers that prepare plans through the back end and run them on tuples.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ir.h"
#include "frontend/schema.h"
#include "harness/backend.h"
#include "harness/page.h"
#include "harness/plan.h"
#include "harness/runtime/runtime.h"
#include "harness/runtime/runtime_inline.h"
#include "interp/interp.h"

namespace quelkit::test {

using ir::Generic;
using ir::NodePtr;
using ir::Op;

inline bool is_int(Tk k) { return k == Tk::I1 || k == Tk::I2 || k == Tk::I4; }

// ---- a miniature binder ----

class Builder {
 public:
  // Every node gets its own column on line 1, so an error's position names the node.
  SrcPos next_pos() { return {1, col_++}; }
  uint32_t scratch_size() const { return scratch_; }

  NodePtr attr(const Schema& s, const char* name) {
    int i = s.find(name);
    EXPECT_GE(i, 0) << name;
    auto n = ir::make_node(Op::ATTR, s.attrs[size_t(i)].type, next_pos());
    n->var = 0;
    n->attr = i;
    n->offset = s.attrs[size_t(i)].offset;
    return n;
  }
  NodePtr param(const Schema& s, const char* name) {
    int i = s.find(name);
    EXPECT_GE(i, 0) << name;
    auto n = ir::make_node(Op::PARAM, s.attrs[size_t(i)].type, next_pos());
    n->slot = i;
    n->offset = s.attrs[size_t(i)].offset;
    return n;
  }
  NodePtr int_c(int64_t v, Type t) {
    ir::Value val;
    val.i = v;
    return ir::make_const(t, val, next_pos());
  }
  // Integer literal typed as the lexer does: i2 when it fits, else i4.
  NodePtr lit(int64_t v) { return int_c(v, (v >= -32768 && v <= 32767) ? Type::i2() : Type::i4()); }
  NodePtr f4_c(float v) {
    ir::Value val;
    val.f4 = v;
    return ir::make_const(Type::f4(), val, next_pos());
  }
  NodePtr f8_c(double v) {
    ir::Value val;
    val.f8 = v;
    return ir::make_const(Type::f8(), val, next_pos());
  }
  NodePtr str(const std::string& s) {
    ir::Value val;
    val.s = s;
    return ir::make_const(Type::c(unsigned(s.size())), val, next_pos());
  }

  // Conversion node to `to` (none if the type already is `to`).
  NodePtr convert(Tk to, NodePtr e, bool implicit) {
    if (e->type.kind == to) return e;
    Op op;
    EXPECT_TRUE(ir::cvt_op(e->type.kind, to, &op));
    Type t = to == Tk::I1 ? Type::i1() : to == Tk::I2 ? Type::i2() : to == Tk::I4 ? Type::i4()
           : to == Tk::F4 ? Type::f4() : Type::f8();
    // An implicit conversion takes its operand's position, as the binder's do.
    SrcPos pos = implicit ? e->pos : next_pos();
    auto n = ir::make_node(op, t, pos, std::move(e));
    n->implicit = implicit;
    return n;
  }
  NodePtr cvt(Tk to, NodePtr e) { return convert(to, std::move(e), false); }

  static Tk numeric_class(Tk a, Tk b) {
    if (a == Tk::F8 || b == Tk::F8) return Tk::F8;
    if (a == Tk::F4 || b == Tk::F4) return Tk::F4;
    return Tk::I4;
  }
  static Type type_of(Tk k) {
    switch (k) {
      case Tk::I1: return Type::i1();
      case Tk::I2: return Type::i2();
      case Tk::I4: return Type::i4();
      case Tk::F4: return Type::f4();
      case Tk::F8: return Type::f8();
      case Tk::B: return Type::b();
      case Tk::C: break;
    }
    return Type::c(1);
  }

  NodePtr bin(Generic g, NodePtr a, NodePtr b) {
    SrcPos pos = next_pos();
    Tk ka = a->type.kind, kb = b->type.kind;
    Op op;
    switch (g) {
      case Generic::Add: case Generic::Sub: case Generic::Mul: case Generic::Div: case Generic::Pow:
      case Generic::Mod: {
        Tk cls = g == Generic::Pow ? Tk::F8 : numeric_class(ka, kb);
        EXPECT_TRUE(g != Generic::Mod || cls == Tk::I4);
        a = convert(cls, std::move(a), true);
        b = convert(cls, std::move(b), true);
        EXPECT_TRUE(ir::typed_op(g, ir::tc_of(cls), &op));
        return ir::make_node(op, type_of(cls), pos, std::move(a), std::move(b));
      }
      case Generic::Eq: case Generic::Ne: case Generic::Lt: case Generic::Le: case Generic::Gt:
      case Generic::Ge: {
        Tk cls = Tk::C;
        if (ka != Tk::C) {
          cls = numeric_class(ka, kb);
          a = convert(cls, std::move(a), true);
          b = convert(cls, std::move(b), true);
        }
        EXPECT_TRUE(ir::typed_op(g, ir::tc_of(cls), &op));
        return ir::make_node(op, Type::b(), pos, std::move(a), std::move(b));
      }
      case Generic::And:
        return ir::make_node(Op::AND, Type::b(), pos, std::move(a), std::move(b));
      case Generic::Or:
        return ir::make_node(Op::OR, Type::b(), pos, std::move(a), std::move(b));
      case Generic::Concat: {
        Type t = Type::c(unsigned(a->type.len) + b->type.len);
        auto n = ir::make_node(Op::CONCAT_C, t, pos, std::move(a), std::move(b));
        n->scratch = scratch_;
        scratch_ += t.len;
        return n;
      }
      default:
        ADD_FAILURE() << "bin: not a binary operator";
        return nullptr;
    }
  }

  NodePtr un(Generic g, NodePtr a) {
    SrcPos pos = next_pos();
    Tk k = a->type.kind;
    Op op;
    switch (g) {
      case Generic::Neg: case Generic::Abs: {
        Tk cls = is_int(k) ? Tk::I4 : k;
        a = convert(cls, std::move(a), true);
        EXPECT_TRUE(ir::typed_op(g, ir::tc_of(cls), &op));
        return ir::make_node(op, type_of(cls), pos, std::move(a));
      }
      case Generic::Sqrt: case Generic::Log: case Generic::Exp: case Generic::Sin: case Generic::Cos:
      case Generic::Atan:
        a = convert(Tk::F8, std::move(a), true);
        EXPECT_TRUE(ir::typed_op(g, ir::TC::F8, &op));
        return ir::make_node(op, Type::f8(), pos, std::move(a));
      case Generic::Not:
        return ir::make_node(Op::NOT, Type::b(), pos, std::move(a));
      case Generic::Ascii: {
        unsigned w = k == Tk::I4 ? 11 : k == Tk::F4 ? 15 : k == Tk::F8 ? 24 : 6;
        EXPECT_TRUE(ir::typed_op(g, ir::tc_of(k), &op));
        auto n = ir::make_node(op, Type::c(w), pos, std::move(a));
        n->scratch = scratch_;
        scratch_ += w;
        return n;
      }
      default:
        ADD_FAILURE() << "un: not a unary operator";
        return nullptr;
    }
  }

  // `a = "pattern"` / `a != "pattern"` with a pattern literal.
  NodePtr match(NodePtr a, const std::string& pattern, bool negated = false) {
    SrcPos pos = next_pos();
    return ir::make_node(negated ? Op::NOMATCH_C : Op::MATCH_C, Type::b(), pos, std::move(a), str(pattern));
  }

 private:
  uint32_t col_ = 1;
  uint32_t scratch_ = 0;
};

// ---- the reference: typed IR evaluated with the runtime helpers ----

struct Ref {
  Tk type = Tk::I4;
  uint8_t len = 4;
  int32_t i = 0;
  float f4 = 0;
  double f8 = 0;
  const uint8_t* s = nullptr;
};

class Oracle {
 public:
  Oracle(const uint8_t* tuple, const uint8_t* params, uint8_t* scratch)
      : tuple_(tuple), params_(params), scratch_(scratch) {}
  int err = 0;
  SrcPos err_pos;

  // false after a runtime error (err, err_pos set).
  bool eval(const ir::Node& n, Ref& r) {
    const ir::OpInfo& info = ir::op_info(n.op);
    r.type = n.type.kind;
    r.len = n.type.len;
    auto fail = [&](int e) {
      if (e) {
        err = e;
        err_pos = n.pos;
      }
      return e == 0;
    };
    switch (info.generic) {
      case Generic::Const:
        switch (n.type.kind) {
          case Tk::F4: r.f4 = n.val.f4; break;
          case Tk::F8: r.f8 = n.val.f8; break;
          case Tk::C:
            consts_.push_back(n.val.s);
            consts_.back().resize(n.type.len, ' ');
            r.s = reinterpret_cast<const uint8_t*>(consts_.back().data());
            break;
          default: r.i = int32_t(n.val.i);
        }
        return true;
      case Generic::Attr:
      case Generic::Param:
        load(info.generic == Generic::Attr ? tuple_ + n.offset : params_ + n.offset, n.type, r);
        return true;
      default:
        break;
    }
    Ref a, b;
    if (info.generic == Generic::And || info.generic == Generic::Or) {
      if (!eval(*n.kid[0], a)) return false;
      if ((a.i != 0) == (info.generic == Generic::Or)) {
        r.i = a.i;
        return true;
      }
      if (!eval(*n.kid[1], b)) return false;
      r.i = b.i;
      return true;
    }
    if (!eval(*n.kid[0], a)) return false;
    if (info.arity == 2 && !eval(*n.kid[1], b)) return false;
    const ir::TC tc = info.left;
    switch (info.generic) {
      case Generic::Cvt: return fail(cvt(a, n.type.kind, r));
      case Generic::Neg:
        if (tc == ir::TC::I4) return fail(rt::neg_i4(a.i, &r.i));
        if (tc == ir::TC::F4) r.f4 = -a.f4; else r.f8 = -a.f8;
        return true;
      case Generic::Abs:
        if (tc == ir::TC::I4) return fail(rt::abs_i4(a.i, &r.i));
        if (tc == ir::TC::F4) r.f4 = std::fabs(a.f4); else r.f8 = std::fabs(a.f8);
        return true;
#define QT_ARITH(G, name)                                                          \
  case Generic::G:                                                                 \
    if (tc == ir::TC::I4) return fail(rt::name##_i4(a.i, b.i, &r.i));              \
    if (tc == ir::TC::F4) return fail(rt::name##_f4(a.f4, b.f4, &r.f4));           \
    return fail(rt::name##_f8(a.f8, b.f8, &r.f8));
        QT_ARITH(Add, add)
        QT_ARITH(Sub, sub)
        QT_ARITH(Mul, mul)
        QT_ARITH(Div, div)
#undef QT_ARITH
      case Generic::Pow: return fail(rt::pow_f8(a.f8, b.f8, &r.f8));
      case Generic::Mod: return fail(rt::mod_i4(a.i, b.i, &r.i));
      case Generic::Sqrt: return fail(rt::sqrt_f8(a.f8, &r.f8));
      case Generic::Log: return fail(rt::log_f8(a.f8, &r.f8));
      case Generic::Exp: return fail(rt::exp_f8(a.f8, &r.f8));
      case Generic::Sin: return fail(rt::sin_f8(a.f8, &r.f8));
      case Generic::Cos: return fail(rt::cos_f8(a.f8, &r.f8));
      case Generic::Atan: return fail(rt::atan_f8(a.f8, &r.f8));
      case Generic::Eq: case Generic::Ne: case Generic::Lt: case Generic::Le: case Generic::Gt:
      case Generic::Ge: {
        auto cmp = [g = info.generic](auto x, auto y) -> int32_t {
          switch (g) {
            case Generic::Eq: return x == y;
            case Generic::Ne: return x != y;
            case Generic::Lt: return x < y;
            case Generic::Le: return x <= y;
            case Generic::Gt: return x > y;
            default: return x >= y;
          }
        };
        if (tc == ir::TC::I4) r.i = cmp(a.i, b.i);
        else if (tc == ir::TC::F4) r.i = cmp(a.f4, b.f4);
        else if (tc == ir::TC::F8) r.i = cmp(a.f8, b.f8);
        else r.i = cmp(qk_char_cmp(a.s, a.len, b.s, b.len), 0);
        return true;
      }
      case Generic::Match: r.i = qk_pattern_match(a.s, a.len, b.s, b.len); return true;
      case Generic::NoMatch: r.i = !qk_pattern_match(a.s, a.len, b.s, b.len); return true;
      case Generic::Not: r.i = !a.i; return true;
      case Generic::Ascii:
        r.s = scratch_ + n.scratch;
        if (tc == ir::TC::F4) qk_ascii_f4(a.f4, scratch_ + n.scratch, n.type.len);
        else if (tc == ir::TC::F8) qk_ascii_f8(a.f8, scratch_ + n.scratch, n.type.len);
        else qk_ascii_i4(a.i, scratch_ + n.scratch, n.type.len);
        return true;
      case Generic::Concat:
        qk_concat(a.s, a.len, b.s, b.len, scratch_ + n.scratch);
        r.s = scratch_ + n.scratch;
        return true;
      default:
        ADD_FAILURE() << "oracle: unexpected " << ir::op_name(n.op);
        return false;
    }
  }

  static void load(const uint8_t* p, Type t, Ref& r) {
    switch (t.kind) {
      case Tk::I1: r.i = harness::load<int8_t>(p); break;
      case Tk::I2: r.i = harness::load<int16_t>(p); break;
      case Tk::I4: r.i = harness::load<int32_t>(p); break;
      case Tk::F4: r.f4 = harness::load<float>(p); break;
      case Tk::F8: r.f8 = harness::load<double>(p); break;
      case Tk::C: r.s = p; break;
      case Tk::B: break;
    }
  }

  // The typed CVT_* rules.
  static int cvt(const Ref& a, Tk to, Ref& r) {
    bool from_int = is_int(a.type);
    double d = a.type == Tk::F4 ? double(a.f4) : a.f8;
    switch (to) {
      case Tk::I1: return from_int ? rt::cvt_i4_i1(a.i, &r.i) : rt::cvt_f8_i1(d, &r.i);
      case Tk::I2: return from_int ? rt::cvt_i4_i2(a.i, &r.i) : rt::cvt_f8_i2(d, &r.i);
      case Tk::I4:
        if (from_int) r.i = a.i;
        else return rt::cvt_f8_i4(d, &r.i);
        return 0;
      case Tk::F4:
        if (from_int) r.f4 = float(a.i);
        else if (a.type == Tk::F4) r.f4 = a.f4;
        else return rt::cvt_f8_f4(a.f8, &r.f4);
        return 0;
      case Tk::F8:
        r.f8 = from_int ? double(a.i) : d;
        return 0;
      default: return 0;
    }
  }

 private:
  const uint8_t* tuple_;
  const uint8_t* params_;
  uint8_t* scratch_;
  std::deque<std::string> consts_;  // a deque: growing it never moves the strings Refs point into
};

// The bytes a value occupies in a row column of type `col` (what project writes).
inline std::vector<uint8_t> column_bytes(const Ref& v, Type col) {
  std::vector<uint8_t> b(col.len, 0);
  switch (col.kind) {
    case Tk::I1: harness::store<int8_t>(b.data(), int8_t(v.i)); break;
    case Tk::I2: harness::store<int16_t>(b.data(), int16_t(v.i)); break;
    case Tk::I4: harness::store<int32_t>(b.data(), v.i); break;
    case Tk::F4: harness::store<float>(b.data(), v.f4); break;
    case Tk::F8: harness::store<double>(b.data(), v.f8); break;
    case Tk::C: {
      uint32_t n = std::min<uint32_t>(v.len, col.len);
      std::memcpy(b.data(), v.s, n);
      std::memset(b.data() + n, ' ', col.len - n);
      break;
    }
    case Tk::B: break;
  }
  return b;
}

// ---- plans and runs ----

inline harness::Plan qual_plan(const Schema& in, NodePtr qual, uint32_t scratch, const Schema& params = {}) {
  harness::Plan p;
  p.name = "t";
  p.in = in;
  p.params = params;
  p.qual = std::move(qual);
  p.scratch_size = scratch;
  return p;
}

// One target per expression; the column types are the expressions' unless given.
inline harness::Plan target_plan(const Schema& in, std::vector<NodePtr> targets, uint32_t scratch,
                                 const Schema& params = {}, std::vector<Type> cols = {}) {
  harness::Plan p;
  p.name = "t";
  p.in = in;
  p.params = params;
  std::vector<std::pair<std::string, Type>> out;
  for (size_t i = 0; i < targets.size(); ++i)
    out.push_back({"r" + std::to_string(i), i < cols.size() ? cols[i] : targets[i]->type});
  p.out = Schema::packed(out);
  p.targets = std::move(targets);
  p.scratch_size = scratch;
  return p;
}

struct Outcome {
  int rc = 0;
  int32_t err = 0;
  SrcPos pos;
  std::vector<uint8_t> row;
  friend bool operator==(const Outcome& a, const Outcome& b) {
    return a.rc == b.rc && a.err == b.err && a.pos == b.pos && a.row == b.row;
  }
};

inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "{rc " << o.rc << ", err " << o.err << " @" << o.pos.line << ":" << o.pos.col << ", row";
  for (uint8_t b : o.row) os << ' ' << int(b);
  return os << "}";
}

struct Scratch {
  std::vector<uint8_t> bytes;
  explicit Scratch(uint32_t n) : bytes(n + 1, 0xAA) {}
};

inline qk_ctx make_ctx(const uint8_t* params, Scratch& s) {
  qk_ctx ctx{};
  ctx.params = params;
  ctx.scratch = s.bytes.data();
  return ctx;
}

inline Outcome run_qualify(harness::Prepared& prep, const harness::Plan& plan, const uint8_t* tuple,
                           const uint8_t* params = nullptr) {
  Scratch s(plan.scratch_size);
  qk_ctx ctx = make_ctx(params, s);
  Outcome o;
  o.rc = prep.qualify(tuple, &ctx);
  o.err = ctx.err_code;
  o.pos = SrcPos::unpack(ctx.err_pos);
  return o;
}

inline Outcome run_project(harness::Prepared& prep, const harness::Plan& plan, const uint8_t* tuple,
                           const uint8_t* params = nullptr) {
  Scratch s(plan.scratch_size);
  qk_ctx ctx = make_ctx(params, s);
  Outcome o;
  o.row.assign(plan.out.tuple_len, 0x55);
  o.rc = prep.project(tuple, o.row.data(), &ctx);
  o.err = ctx.err_code;
  o.pos = SrcPos::unpack(ctx.err_pos);
  if (o.rc != 0) o.row.clear();  // a failed projection's row is unspecified
  return o;
}

// What the typed IR says a qualification gives.
inline Outcome expect_qualify(const harness::Plan& plan, const uint8_t* tuple, const uint8_t* params = nullptr) {
  Scratch s(plan.scratch_size);
  Oracle o(tuple, params, s.bytes.data());
  Outcome r;
  if (!plan.qual) {
    r.rc = 1;
    return r;
  }
  Ref v;
  if (o.eval(*plan.qual, v)) {
    r.rc = v.i != 0;
  } else {
    r.rc = -1;
    r.err = o.err;
    r.pos = o.err_pos;
  }
  return r;
}

// What the typed IR says a projection writes. Column conversions (a target
// whose type differs from its column) are the binder's implicit CVT at the
// root in real plans; here they are applied as the typed rule would.
inline Outcome expect_project(const harness::Plan& plan, const uint8_t* tuple, const uint8_t* params = nullptr) {
  Scratch s(plan.scratch_size);
  Oracle o(tuple, params, s.bytes.data());
  Outcome r;
  r.row.assign(plan.out.tuple_len, 0x55);
  for (size_t i = 0; i < plan.targets.size(); ++i) {
    Ref v;
    const Type col = plan.out.attrs[i].type;
    if (!o.eval(*plan.targets[i], v)) {
      r.rc = -1, r.err = o.err, r.pos = o.err_pos, r.row.clear();
      return r;
    }
    if (col.kind != Tk::C && col.kind != v.type) {
      Ref c;
      if (int e = Oracle::cvt(v, col.kind, c)) {
        r.rc = -1, r.err = e, r.pos = plan.targets[i]->pos, r.row.clear();
        return r;
      }
      c.type = col.kind;
      v = c;
    }
    auto b = column_bytes(v, col);
    std::memcpy(r.row.data() + plan.out.attrs[i].offset, b.data(), b.size());
  }
  return r;
}

// Both dispatch modes of the back end, for parameterised tests.
inline std::unique_ptr<harness::Backend> backend_for(const std::string& mode) {
  return interp::make_backend(mode == "goto");
}

}  // namespace quelkit::test
