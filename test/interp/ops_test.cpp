// Every generic operator over every operand type combination, bound from QUEL
// by the binder, in both dispatch modes, against the typed IR evaluated with
// the runtime helpers: the interpreter's per-tuple typing must re-derive
// exactly the binder's conversions, bit for bit, errors and positions included.
// The operators come from the catalogue by family (test/op_lists.h): a new
// row is tested here without an edit, and fails until the reference evaluator
// (interp_test_util.h) knows it.
#include <charconv>
#include <random>

#include "test/interp/tuples.h"
#include "test/op_lists.h"

namespace quelkit::test {
namespace {

const Tk kNumeric[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8};
const char* num_attr(Tk k) {
  switch (k) {
    case Tk::I1: return "a1";
    case Tk::I2: return "a2";
    case Tk::I4: return "a4";
    case Tk::F4: return "b4";
    default: return "b8";
  }
}

// Where an operand comes from: the tuple, a query literal, a substituted parameter.
enum class Src { Attr, Const, Param };

// An operand of kind k: t is the tuple, s the parameter block (same layout).
// Literals are i2, i4 or f8 (or c), negative ones written with unary minus.
std::string operand(Tk k, Src src, int salt) {
  switch (src) {
    case Src::Attr: return std::string("t.") + num_attr(k);
    case Src::Param: return std::string("s.") + num_attr(k);
    case Src::Const:
      if (k == Tk::I2) return salt % 2 ? "(-3)" : "7";
      if (k == Tk::I4) return salt % 2 ? "70000" : "(-2147483647)";
      return salt % 2 ? "0.5" : "(-1e-3)";
  }
  return "";
}

class Ops : public ::testing::TestWithParam<std::string> {
 protected:
  Ops() { q.params("s", fx.all); }
  std::unique_ptr<harness::Backend> be = backend_for(GetParam());
  Fixture fx;
  QuelPlan q{"t", fx.all};

  // The bound expression as a plan: a condition qualifies, a value projects.
  harness::Plan plan_of(const std::string& text) {
    uint32_t scratch = 0;
    NodePtr e = q.expr(text, &scratch);
    if (e->type.kind == Tk::B) return qual_plan(fx.all, std::move(e), scratch, fx.all);
    std::vector<NodePtr> ts;
    ts.push_back(std::move(e));
    return target_plan(fx.all, std::move(ts), scratch, fx.all);
  }
  static std::string what(const harness::Plan& p) { return ir::shape(p.qual ? *p.qual : *p.targets[0]); }

  // Runs the plan over every fixture tuple (with a rotating parameter block,
  // prepared afresh per block as the interpreter is) and compares with the oracle.
  void check(const harness::Plan& plan, const std::string& what) {
    for (size_t t = 0; t < fx.rows.size(); ++t) {
      const uint8_t* tuple = fx.rows[t].data();
      const uint8_t* params = fx.rows[(t + 3) % fx.rows.size()].data();
      auto prep = be->prepare(plan, params);
      if (plan.qual) {
        EXPECT_EQ(run_qualify(*prep, plan, tuple, params), expect_qualify(plan, tuple, params)) << what << " row " << t;
      } else {
        EXPECT_EQ(run_project(*prep, plan, tuple, params), expect_project(plan, tuple, params)) << what << " row " << t;
      }
    }
  }
};

TEST_P(Ops, BinaryNumericEveryTypePair) {
  std::vector<Generic> ops = family(Family::NumbersToNumber);
  for (Generic g : family(Family::Comparison)) ops.push_back(g);
  int salt = 0;
  for (Generic g : ops)
    for (Tk l : kNumeric)
      for (Tk r : kNumeric)
        for (Src src : {Src::Attr, Src::Const, Src::Param}) {
          if (integers_only(g) && !(is_int(l) && is_int(r))) continue;
          if (src == Src::Const && r != Tk::I2 && r != Tk::I4 && r != Tk::F8) continue;
          const std::string a = std::string("t.") + num_attr(l), b = operand(r, src, ++salt);
          harness::Plan p = plan_of(quel(g, a, b));
          check(p, std::string(ir::generic_name(g)) + " " + what(p));
          // And with the literal or parameter on the left.
          harness::Plan p2 = plan_of(quel(g, b, a));
          check(p2, what(p2));
        }
}

TEST_P(Ops, UnaryEveryType) {
  std::vector<Generic> ops = family(Family::NumberToNumber);
  for (Generic g : family(Family::NumberToText)) ops.push_back(g);
  for (Generic g : ops)
    for (Tk k : kNumeric)
      for (Src src : {Src::Attr, Src::Param, Src::Const}) {
        if (integers_only(g) && !is_int(k)) continue;
        if (src == Src::Const && k != Tk::I2 && k != Tk::I4 && k != Tk::F8) continue;
        harness::Plan p = plan_of(quel(g, operand(k, src, int(k))));
        check(p, what(p));
      }
}

TEST_P(Ops, ExplicitConversionsEveryPair) {
  for (Tk to : kNumeric)
    for (Tk from : kNumeric) {
      if (to == from) continue;
      for (Src src : {Src::Attr, Src::Param}) {
        harness::Plan p = plan_of(quel_cvt(to, operand(from, src, 0)));
        check(p, what(p));
      }
    }
}

TEST_P(Ops, CharacterComparisonsEveryPair) {
  const char* attrs[] = {"c10", "c3"};
  for (Generic g : family(Family::Comparison))
    for (const char* l : attrs)
      for (const char* r : attrs) {
        for (int src = 0; src < 3; ++src) {
          std::string right = src == 0 ? std::string("t.") + r : src == 1 ? std::string("s.") + r : quel_string("ab ");
          harness::Plan p = plan_of(quel(g, std::string("t.") + l, right));
          check(p, what(p));
        }
      }
}

TEST_P(Ops, LogicEveryCombination) {
  for (Generic g : family(Family::Connective))
    for (int shape = 0; shape < 4; ++shape) {
      std::string l = quel(Generic::Gt, "t.a2", "0");
      std::string r = quel(Generic::Lt, "t.b8", "1");
      for (Generic n : family(Family::Negation)) {
        if (shape & 1) l = quel(n, l);
        if (shape & 2) r = quel(n, r);
      }
      harness::Plan p = plan_of(quel(g, l, r));
      check(p, what(p));
    }
}

// Random well-typed expressions (fixed seed) as QUEL text, typed by the
// binder: nested results flow into every operator with every dynamic type,
// which the per-operator tests cannot reach.
class RandomExpr {
 public:
  RandomExpr(QuelPlan& q, uint32_t seed) : q_(q), rng_(seed) {}

  std::string numeric(int depth) {
    int pick = depth <= 0 ? int(rng_() % 3) : int(rng_() % 10);
    switch (pick) {
      case 0: return std::string("t.") + num_attr(kNumeric[rng_() % 5]);
      case 1: return std::string("s.") + num_attr(kNumeric[rng_() % 5]);
      case 2: {
        switch (rng_() % 3) {
          case 0: return lit(int64_t(rng_() % 200) - 100);
          case 1: return lit(int64_t(rng_() % 3000000) - 1500000);
          default: return flt(double(int(rng_() % 2000) - 1000) / 64.0);
        }
      }
      case 3: case 4: case 5: {
        Generic g = draw(binary_);
        std::string a = numeric(depth - 1), c = numeric(depth - 1);
        if (integers_only(g)) {
          if (!is_int(q_.type(a).kind)) a = quel_cvt(Tk::I4, a);
          if (!is_int(q_.type(c).kind)) c = quel_cvt(Tk::I2, c);
        }
        return quel(g, a, c);
      }
      case 6: case 7: {
        Generic g = draw(unary_);
        std::string a = numeric(depth - 1);
        if (integers_only(g) && !is_int(q_.type(a).kind)) a = quel_cvt(Tk::I4, a);
        return quel(g, a);
      }
      default: {
        std::string a = numeric(depth - 1);
        Tk to = kNumeric[rng_() % 5];
        if (to == q_.type(a).kind) return a;
        return quel_cvt(to, a);
      }
    }
  }

  std::string chars(int depth) {
    switch (depth <= 0 ? rng_() % 3 : rng_() % 5) {
      case 0: return rng_() % 2 ? "t.c10" : "t.c3";
      case 1: return rng_() % 2 ? "s.c10" : "s.c3";
      case 2: return quel_string(rng_() % 2 ? "nut " : "ab");
      case 3: return quel(draw(to_text_), numeric(depth - 1));
      default: {
        std::string a = chars(depth - 1), c = chars(depth - 1);
        if (unsigned(q_.type(a).len) + q_.type(c).len > 255) return a;
        return quel(draw(texts_), a, c);
      }
    }
  }

  std::string boolean(int depth) {
    switch (depth <= 0 ? rng_() % 3 : rng_() % 6) {
      case 0: {
        Generic g = draw(cmp_);
        std::string a = numeric(depth - 1), c = numeric(depth - 1);
        return quel(g, a, c);
      }
      case 1: {
        Generic g = draw(cmp_);
        std::string a = chars(depth - 1), c = chars(depth - 1);
        return quel(g, a, c);
      }
      case 2: {
        // A pattern literal on the right makes = and != pattern matches.
        std::string v = chars(depth - 1);
        std::string pattern = quel_string(rng_() % 2 ? "*a*" : "[a-n]?t");
        return quel(rng_() % 2 ? Generic::Ne : Generic::Eq, v, pattern);
      }
      case 3: return quel(draw(not_), boolean(depth - 1));
      default: {
        Generic g = draw(logic_);
        std::string a = boolean(depth - 1), c = boolean(depth - 1);
        return quel(g, a, c);
      }
    }
  }

 private:
  // Negative numbers are written with unary minus, as a user writes them.
  static std::string lit(int64_t v) { return v < 0 ? "(-" + std::to_string(-v) + ")" : std::to_string(v); }
  static std::string flt(double v) {
    char buf[64];
    std::string s(buf, std::to_chars(buf, buf + sizeof buf, std::fabs(v)).ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return v < 0 ? "(-" + s + ")" : s;
  }

  Generic draw(const std::vector<Generic>& from) { return from[rng_() % from.size()]; }

  QuelPlan& q_;
  std::mt19937 rng_;
  // The operators drawn from, by family (test/op_lists.h).
  const std::vector<Generic> binary_ = family(Family::NumbersToNumber), unary_ = family(Family::NumberToNumber),
                             to_text_ = family(Family::NumberToText), texts_ = family(Family::TextsToText),
                             cmp_ = family(Family::Comparison), logic_ = family(Family::Connective),
                             not_ = family(Family::Negation);
};

// Every operator a user writes belongs to a family the tests write QUEL for;
// a catalogue row that none takes (a new typing rule, say) is named here.
TEST(Catalogue, EveryWrittenOperatorHasATestFamily) {
  for (size_t i = 0; i < size_t(ir::kNumGenerics); ++i)
    EXPECT_NE(family_of(Generic(i)), Family::Unknown)
        << ir::generic_name(Generic(i)) << ": give it a family in test/op_lists.h and QUEL in the tests using it";
  for (Family f : {Family::NumberToNumber, Family::NumberToText, Family::NumbersToNumber, Family::Comparison,
                   Family::TextsToText, Family::Connective, Family::Negation})
    EXPECT_FALSE(family(f).empty()) << int(f);
}

TEST_P(Ops, RandomExpressionsMatchTheTypedIr) {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    {
      RandomExpr gen(q, seed);
      harness::Plan p = plan_of(gen.boolean(4));
      check(p, what(p));
    }
    {
      RandomExpr gen(q, seed * 7919);
      std::string n = gen.numeric(4);
      std::string c = gen.chars(3);
      std::string m = gen.numeric(3);
      harness::Plan p = q.plan("retrieve (r0 = " + n + ", r1 = " + c + ", r2 = " + m + ")");
      std::string what = ir::shape(*p.targets[0]) + " " + ir::shape(*p.targets[1]) + " " + ir::shape(*p.targets[2]);
      check(p, what);
    }
  }
}

// The two dispatch modes give the same outcome, row bytes and errors included.
TEST(Modes, SwitchAndGotoAgree) {
  Fixture fx;
  QuelPlan q("t", fx.all);
  q.params("s", fx.all);
  auto sw = interp::make_backend(false), go = interp::make_backend(true);
  for (uint32_t seed = 1000; seed < 1300; ++seed) {
    RandomExpr gen(q, seed);
    std::string qual = gen.boolean(5);
    std::string n = gen.numeric(4);
    std::string c = gen.chars(3);
    harness::Plan plan = q.plan("retrieve (n = " + n + ", c = " + c + ") where " + qual);
    for (size_t t = 0; t < fx.rows.size(); ++t) {
      const uint8_t* params = fx.rows[(t + 1) % fx.rows.size()].data();
      auto ps = sw->prepare(plan, params), pg = go->prepare(plan, params);
      EXPECT_EQ(run_qualify(*ps, plan, fx.rows[t].data(), params), run_qualify(*pg, plan, fx.rows[t].data(), params))
          << seed;
      EXPECT_EQ(run_project(*ps, plan, fx.rows[t].data(), params), run_project(*pg, plan, fx.rows[t].data(), params))
          << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Ops, ::testing::Values("switch", "goto"));

}  // namespace
}  // namespace quelkit::test
