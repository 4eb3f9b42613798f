// The operator catalogue (frontend/ops.def) against itself and against the
// runtime rules: every typed row's ERRORS column says exactly which errors its
// rule raises on the edge values of its operand types (none missing, none
// claimed that no input raises), every computing generic has rows, and every
// spelling the parser and binder look up finds its own row.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "frontend/consteval.h"
#include "frontend/ir.h"

namespace quelkit::frontend {
namespace {

// Edge values of a type, as ir::Value holds them.
std::vector<ir::Value> edges(Tk t) {
  std::vector<ir::Value> out;
  auto add_int = [&](int64_t v) {
    ir::Value x;
    x.i = v;
    out.push_back(x);
  };
  const double inf = std::numeric_limits<double>::infinity();
  switch (t) {
    case Tk::I1: for (int64_t v : {-128, -1, 0, 1, 2, 127}) add_int(v); break;
    case Tk::I2: for (int64_t v : {-32768, -1, 0, 1, 2, 32767}) add_int(v); break;
    case Tk::I4:
      for (int64_t v : {int64_t(INT32_MIN), int64_t(-1073741825), int64_t(-1), int64_t(0), int64_t(1),
                        int64_t(2), int64_t(40000), int64_t(1073741824), int64_t(INT32_MAX)})
        add_int(v);
      break;
    case Tk::B: add_int(0); add_int(1); break;
    case Tk::F4:
      for (float v : {-3.4e38f, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 300.0f, 1e10f, 3.4e38f}) {
        ir::Value x;
        x.f4 = v;
        out.push_back(x);
      }
      break;
    case Tk::F8:
      for (double v : {-1.7e308, -1e10, -1.0, -0.0, 0.0, 0.5, 1.0, 300.0, 1e10, 1e300, 1.7e308, inf,
                       std::numeric_limits<double>::quiet_NaN()}) {
        ir::Value x;
        x.f8 = v;
        out.push_back(x);
      }
      break;
    case Tk::C:
      for (const char* s : {"", "a  ", "b", "ab*"}) {
        ir::Value x;
        x.s = s;
        out.push_back(x);
      }
      break;
  }
  return out;
}

Type result_type(const ir::OpInfo& o, const std::vector<ir::Value>& args) {
  if (o.result != Tk::C) return Type{o.result, type_info(o.result).size};
  if (o.generic == ir::Generic::Concat) return Type::c(unsigned(args[0].s.size() + args[1].s.size()));
  return Type::c(24);
}

TEST(Catalogue, ErrorsColumnIsWhatTheRulesRaise) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& o = ir::kOps[i];
    if (o.cls() == ir::Class::Leaf) continue;
    std::set<int> raised;
    std::vector<ir::Value> args(2);
    auto run = [&] {
      ir::Value out;
      int err = 0;
      if (!eval_const(ir::Op(i), result_type(o, args), args.data(), &out, &err)) raised.insert(err);
    };
    for (const ir::Value& a : edges(o.left)) {
      args[0] = a;
      if (o.arity == 1) {
        run();
        continue;
      }
      for (const ir::Value& b : edges(o.right)) {
        args[1] = b;
        run();
      }
    }
    for (int code : raised)
      EXPECT_TRUE(o.raises(code)) << o.name << " raises " << qk_err_message(code)
                                  << ", which its ERRORS column does not list";
    for (int code = 1; code < 16; ++code) {
      if (o.raises(code)) {
        EXPECT_TRUE(raised.count(code)) << o.name << " lists " << qk_err_message(code)
                                        << " but raised it on no edge value";
      }
    }
  }
}

TEST(Catalogue, EveryComputingGenericHasRowsOfItsArity) {
  for (int g = 0; g < ir::kNumGenerics; ++g) {
    const ir::GenericInfo& gi = ir::kGenerics[g];
    int rows = 0;
    for (int i = 0; i < ir::kNumOps; ++i)
      if (ir::kOps[i].generic == ir::Generic(g)) {
        ++rows;
        EXPECT_EQ(ir::kOps[i].arity, gi.arity) << ir::kOps[i].name;
        if (gi.scratch) {
          EXPECT_EQ(ir::kOps[i].result, Tk::C) << ir::kOps[i].name;
        }
      }
    EXPECT_GT(rows, 0) << gi.quel;
  }
}

TEST(Catalogue, SpellingsFindTheirOwnRows) {
  for (int g = 0; g < ir::kNumGenerics; ++g) {
    const ir::GenericInfo& gi = ir::kGenerics[g];
    const ir::Generic id = ir::Generic(g);
    if (gi.cls == ir::Class::Leaf || gi.cls == ir::Class::Convert || id == ir::Generic::Match ||
        id == ir::Generic::NoMatch)
      continue;  // not looked up by spelling
    ir::Generic found;
    ASSERT_TRUE(ir::generic_by_quel(gi.quel, gi.arity, gi.cls == ir::Class::Function, &found)) << gi.quel;
    EXPECT_EQ(found, id) << gi.quel;
  }
  ir::Generic g;
  EXPECT_FALSE(ir::generic_by_quel("abs", 2, true, &g));
  EXPECT_FALSE(ir::generic_by_quel("+", 2, true, &g));  // an operator is no function
}

}  // namespace
}  // namespace quelkit::frontend
