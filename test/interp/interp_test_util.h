// Test scaffolding for the 1976 interpreter: typed, unfolded IR bound from
// QUEL text by the real binder (test/quel_plan.h), a reference evaluator of
// that typed IR built on the same runtime helpers, and helpers that prepare
// plans through the back end and run them on tuples.
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
#include "engine/backend.h"
#include "storage/page.h"
#include "engine/plan.h"
#include "runtime/runtime.h"
#include "runtime/rules.h"
#include "runtime/runtime_inline.h"
#include "interp/interp.h"
#include "test/op_lists.h"
#include "test/quel_plan.h"
#include "test/prepared_calls.h"

namespace quelkit::test {

using ir::Generic;
using ir::NodePtr;
using ir::Op;

// Typed IR comes from the binder (test/quel_plan.h): QUEL text, bound.
using quelkit::test::find_written;
using quelkit::test::literal_as_param;
using quelkit::test::QuelPlan;

// A QUEL string literal of `value` (quotes and backslashes escaped).
inline std::string quel_string(const std::string& value) {
  std::string s = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

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
    if (info.generic == Generic::And || info.generic == Generic::Or) {  // n-ary, left to right
      for (const auto& k : n.kid) {
        if (!eval(*k, a)) return false;
        if ((a.i != 0) == (info.generic == Generic::Or)) break;
      }
      r.i = a.i;
      return true;
    }
    if (!eval(*n.kid[0], a)) return false;
    if (info.arity == 2 && !eval(*n.kid[1], b)) return false;
    const Tk tc = info.left;
    switch (info.generic) {
      case Generic::Cvt: return fail(cvt(a, n.type.kind, r));
      case Generic::Neg:
        if (tc == Tk::I4) return fail(rt::neg_i4(a.i, &r.i));
        if (tc == Tk::F4) r.f4 = -a.f4; else r.f8 = -a.f8;
        return true;
      case Generic::Abs:
        if (tc == Tk::I4) return fail(rt::abs_i4(a.i, &r.i));
        if (tc == Tk::F4) r.f4 = std::fabs(a.f4); else r.f8 = std::fabs(a.f8);
        return true;
#define QT_ARITH(G, name)                                                          \
  case Generic::G:                                                                 \
    if (tc == Tk::I4) return fail(rt::name##_i4(a.i, b.i, &r.i));              \
    if (tc == Tk::F4) return fail(rt::name##_f4(a.f4, b.f4, &r.f4));           \
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
        if (tc == Tk::I4) r.i = cmp(a.i, b.i);
        else if (tc == Tk::F4) r.i = cmp(a.f4, b.f4);
        else if (tc == Tk::F8) r.i = cmp(a.f8, b.f8);
        else r.i = cmp(qk_char_cmp(a.s, a.len, b.s, b.len), 0);
        return true;
      }
      case Generic::Match: r.i = qk_pattern_match(a.s, a.len, b.s, b.len); return true;
      case Generic::NoMatch: r.i = !qk_pattern_match(a.s, a.len, b.s, b.len); return true;
      case Generic::Not: r.i = !a.i; return true;
      case Generic::Ascii:
        r.s = scratch_ + n.scratch;
        if (tc == Tk::F4) qk_ascii_f4(a.f4, scratch_ + n.scratch, n.type.len);
        else if (tc == Tk::F8) qk_ascii_f8(a.f8, scratch_ + n.scratch, n.type.len);
        else qk_ascii_i4(a.i, scratch_ + n.scratch, n.type.len);
        return true;
#ifdef QUELKIT_TEST_OPERATOR
      // The test-only operator (ops.def): what a newcomer's row adds here.
      case Generic::Twice: return fail(rt::twice_i4(a.i, &r.i));
#endif
      case Generic::Concat:
        qk_concat(a.s, a.len, b.s, b.len, scratch_ + n.scratch);
        r.s = scratch_ + n.scratch;
        return true;
      default:
        // A catalogue row the tests now generate (test/op_lists.h) and this
        // reference does not evaluate yet: add its case above.
        ADD_FAILURE() << "oracle: no reference for " << ir::op_name(n.op) << " (test/interp/interp_test_util.h)";
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
  o.rc = qualify(prep, tuple, &ctx);
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
  o.rc = project(prep, tuple, o.row.data(), &ctx);
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
