// The random-query generator (gen.h). To make a value of kind T it picks a
// generic operator that has a row producing T (ops.def), then a row, then
// operands chosen by the row's operand types and the generic's typing rule
// column, aiming at that row; the binder then types the candidate, and one
// that is rejected or of another kind is replaced by a leaf of kind T.
#include "difftest/gen.h"

#include <algorithm>
#include <array>

#include "difftest/bind.h"
#include "difftest/sqlite_oracle.h"
#include "runtime/runtime_inline.h"

namespace quelkit::difftest {

using ir::Generic;
using ir::Op;

uint64_t Rng::next() {
  s_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = s_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// ---- literals ----

GPtr Generator::int_lit(int64_t v) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->text = std::to_string(v);
  return n;
}

GPtr Generator::float_lit(const std::string& text) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->text = text;
  return n;
}

GPtr Generator::string_lit(const std::string& value) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->value = value;
  // As written between the quotes: its backslashes are the literal's escapes
  // (a pattern's, or a value's: rt::unescape); only quotes are escaped, and a
  // last lone backslash, which would escape the closing quote.
  n->text = "\"";
  size_t run = 0;  // backslashes just before this character
  for (char c : value) {
    if (c == '"' && run % 2 == 0) n->text += '\\';
    n->text += c;
    run = c == '\\' ? run + 1 : 0;
  }
  if (run % 2) n->text += '\\';
  n->text += "\"";
  n->pattern = rt::is_pattern_text(value);
  return n;
}

GPtr Generator::simplest(Tk k) {
  static const std::array<GPtr, kNumTk> table = [] {
    std::vector<GPtr> cands;
    cands.push_back(int_lit(1));
    cands.push_back(int_lit(32768));
    cands.push_back(float_lit("1.0"));
    cands.push_back(string_lit("a"));
    cands.push_back(make_cvt(Tk::I1, int_lit(1)));
    cands.push_back(make_cvt(Tk::F4, float_lit("1.0")));
    cands.push_back(make_op(Generic::Eq, int_lit(1), int_lit(1)));
    std::array<GPtr, kNumTk> t;
    for (auto& c : cands) {
      ir::NodePtr b = bind_expr(*c, {}, TestData::catalog());
      if (b && !t[size_t(b->type.kind)]) t[size_t(b->type.kind)] = std::move(c);
    }
    return t;
  }();
  const GPtr& n = table[size_t(k)];
  return n ? n->clone() : int_lit(1);
}

std::optional<Generator::Typed> Generator::bound(GPtr n, const std::vector<GVar>& vars) const {
  ir::NodePtr b = bind_expr(*n, vars, TestData::catalog());
  if (!b) return std::nullopt;
  return Typed{std::move(n), b->type};
}

Generator::Typed Generator::smallest(Tk k) const { return std::move(*bound(simplest(k), {})); }

// ---- generator ----

namespace {

const int64_t kSmallInts[] = {0, 1, 1, 2, 2, 3, 5, 7, 10, 13, 50, 99, 100, 127, 128, 255, 256, 1000, 32767};
const int64_t kBigInts[] = {32768, 46340, 46341, 65535, 65536, 100000, 16777217, 1000000000, 2147483646,
                            2147483647};
const char* kFloats[] = {"0.0", "0.5", "1.0", "1.5", "2.5", "0.1", "3.0", "100.0", "127.5", "128.0", "-0.0",
                         "1e10", "1e-10", "0.3333333333333333", "2147483647.0", "2147483648.0", "32767.9",
                         "16777217.0", "3.4028234663852886e38", "3.4028235677973366e38", "1e38", "1e300",
                         "1.7976931348623157e308", "2.2250738585072014e-308", "1e-45", "1.5e-45", "4.5e15",
                         "9007199254740993.0", "6.02e23", "0.75"};
const char* kChars[] = {"", "a", "b", "z", "abc", "ab", "abd", "ABC", "abc  ", " abc", "a b", "processor",
                        "black", "red", "Processor", "zzzzzzzzzzzz", "zzzzzzzzzzzzz", "2.5", "x\"y", "hello world!",
                        "\xc3\xa9t\xc3\xa9", "~", "0", "9", " "};

// A float literal as written: -0.0 is unary minus on 0.0.
GPtr float_leaf(const std::string& f) {
  if (f[0] != '-') return Generator::float_lit(f);
  return make_op(Generic::Neg, Generator::float_lit(f.substr(1)));
}

// A string literal with pattern characters would turn = into a pattern match.
GPtr no_pattern(GPtr n) { return n->kind == GNode::Lit && n->pattern ? Generator::string_lit("abc") : std::move(n); }

// Operand kinds aimed at a row computing in k: integers for an integer row;
// one f4 side for f4 (the other f4 or an integer); one f8 side for f8.
std::pair<Tk, Tk> numeric_operands(Rng& rng, Tk k) {
  static const Tk ints[] = {Tk::I1, Tk::I2, Tk::I2, Tk::I4, Tk::I4};
  static const Tk nums[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8};
  Tk a = ints[rng.below(std::size(ints))], b = ints[rng.below(std::size(ints))];
  if (k == Tk::F4) {
    a = Tk::F4;
    b = rng.chance(50) ? Tk::F4 : ints[rng.below(std::size(ints))];
  } else if (k == Tk::F8) {
    a = Tk::F8;
    b = nums[rng.below(std::size(nums))];
  }
  if (rng.chance(50)) std::swap(a, b);
  return {a, b};
}

}  // namespace

Generator::Generator(uint64_t seed, GenOptions opt) : rng_(seed), opt_(opt), by_result_(kNumTk) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& info = ir::op_info(Op(i));
    if (info.arity == 0) continue;  // leaves: literals and attributes
    by_result_[size_t(info.result)].push_back(Op(i));
  }
}

std::string Generator::char_value() { return kChars[rng_.below(std::size(kChars))]; }

bool Generator::allowed(Op op) const {
  if (!sql_) return true;
  const ir::OpInfo& o = ir::op_info(op);
  return o.result != Tk::F4 && o.left != Tk::F4 && o.right != Tk::F4 && !sql_spelling(op).empty();
}

std::string Generator::pattern_text() {
  if (sql_) {
    static const char* parts[] = {"a", "b", "c", "p", "r", "o", "e", "ss", "*", "*", "*o*", " "};
    std::string p;
    int n = 1 + int(rng_.below(4));
    for (int i = 0; i < n; ++i) p += parts[rng_.below(std::size(parts))];
    if (p.find('*') == std::string::npos) p += "*";
    return p;
  }
  static const char* parts[] = {"a", "b", "c", "p", "r", "o", " ", "*", "*", "?", "?", "[abc]", "[a-c]",
                                "[^a]", "[^a-m]", "[pr]", "\\*", "\\?", "\\[", "\\\\", "\\a", "e", "ss", "*o*"};
  std::string p;
  int n = 1 + int(rng_.below(4));
  for (int i = 0; i < n; ++i) p += parts[rng_.below(std::size(parts))];
  if (p.find_first_of("*?[\\") == std::string::npos) p += rng_.chance(50) ? "*" : "?";
  return p;
}

Generator::Typed Generator::leaf(Tk k, const std::vector<GVar>& vars) {
  if (k == Tk::B) {
    // A comparison of two leaves.
    static const Op cmp[] = {Op::EQ_I4, Op::NE_F8, Op::LT_I4, Op::LE_F4, Op::GT_F8, Op::GE_C, Op::EQ_C};
    Op c = cmp[rng_.below(std::size(cmp))];
    if (!allowed(c)) c = Op::LE_F8;
    Typed t = op_node(c, opt_.max_depth, vars);
    if (t.type.kind == k) return t;
    return smallest(k);
  }
  std::vector<std::pair<std::string, std::string>> attrs;  // (variable, attribute) stored as kind k
  for (const auto& v : vars)
    for (const auto& a : TestData::find(v.base)->attrs)
      if (a.second.kind == k) attrs.emplace_back(v.name, a.first);
  GPtr n;
  if (!attrs.empty() && rng_.chance(60)) {
    const auto& [var, a] = attrs[rng_.below(attrs.size())];
    n = make_attr(var, a);
  } else {
    switch (k) {
      case Tk::I1: n = make_cvt(Tk::I1, int_lit(kSmallInts[rng_.below(std::size(kSmallInts))])); break;
      case Tk::I2: n = int_lit(kSmallInts[rng_.below(std::size(kSmallInts))]); break;
      case Tk::I4: n = int_lit(kBigInts[rng_.below(std::size(kBigInts))]); break;
      case Tk::F4: n = make_cvt(Tk::F4, float_leaf(kFloats[rng_.below(std::size(kFloats)) % 18])); break;
      case Tk::F8: n = float_leaf(kFloats[rng_.below(std::size(kFloats))]); break;
      case Tk::C: n = string_lit(char_value()); break;
      case Tk::B: break;
    }
  }
  if (n)
    if (auto t = bound(std::move(n), vars); t && t->type.kind == k) return std::move(*t);
  return smallest(k);
}

Generator::Typed Generator::numeric(std::vector<Tk> kinds, int depth, const std::vector<GVar>& vars) {
  if (sql_) kinds.erase(std::remove(kinds.begin(), kinds.end(), Tk::F4), kinds.end());
  return typed(kinds[rng_.below(kinds.size())], depth, vars);
}

Generator::Typed Generator::op_node(Op row, int depth, const std::vector<GVar>& vars) {
  const ir::OpInfo& info = ir::op_info(row);
  const Generic g = info.generic;
  const int d = depth + 1;
  const Tk left = info.left;
  static const std::vector<Tk> kInts = {Tk::I1, Tk::I2, Tk::I4};
  static const std::vector<Tk> kNums = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8};
  // Operands of one kind choice, as many as the operator takes.
  auto operands = [&](auto&& one) {
    GPtr a = one().node;
    GPtr b = info.arity > 1 ? one().node : nullptr;
    return make_op(g, std::move(a), std::move(b));
  };
  GPtr n;
  switch (ir::generic_info(g).typing) {
    case ir::Typing::None:  // conversions (leaves are never picked)
      n = make_cvt(info.result, typed(left, d, vars).node);
      break;
    case ir::Typing::Keep:
      n = make_op(g, (left == Tk::I4 ? numeric(kInts, d, vars) : typed(left, d, vars)).node);
      break;
    case ir::Typing::Float8: n = operands([&] { return numeric(kNums, d, vars); }); break;
    case ir::Typing::Integer: n = operands([&] { return numeric(kInts, d, vars); }); break;
    case ir::Typing::Logic: n = operands([&] { return typed(Tk::B, d, vars); }); break;
    case ir::Typing::Ascii: n = make_op(g, typed(left, d, vars).node); break;
    case ir::Typing::Concat: n = operands([&] { return typed(Tk::C, d, vars); }); break;
    case ir::Typing::Compare:
      if (g == Generic::Match || g == Generic::NoMatch) {
        GPtr v = no_pattern(typed(Tk::C, d, vars).node);
        GPtr p = string_lit(pattern_text());
        const bool pattern_left = rng_.chance(20) && v->kind != GNode::Lit;
        n = pattern_left ? make_op(g, std::move(p), std::move(v)) : make_op(g, std::move(v), std::move(p));
        break;
      }
      if (left == Tk::C) {
        GPtr a = typed(Tk::C, d, vars).node, b = typed(Tk::C, d, vars).node;
        n = make_op(g, no_pattern(std::move(a)), no_pattern(std::move(b)));
        break;
      }
      [[fallthrough]];
    case ir::Typing::Numeric: {
      auto [a, b] = numeric_operands(rng_, left);
      if (sql_ && a == Tk::F4) a = Tk::F8;
      if (sql_ && b == Tk::F4) b = Tk::F8;
      if (left == Tk::F8 && a != Tk::F8 && b != Tk::F8) a = Tk::F8;
      GPtr x = typed(a, d, vars).node;
      n = make_op(g, std::move(x), typed(b, d, vars).node);
      break;
    }
  }
  if (auto t = bound(n->clone(), vars)) return std::move(*t);
  // Rejected (a concat too wide, say): the last operand as small as can be.
  if (n->kids.size() > 1) {
    if (ir::NodePtr last = bind_expr(*n->kids.back(), vars, TestData::catalog())) {
      n->kids.back() = simplest(last->type.kind);
      if (auto t = bound(std::move(n), vars)) return std::move(*t);
    }
  }
  return smallest(info.result);
}

Generator::Typed Generator::typed(Tk k, int depth, const std::vector<GVar>& vars) {
  const auto& rows = by_result_[size_t(k)];
  unsigned stop = unsigned(20 + depth * 20);
  if (depth >= opt_.max_depth || rows.empty() || (k != Tk::B && rng_.chance(std::min(stop, 90u))) ||
      (k == Tk::B && depth >= 2 && rng_.chance(50)))
    return leaf(k, vars);
  // Pick a generic operator first, so the many comparison rows do not drown and/or/not.
  std::vector<Generic> gens;
  for (Op op : rows) {
    if (!allowed(op)) continue;
    Generic g = ir::op_info(op).generic;
    if (std::find(gens.begin(), gens.end(), g) == gens.end()) gens.push_back(g);
  }
  if (gens.empty()) return leaf(k, vars);
  Generic g = gens[rng_.below(gens.size())];
  std::vector<Op> choice;
  for (Op op : rows)
    if (ir::op_info(op).generic == g && allowed(op)) choice.push_back(op);
  Typed t = op_node(choice[rng_.below(choice.size())], depth, vars);
  if (t.type.kind == k) return t;
  return leaf(k, vars);
}

GPtr Generator::expr(Tk k, int depth, const std::vector<GVar>& vars) { return typed(k, depth, vars).node; }

// `v.attr <op> literal`: what makes ISAM and hash variants use a key lookup
// or a key range. In a query of several variables, sometimes `v.attr <op>
// w.attr` or an expression of w: once w is substituted, a bound each
// execution computes from its parameters (and, where the expression raises,
// a full scan: engine/access_path.h).
GPtr Generator::key_conjunct(std::vector<GVar>& vars) {
  const size_t vi = rng_.below(vars.size());
  GVar& v = vars[vi];
  const GRelation* r = TestData::find(v.base);
  const auto& a = r->attrs[rng_.below(r->attrs.size())];
  v.key_hint = a.first;
  GPtr attr = make_attr(v.name, a.first);
  static const Generic cmp[] = {Generic::Eq, Generic::Eq, Generic::Eq, Generic::Lt, Generic::Le, Generic::Gt,
                                Generic::Ge, Generic::Ne};
  Generic g = cmp[rng_.below(std::size(cmp))];
  GPtr lit;
  if (vars.size() >= 2 && rng_.chance(40)) {
    const std::vector<GVar> w = {vars[(vi + 1 + rng_.below(vars.size() - 1)) % vars.size()]};
    if (a.second.kind == Tk::C) {
      const GRelation* wr = TestData::find(w[0].base);
      std::vector<std::string> chars;
      for (const auto& b : wr->attrs)
        if (b.second.kind == Tk::C) chars.push_back(b.first);
      lit = make_attr(w[0].name, chars[rng_.below(chars.size())]);
    } else if (rng_.chance(50)) {
      lit = expr(a.second.is_int() ? Tk::I4 : Tk::F8, 1, w);  // any expression: often raising, rarely equal
    } else {
      // w's same attribute where w ranges over the same relation (every row
      // then has a partner), shifted by 0 or 1, times 1 or negated: a bound
      // that finds rows, so a wrong one shows as a missing row.
      const GRelation* wr = TestData::find(w[0].base);
      std::string b = a.first;
      if (w[0].base != v.base) {
        std::vector<std::string> nums;
        for (const auto& c : wr->attrs)
          if (c.second.is_numeric()) nums.push_back(c.first);
        b = nums[rng_.below(nums.size())];
      }
      lit = make_attr(w[0].name, b);
      switch (rng_.below(4)) {
        case 0: lit = make_op(Generic::Add, std::move(lit), int_lit(rng_.below(2))); break;
        case 1: lit = make_op(Generic::Sub, std::move(lit), int_lit(rng_.below(2))); break;
        case 2: lit = make_op(Generic::Mul, std::move(lit), int_lit(1)); break;
        default: lit = make_op(Generic::Neg, std::move(lit)); break;
      }
    }
  } else if (a.second.kind == Tk::C) {
    lit = no_pattern(string_lit(char_value()));
  } else if (rng_.chance(70)) {
    int64_t v2 = rng_.chance(80) ? kSmallInts[rng_.below(std::size(kSmallInts))] : kBigInts[rng_.below(std::size(kBigInts))];
    lit = int_lit(v2);
    if (rng_.chance(30)) lit = make_op(Generic::Neg, std::move(lit));
  } else {
    lit = float_leaf(kFloats[rng_.below(std::size(kFloats))]);
  }
  GPtr n = rng_.chance(30) ? make_op(g, std::move(lit), std::move(attr)) : make_op(g, std::move(attr), std::move(lit));
  auto t = bound(std::move(n), vars);
  return t && t->type.kind == Tk::B ? std::move(t->node) : nullptr;
}

GQuery Generator::query() {
  GQuery q;
  sql_ = rng_.chance(opt_.sql_percent);
  int nvars = rng_.chance(opt_.two_vars_percent) ? 2 : 1;
  if (nvars == 2 && rng_.chance(opt_.three_vars_percent)) nvars = 3;  // over EDGE only: 22^3 combinations
  static const char* const kEdgeVars[] = {"e", "f", "g"};
  static const char* const kPartsVars[] = {"p", "q", "r"};
  for (int i = 0; i < nvars; ++i) {
    bool edge = nvars == 3 || rng_.chance(60);
    GVar v;
    v.base = edge ? "edge" : "parts";
    v.relation = v.base;
    v.name = edge ? kEdgeVars[i] : kPartsVars[i];
    q.vars.push_back(v);
  }
  static const Tk kTargetKinds[] = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8, Tk::C, Tk::I4, Tk::F8};
  if (rng_.chance(opt_.update_percent)) {
    int which = int(rng_.below(3));
    q.kind = which == 0 ? GQuery::Append : which == 1 ? GQuery::Replace : GQuery::Delete;
  }
  if (q.kind == GQuery::Retrieve) {
    int nt = 1 + int(rng_.below(uint64_t(opt_.max_targets)));
    for (int i = 0; i < nt; ++i) {
      Tk k = kTargetKinds[rng_.below(std::size(kTargetKinds))];
      if (sql_ && k == Tk::F4) k = Tk::F8;
      q.targets.emplace_back("t" + std::to_string(i + 1), expr(k, 1, q.vars));
    }
  } else if (q.kind == GQuery::Append || q.kind == GQuery::Replace) {
    const GRelation* r = q.kind == GQuery::Append ? &TestData::sink() : TestData::find(q.vars[0].base);
    if (q.kind == GQuery::Append) q.append_to = "sink";
    else q.update_var = q.vars[0].name;
    std::vector<size_t> cols;
    for (size_t i = 0; i < r->attrs.size(); ++i)
      if (rng_.chance(40)) cols.push_back(i);
    if (cols.empty()) cols.push_back(rng_.below(r->attrs.size()));
    for (size_t c : cols) {
      const Tk stored = r->attrs[c].second.kind;
      GPtr e = stored == Tk::C ? expr(Tk::C, 1, q.vars) : expr(kTargetKinds[rng_.below(5)], 1, q.vars);
      q.targets.emplace_back(r->attrs[c].first, std::move(e));
    }
  } else {
    q.update_var = q.vars[0].name;
  }
  if (rng_.chance(85) || q.kind == GQuery::Delete) {
    q.where = expr(Tk::B, 0, q.vars);
    if (rng_.chance(30)) {
      GPtr k = key_conjunct(q.vars);
      if (k)
        q.where = rng_.chance(70) ? make_op(Generic::And, std::move(k), std::move(q.where))
                                  : make_op(Generic::And, std::move(q.where), std::move(k));
    } else if (rng_.chance(10)) {
      if (GPtr k = key_conjunct(q.vars)) q.where = std::move(k);
    }
  }
  return q;
}

}  // namespace quelkit::difftest
