// Every generic operator over every operand type combination the binder can
// produce, in both dispatch modes, against the typed IR evaluated with the
// runtime helpers: the interpreter's per-tuple typing must re-derive exactly
// the binder's conversions, bit for bit, errors and positions included.
#include <random>

#include "test/interp/tuples.h"

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

class Ops : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<harness::Backend> be = backend_for(GetParam());
  Fixture fx;

  // Literals are i2, i4 or f8 (or c); parameters and attributes any type.
  NodePtr operand(Builder& b, Tk k, Src src, int salt) {
    switch (src) {
      case Src::Attr: return b.attr(fx.all, num_attr(k));
      case Src::Param: return b.param(fx.all, num_attr(k));
      case Src::Const:
        if (k == Tk::I2) return b.int_c(salt % 2 ? -3 : 7, Type::i2());
        if (k == Tk::I4) return b.int_c(salt % 2 ? 70000 : -2147483647, Type::i4());
        return b.f8_c(salt % 2 ? 0.5 : -1e-3);
    }
    return nullptr;
  }

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
  const Generic ops[] = {Generic::Add, Generic::Sub, Generic::Mul, Generic::Div, Generic::Pow, Generic::Mod,
                         Generic::Eq,  Generic::Ne,  Generic::Lt,  Generic::Le,  Generic::Gt,  Generic::Ge};
  int salt = 0;
  for (Generic g : ops)
    for (Tk l : kNumeric)
      for (Tk r : kNumeric)
        for (Src src : {Src::Attr, Src::Const, Src::Param}) {
          if (g == Generic::Mod && !(is_int(l) && is_int(r))) continue;
          if (src == Src::Const && r != Tk::I2 && r != Tk::I4 && r != Tk::F8) continue;
          Builder b;
          NodePtr e = b.bin(g, b.attr(fx.all, num_attr(l)), operand(b, r, src, ++salt));
          std::string what = std::string(ir::generic_name(g)) + " " + ir::shape(*e);
          bool boolean = e->type.kind == Tk::B;
          std::vector<NodePtr> ts;
          if (!boolean) ts.push_back(std::move(e));
          harness::Plan p = boolean ? qual_plan(fx.all, std::move(e), b.scratch_size(), fx.all)
                                    : target_plan(fx.all, std::move(ts), b.scratch_size(), fx.all);
          check(p, what);
          // And with the literal or parameter on the left.
          Builder b2;
          NodePtr e2 = b2.bin(g, operand(b2, r, src, salt), b2.attr(fx.all, num_attr(l)));
          std::vector<NodePtr> ts2;
          std::string what2 = ir::shape(*e2);
          if (!boolean) ts2.push_back(std::move(e2));
          harness::Plan p2 = boolean ? qual_plan(fx.all, std::move(e2), b2.scratch_size(), fx.all)
                                     : target_plan(fx.all, std::move(ts2), b2.scratch_size(), fx.all);
          check(p2, what2);
        }
}

TEST_P(Ops, UnaryEveryType) {
  const Generic ops[] = {Generic::Neg, Generic::Abs, Generic::Sqrt, Generic::Log,  Generic::Exp,
                         Generic::Sin, Generic::Cos, Generic::Atan, Generic::Ascii};
  for (Generic g : ops)
    for (Tk k : kNumeric)
      for (Src src : {Src::Attr, Src::Param, Src::Const}) {
        if (src == Src::Const && k != Tk::I2 && k != Tk::I4 && k != Tk::F8) continue;
        Builder b;
        std::vector<NodePtr> ts;
        ts.push_back(b.un(g, operand(b, k, src, int(k))));
        std::string what = ir::shape(*ts[0]);
        check(target_plan(fx.all, std::move(ts), b.scratch_size(), fx.all), what);
      }
}

TEST_P(Ops, ExplicitConversionsEveryPair) {
  for (Tk to : kNumeric)
    for (Tk from : kNumeric) {
      if (to == from) continue;
      for (Src src : {Src::Attr, Src::Param}) {
        Builder b;
        std::vector<NodePtr> ts;
        ts.push_back(b.cvt(to, operand(b, from, src, 0)));
        std::string what = ir::shape(*ts[0]);
        check(target_plan(fx.all, std::move(ts), b.scratch_size(), fx.all), what);
      }
    }
}

TEST_P(Ops, CharacterComparisonsEveryPair) {
  const Generic ops[] = {Generic::Eq, Generic::Ne, Generic::Lt, Generic::Le, Generic::Gt, Generic::Ge};
  const char* attrs[] = {"c10", "c3"};
  for (Generic g : ops)
    for (const char* l : attrs)
      for (const char* r : attrs) {
        for (int src = 0; src < 3; ++src) {
          Builder b;
          NodePtr right = src == 0 ? b.attr(fx.all, r) : src == 1 ? b.param(fx.all, r) : b.str("ab ");
          NodePtr e = b.bin(g, b.attr(fx.all, l), std::move(right));
          std::string what = ir::shape(*e);
          check(qual_plan(fx.all, std::move(e), b.scratch_size(), fx.all), what);
        }
      }
}

TEST_P(Ops, LogicEveryCombination) {
  for (Generic g : {Generic::And, Generic::Or})
    for (int shape = 0; shape < 4; ++shape) {
      Builder b;
      NodePtr l = b.bin(Generic::Gt, b.attr(fx.all, "a2"), b.lit(0));
      NodePtr r = b.bin(Generic::Lt, b.attr(fx.all, "b8"), b.lit(1));
      if (shape & 1) l = b.un(Generic::Not, std::move(l));
      if (shape & 2) r = b.un(Generic::Not, std::move(r));
      NodePtr e = b.bin(g, std::move(l), std::move(r));
      std::string what = ir::shape(*e);
      check(qual_plan(fx.all, std::move(e), b.scratch_size(), fx.all), what);
    }
}

// Random well-typed expressions (fixed seed): nested results flow into every
// operator with every dynamic type, which the per-operator tests cannot reach.
class RandomExpr {
 public:
  RandomExpr(Builder& b, const Schema& s, uint32_t seed) : b_(b), s_(s), rng_(seed) {}

  NodePtr numeric(int depth) {
    int pick = depth <= 0 ? int(rng_() % 3) : int(rng_() % 10);
    switch (pick) {
      case 0: return b_.attr(s_, num_attr(kNumeric[rng_() % 5]));
      case 1: return b_.param(s_, num_attr(kNumeric[rng_() % 5]));
      case 2: {
        switch (rng_() % 3) {
          case 0: return b_.lit(int64_t(rng_() % 200) - 100);
          case 1: return b_.lit(int64_t(rng_() % 3000000) - 1500000);
          default: return b_.f8_c(double(int(rng_() % 2000) - 1000) / 64.0);
        }
      }
      case 3: case 4: case 5: {
        const Generic ar[] = {Generic::Add, Generic::Sub, Generic::Mul, Generic::Div, Generic::Pow, Generic::Mod};
        Generic g = ar[rng_() % 6];
        NodePtr a = numeric(depth - 1), c = numeric(depth - 1);
        if (g == Generic::Mod) {
          if (!is_int(a->type.kind)) a = b_.cvt(Tk::I4, std::move(a));
          if (!is_int(c->type.kind)) c = b_.cvt(Tk::I2, std::move(c));
        }
        return b_.bin(g, std::move(a), std::move(c));
      }
      case 6: case 7: {
        const Generic un[] = {Generic::Neg, Generic::Abs, Generic::Sqrt, Generic::Log,
                              Generic::Exp, Generic::Sin, Generic::Cos,  Generic::Atan};
        return b_.un(un[rng_() % 8], numeric(depth - 1));
      }
      default: {
        NodePtr a = numeric(depth - 1);
        Tk to = kNumeric[rng_() % 5];
        if (to == a->type.kind) return a;
        return b_.cvt(to, std::move(a));
      }
    }
  }

  NodePtr chars(int depth) {
    switch (depth <= 0 ? rng_() % 3 : rng_() % 5) {
      case 0: return b_.attr(s_, rng_() % 2 ? "c10" : "c3");
      case 1: return b_.param(s_, rng_() % 2 ? "c10" : "c3");
      case 2: return b_.str(rng_() % 2 ? "nut " : "ab");
      case 3: return b_.un(Generic::Ascii, numeric(depth - 1));
      default: {
        NodePtr a = chars(depth - 1), c = chars(depth - 1);
        if (unsigned(a->type.len) + c->type.len > 255) return a;
        return b_.bin(Generic::Concat, std::move(a), std::move(c));
      }
    }
  }

  NodePtr boolean(int depth) {
    const Generic cmp[] = {Generic::Eq, Generic::Ne, Generic::Lt, Generic::Le, Generic::Gt, Generic::Ge};
    switch (depth <= 0 ? rng_() % 3 : rng_() % 6) {
      case 0: return b_.bin(cmp[rng_() % 6], numeric(depth - 1), numeric(depth - 1));
      case 1: return b_.bin(cmp[rng_() % 6], chars(depth - 1), chars(depth - 1));
      case 2: return b_.match(chars(depth - 1), rng_() % 2 ? "*a*" : "[a-n]?t", rng_() % 2);
      case 3: return b_.un(Generic::Not, boolean(depth - 1));
      default: return b_.bin(rng_() % 2 ? Generic::And : Generic::Or, boolean(depth - 1), boolean(depth - 1));
    }
  }

 private:
  Builder& b_;
  const Schema& s_;
  std::mt19937 rng_;
};

TEST_P(Ops, RandomExpressionsMatchTheTypedIr) {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    {
      Builder b;
      RandomExpr gen(b, fx.all, seed);
      NodePtr q = gen.boolean(4);
      std::string what = ir::shape(*q);
      check(qual_plan(fx.all, std::move(q), b.scratch_size(), fx.all), what);
    }
    {
      Builder b;
      RandomExpr gen(b, fx.all, seed * 7919);
      std::vector<NodePtr> ts;
      ts.push_back(gen.numeric(4));
      ts.push_back(gen.chars(3));
      ts.push_back(gen.numeric(3));
      std::string what = ir::shape(*ts[0]) + " " + ir::shape(*ts[1]) + " " + ir::shape(*ts[2]);
      check(target_plan(fx.all, std::move(ts), b.scratch_size(), fx.all), what);
    }
  }
}

// The two dispatch modes give the same outcome, row bytes and errors included.
TEST(Modes, SwitchAndGotoAgree) {
  Fixture fx;
  auto sw = interp::make_backend(false), go = interp::make_backend(true);
  for (uint32_t seed = 1000; seed < 1300; ++seed) {
    Builder b;
    RandomExpr gen(b, fx.all, seed);
    harness::Plan plan = qual_plan(fx.all, gen.boolean(5), 0, fx.all);
    plan.targets.push_back(gen.numeric(4));
    plan.targets.push_back(gen.chars(3));
    plan.out = Schema::packed({{"n", plan.targets[0]->type}, {"c", plan.targets[1]->type}});
    plan.scratch_size = b.scratch_size();
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
