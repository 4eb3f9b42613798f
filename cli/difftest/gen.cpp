// The random-query generator (gen.h). Every choice of operator starts from the
// typed rows of frontend/ops.def: to make a value of type T the generator
// picks a generic operator that has a row producing T, then a row, then
// operands of the types that make the binder pick exactly that row (the
// binder's rules: integers compute in i4, any f4 makes f4, any f8 makes f8).
#include "cli/difftest/gen.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "frontend/frontend.h"

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

// ---- nodes ----

GPtr GNode::clone() const {
  auto n = std::make_unique<GNode>();
  n->kind = kind;
  n->op = op;
  n->type = type;
  n->text = text;
  n->value = value;
  n->pattern = pattern;
  n->pattern_left = pattern_left;
  n->var = var;
  n->attr = attr;
  for (const auto& k : kids) n->kids.push_back(k->clone());
  return n;
}

int GNode::operators() const {
  int n = kind == Op ? 1 : 0;
  for (const auto& k : kids) n += k->operators();
  return n;
}

int GNode::size() const {
  int n = 1;
  for (const auto& k : kids) n += k->size();
  return n;
}

static const char* cvt_function(Tk to) {
  switch (to) {
    case Tk::I1: return "int1";
    case Tk::I2: return "int2";
    case Tk::I4: return "int4";
    case Tk::F4: return "float4";
    case Tk::F8: return "float8";
    default: return "?";
  }
}

std::string quel_text(const GNode& n) {
  if (n.kind == GNode::Lit) return n.text;
  if (n.kind == GNode::Attr) return n.var + "." + n.attr;
  const ir::OpInfo& info = ir::op_info(n.op);
  auto k = [&](int i) { return quel_text(*n.kids[size_t(i)]); };
  auto bin = [&](const char* op) { return "(" + k(0) + " " + op + " " + k(1) + ")"; };
  auto call = [&](const char* f) {
    std::string s = std::string(f) + "(" + k(0);
    if (n.kids.size() > 1) s += ", " + k(1);
    return s + ")";
  };
  switch (info.generic) {
    case Generic::Const:
    case Generic::Attr:
    case Generic::Param: return "?";  // leaves are Lit/Attr nodes
    case Generic::Cvt: return call(cvt_function(n.type.kind));
    case Generic::Neg: return "(-" + k(0) + ")";
    case Generic::Add: return bin("+");
    case Generic::Sub: return bin("-");
    case Generic::Mul: return bin("*");
    case Generic::Div: return bin("/");
    case Generic::Pow: return bin("**");
    case Generic::Mod: return call("mod");
    case Generic::Eq: return bin("=");
    case Generic::Ne: return bin("!=");
    case Generic::Lt: return bin("<");
    case Generic::Le: return bin("<=");
    case Generic::Gt: return bin(">");
    case Generic::Ge: return bin(">=");
    case Generic::Match:
    case Generic::NoMatch: {
      const char* op = info.generic == Generic::Match ? " = " : " != ";
      return n.pattern_left ? "(" + k(1) + op + k(0) + ")" : "(" + k(0) + op + k(1) + ")";
    }
    case Generic::And: return bin("and");
    case Generic::Or: return bin("or");
    case Generic::Not: return "(not " + k(0) + ")";
    case Generic::Abs: return call("abs");
    case Generic::Sqrt: return call("sqrt");
    case Generic::Log: return call("log");
    case Generic::Exp: return call("exp");
    case Generic::Sin: return call("sin");
    case Generic::Cos: return call("cos");
    case Generic::Atan: return call("atan");
    case Generic::Ascii: return call("ascii");
    case Generic::Concat: return call("concat");
  }
  return "?";
}

GQuery GQuery::clone() const {
  GQuery q;
  q.kind = kind;
  q.vars = vars;
  for (const auto& [name, e] : targets) q.targets.emplace_back(name, e->clone());
  if (where) q.where = where->clone();
  q.update_var = update_var;
  q.append_to = append_to;
  return q;
}

int GQuery::operators() const {
  int n = where ? where->operators() : 0;
  for (const auto& t : targets) n += t.second->operators();
  return n;
}

std::string GQuery::ranges_text() const {
  std::string s;
  for (const auto& v : vars) s += "range of " + v.name + " is " + v.relation + "\n";
  return s;
}

std::string GQuery::statement_text() const {
  std::string s;
  auto list = [&] {
    std::string l = "(";
    for (size_t i = 0; i < targets.size(); ++i)
      l += (i ? ", " : "") + targets[i].first + " = " + quel_text(*targets[i].second);
    return l + ")";
  };
  switch (kind) {
    case Retrieve: s = "retrieve " + list(); break;
    case Append: s = "append to " + append_to + " " + list(); break;
    case Replace: s = "replace " + update_var + " " + list(); break;
    case Delete: s = "delete " + update_var; break;
  }
  if (where) s += "\nwhere " + quel_text(*where);
  return s + "\n";
}

// ---- test data ----

namespace {

struct EdgeRow {
  const char *id, *i1, *i2, *i4, *f4, *f8, *c1, *c12;
};

// Every row is a QUEL literal expression (negative numbers are unary minus,
// -2147483648 is written as -2147483647 - 1: 2147483648 is no i4 literal).
const EdgeRow kEdge[] = {
    {"1", "0", "0", "0", "0.0", "0.0", "\"a\"", "\"\""},
    {"2", "1", "1", "1", "1.0", "1.0", "\"b\"", "\"a\""},
    {"3", "-1", "-1", "-1", "-1.0", "-1.0", "\"z\"", "\"abc\""},
    {"4", "127", "32767", "2147483647", "3.4028234663852886e38", "1.7976931348623157e308", "\"~\"", "\"ABC\""},
    {"5", "-128", "-32768", "-2147483647 - 1", "-3.4028234663852886e38", "-1.7976931348623157e308", "\" \"",
     "\" abc\""},
    {"6", "2", "2", "2", "-0.0", "-0.0", "\"*\"", "\"a*b?[c]\\\\\""},
    {"7", "100", "10000", "1000000000", "1.401298464324817e-45", "5e-324", "\"?\"", "\"processor\""},
    {"8", "-100", "-10000", "-1000000000", "1.1754943508222875e-38", "2.2250738585072014e-308", "\"[\"",
     "\"black\""},
    {"9", "64", "181", "46340", "0.1", "0.1", "\"\\\\\"", "\"\xc3\xa9t\xc3\xa9\""},
    {"10", "3", "182", "46341", "16777216.0", "9007199254740992.0", "\"A\"", "\"red\""},
    {"11", "7", "-7", "-46341", "16777217.0", "9007199254740993.0", "\"\\\"\"", "\"x\\\"y\""},
    {"12", "10", "255", "65536", "0.5", "2.5", "\"0\"", "\"2.5\""},
    {"13", "-10", "256", "65535", "1.5", "-2.5", "\"9\"", "\"zzzzzzzzzzzz\""},
    {"14", "5", "1000", "2147483646", "2147483648.0", "2147483647.5", "\"a\"", "\"Processor\""},
    {"15", "-5", "-1000", "-2147483647", "-2147483648.0", "-2147483648.9", "\"b\"", "\"a b\""},
    {"16", "126", "32766", "100000", "127.5", "128.0", "\"c\"", "\"abc  \""},
    {"17", "-127", "-32767", "-100000", "-128.5", "-128.99", "\"d\"", "\"ab\""},
    {"18", "50", "5000", "123456789", "1e10", "1e300", "\"e\"", "\"abd\""},
    {"19", "-50", "-5000", "-123456789", "3.0", "1e-300", "\"f\"", "\"b\""},
    {"20", "0", "0", "0", "0.0", "0.0", "\"a\"", "\"\""},
    {"21", "1", "2", "3", "0.25", "0.75", "\"g\"", "\"a\t\""},
    {"22", "99", "99", "99", "99.0", "99.0", "\"h\"", "\"hello world!\""},
};
constexpr int kEdgeHeld = 6;  // the last rows go to overflow pages of the keyed variants

const char* kEdgeAttrs[] = {"id", "i1", "i2", "i4", "f4", "f8", "c1", "c12"};

std::string edge_columns() { return "id = i2, i1 = i1, i2 = i2, i4 = i4, f4 = f4, f8 = f8, c1 = c1, c12 = c12"; }

std::string edge_append(const std::string& rel, const EdgeRow& r) {
  const char* v[] = {r.id, r.i1, r.i2, r.i4, r.f4, r.f8, r.c1, r.c12};
  std::string s = "append to " + rel + " (";
  for (int i = 0; i < 8; ++i) s += std::string(i ? ", " : "") + kEdgeAttrs[i] + " = " + v[i];
  return s + ")\n";
}

// A keyed copy of a base relation: the first rows, modify, then the held-back
// rows, which land in overflow pages (the paper's keyed setup, in miniature).
std::string keyed_copy(const std::string& rel, const std::string& base, const std::string& var,
                       const std::vector<std::string>& attrs, const std::string& structure, const std::string& key,
                       const std::string& held_where) {
  std::string list;
  for (size_t i = 0; i < attrs.size(); ++i) list += (i ? ", " : "") + var + "." + attrs[i];
  std::string assign;
  for (size_t i = 0; i < attrs.size(); ++i) assign += (i ? ", " : "") + attrs[i] + " = " + var + "." + attrs[i];
  return "range of " + var + " is " + base + "\nretrieve into " + rel + " (" + list + ") where not (" + held_where +
         ")\nmodify " + rel + " to " + structure + " on " + key + "\nappend to " + rel + " (" + assign + ") where " +
         held_where + "\n";
}

}  // namespace

const std::vector<std::string>& TestData::edge_attr_names() {
  static const std::vector<std::string> v(std::begin(kEdgeAttrs), std::end(kEdgeAttrs));
  return v;
}

const std::vector<TestData::Setup>& TestData::setup() {
  static const std::vector<Setup> v = [] {
    std::vector<Setup> s;
    // PARTS comes from --parts; holes in its pages too.
    s.push_back({"parts", "parts", "range of x is parts\ndelete x where mod(x.pnum, 17) = 0\n"});
    // Deleted tuples leave holes in the pages (line entries 0) that scans and
    // fused kernels must skip, with tuple ordinals in errors unchanged.
    std::string edge = "create edge (" + edge_columns() + ")\n";
    int n = 0;
    for (const auto& r : kEdge) {
      edge += edge_append("edge", r);
      if (++n % 3 == 0)
        edge += "append to edge (id = " + std::to_string(100 + n) + ", i1 = 0, i2 = 0, i4 = 0, f4 = 0.0, f8 = 0.0, "
                "c1 = \"-\", c12 = \"deleted\")\n";
    }
    edge += "range of x is edge\ndelete x where x.id >= 100\n";
    s.push_back({"edge", "edge", edge});
    const std::vector<std::string> ea(std::begin(kEdgeAttrs), std::end(kEdgeAttrs));
    const std::string held = "x.id > " + std::to_string(std::size(kEdge) - kEdgeHeld);
    for (auto [st, key] : std::vector<std::pair<std::string, std::string>>{
             {"isam", "i1"}, {"hash", "i2"}, {"isam", "i4"}, {"hash", "f4"},
             {"isam", "f8"}, {"hash", "c12"}, {"isam", "c12"}, {"hash", "c1"}}) {
      std::string rel = "edge_" + st + "_" + key;
      s.push_back({rel, "edge", keyed_copy(rel, "edge", "x", ea, st, key, held)});
    }
    const std::vector<std::string> pa = {"pnum", "pname", "color", "weight", "qoh"};
    const std::string pheld = "x.pnum > 85 or mod(x.pnum, 13) = 0";
    for (auto [st, key] : std::vector<std::pair<std::string, std::string>>{
             {"isam", "pnum"}, {"hash", "pnum"}, {"isam", "pname"}, {"hash", "qoh"}}) {
      std::string rel = "parts_" + st + "_" + key;
      s.push_back({rel, "parts", keyed_copy(rel, "parts", "x", pa, st, key, pheld)});
    }
    s.push_back({"sink", "", "create sink (i1 = i1, i2 = i2, i4 = i4, f4 = f4, f8 = f8, c12 = c12)\n"});
    return s;
  }();
  return v;
}

const std::vector<GRelation>& TestData::relations() {
  static const std::vector<GRelation> v = [] {
    std::vector<GRelation> r;
    const std::vector<std::pair<std::string, GType>> edge = {
        {"id", {Tk::I2, 2}}, {"i1", {Tk::I1, 1}}, {"i2", {Tk::I2, 2}}, {"i4", {Tk::I4, 4}},
        {"f4", {Tk::F4, 4}}, {"f8", {Tk::F8, 8}}, {"c1", {Tk::C, 1}},  {"c12", {Tk::C, 12}}};
    const std::vector<std::pair<std::string, GType>> parts = {
        {"pnum", {Tk::I2, 2}}, {"pname", {Tk::C, 20}}, {"color", {Tk::C, 8}}, {"weight", {Tk::I2, 2}},
        {"qoh", {Tk::I2, 2}}};
    r.push_back({"parts", "parts", parts});
    for (const auto& s : setup()) {
      if (s.base == "edge") r.push_back({s.relation, "edge", edge});
      if (s.base == "parts" && s.relation != "parts") r.push_back({s.relation, "parts", parts});
    }
    return r;
  }();
  return v;
}

const GRelation* TestData::find(const std::string& name) {
  for (const auto& r : relations())
    if (r.name == name) return &r;
  return nullptr;
}

const GRelation& TestData::sink() {
  static const GRelation s{"sink", "", {{"i1", {Tk::I1, 1}}, {"i2", {Tk::I2, 2}}, {"i4", {Tk::I4, 4}},
                                        {"f4", {Tk::F4, 4}}, {"f8", {Tk::F8, 8}}, {"c12", {Tk::C, 12}}}};
  return s;
}

// ---- literals ----

GPtr Generator::int_lit(int64_t v) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->text = std::to_string(v);
  n->type = v <= 32767 ? GType{Tk::I2, 2} : GType{Tk::I4, 4};
  return n;
}

GPtr Generator::float_lit(const std::string& text) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->text = text;
  n->type = {Tk::F8, 8};
  return n;
}

GPtr Generator::string_lit(const std::string& value) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Lit;
  n->value = value;
  n->text = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') n->text += '\\';
    n->text += c;
  }
  n->text += "\"";
  n->type = {Tk::C, uint8_t(value.size())};
  n->pattern = value.find_first_of("*?[\\") != std::string::npos;
  return n;
}

static GPtr make_op(Op op, GType t, GPtr a = nullptr, GPtr b = nullptr) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Op;
  n->op = op;
  n->type = t;
  if (a) n->kids.push_back(std::move(a));
  if (b) n->kids.push_back(std::move(b));
  return n;
}

static GType gtype(Tk k) {
  switch (k) {
    case Tk::I1: return {Tk::I1, 1};
    case Tk::I2: return {Tk::I2, 2};
    case Tk::I4: return {Tk::I4, 4};
    case Tk::F4: return {Tk::F4, 4};
    case Tk::F8: return {Tk::F8, 8};
    case Tk::C: return {Tk::C, 1};
    case Tk::B: return {Tk::B, 1};
  }
  return {};
}

// A row's type; leaves' rows (no type of their own) count as conditions.
static Tk tk_of(Tk c) { return c == kNoTk ? Tk::B : c; }

GPtr Generator::simplest(GType t) {
  switch (t.kind) {
    case Tk::I1: {
      Op op;
      ir::cvt_op(Tk::I2, Tk::I1, &op);
      return make_op(op, t, int_lit(1));
    }
    case Tk::I2: return int_lit(1);
    case Tk::I4: return int_lit(32768);
    case Tk::F4: {
      Op op;
      ir::cvt_op(Tk::F8, Tk::F4, &op);
      return make_op(op, t, float_lit("1.0"));
    }
    case Tk::F8: return float_lit("1.0");
    case Tk::C: return string_lit("a");
    case Tk::B: return make_op(Op::EQ_I4, t, int_lit(1), int_lit(1));
  }
  return int_lit(1);
}

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

}  // namespace

Generator::Generator(uint64_t seed, GenOptions opt) : rng_(seed), opt_(opt), by_result_(7) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& info = ir::op_info(Op(i));
    if (info.arity == 0) continue;  // leaves: literals and attributes
    by_result_[size_t(tk_of(info.result))].push_back(Op(i));
  }
}

std::string Generator::char_value() {
  return kChars[rng_.below(std::size(kChars))];
}

bool Generator::allowed(Op op) const {
  if (!sql_) return true;
  const ir::OpInfo& o = ir::op_info(op);
  return o.result != Tk::F4 && o.left != Tk::F4 && o.right != Tk::F4 && o.generic != Generic::Ascii &&
         o.generic != Generic::Concat;
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

// A float literal as written: -0.0 is unary minus on 0.0.
static GPtr float_leaf(const std::string& f) {
  if (f[0] != '-') return Generator::float_lit(f);
  Op op;
  ir::typed_op(Generic::Neg, Tk::F8, &op);
  return make_op(op, {Tk::F8, 8}, Generator::float_lit(f.substr(1)));
}

GPtr Generator::leaf(GType t, const std::vector<GVar>& vars) {
  std::vector<std::pair<std::string, std::pair<std::string, GType>>> attrs;
  for (const auto& v : vars) {
    const GRelation* r = TestData::find(v.base);
    for (const auto& a : r->attrs)
      if (a.second.kind == t.kind) attrs.push_back({v.name, a});
  }
  if (t.kind == Tk::B) {
    // A comparison of two leaves.
    static const Op cmp[] = {Op::EQ_I4, Op::NE_F8, Op::LT_I4, Op::LE_F4, Op::GT_F8, Op::GE_C, Op::EQ_C};
    Op c = cmp[rng_.below(std::size(cmp))];
    if (!allowed(c)) c = Op::LE_F8;
    return op_node(c, opt_.max_depth, vars);
  }
  if (!attrs.empty() && rng_.chance(60)) {
    const auto& [var, a] = attrs[rng_.below(attrs.size())];
    auto n = std::make_unique<GNode>();
    n->kind = GNode::Attr;
    n->var = var;
    n->attr = a.first;
    n->type = a.second;
    return n;
  }
  switch (t.kind) {
    case Tk::I1: {
      Op op;
      ir::cvt_op(Tk::I2, Tk::I1, &op);
      return make_op(op, t, int_lit(kSmallInts[rng_.below(std::size(kSmallInts))]));
    }
    case Tk::I2: return int_lit(kSmallInts[rng_.below(std::size(kSmallInts))]);
    case Tk::I4: return int_lit(kBigInts[rng_.below(std::size(kBigInts))]);
    case Tk::F4: {
      Op op;
      ir::cvt_op(Tk::F8, Tk::F4, &op);
      return make_op(op, t, float_leaf(kFloats[rng_.below(std::size(kFloats)) % 18]));
    }
    case Tk::F8: return float_leaf(kFloats[rng_.below(std::size(kFloats))]);
    case Tk::C: return string_lit(char_value());
    case Tk::B: break;
  }
  return simplest(t);
}

// Operands of a numeric operator computing in class k: i4 takes any integers;
// f4 needs one f4 side (the other f4 or an integer); f8 one f8 side.
static std::pair<Tk, Tk> numeric_operands(Rng& rng, Tk k) {
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

GPtr Generator::numeric(std::vector<Tk> kinds, int depth, const std::vector<GVar>& vars) {
  if (sql_) kinds.erase(std::remove(kinds.begin(), kinds.end(), Tk::F4), kinds.end());
  return expr(gtype(kinds[rng_.below(kinds.size())]), depth, vars);
}

GPtr Generator::op_node(Op op, int depth, const std::vector<GVar>& vars) {
  const ir::OpInfo& info = ir::op_info(op);
  const int d = depth + 1;
  const Tk left = tk_of(info.left);
  GType result = gtype(tk_of(info.result));
  static const std::vector<Tk> kInts = {Tk::I1, Tk::I2, Tk::I4};
  static const std::vector<Tk> kNums = {Tk::I1, Tk::I2, Tk::I4, Tk::F4, Tk::F8};
  switch (info.generic) {
    case Generic::Const:
    case Generic::Attr:
    case Generic::Param: break;
    case Generic::Cvt: return make_op(op, result, expr(gtype(left), d, vars));
    case Generic::Neg:
    case Generic::Abs:
      if (left == Tk::I4) return make_op(op, result, numeric(kInts, d, vars));
      return make_op(op, result, expr(gtype(left), d, vars));
    case Generic::Add:
    case Generic::Sub:
    case Generic::Mul:
    case Generic::Div:
    case Generic::Eq:
    case Generic::Ne:
    case Generic::Lt:
    case Generic::Le:
    case Generic::Gt:
    case Generic::Ge: {
      if (left == Tk::C) {
        GPtr a = expr({Tk::C, 1}, d, vars), b = expr({Tk::C, 1}, d, vars);
        // A literal with pattern characters would make = a pattern match.
        for (GPtr* x : {&a, &b})
          if ((*x)->kind == GNode::Lit && (*x)->pattern) *x = string_lit("abc");
        return make_op(op, result, std::move(a), std::move(b));
      }
      auto [a, b] = numeric_operands(rng_, left);
      if (sql_ && a == Tk::F4) a = Tk::F8;
      if (sql_ && b == Tk::F4) b = Tk::F8;
      if (left == Tk::F8 && a != Tk::F8 && b != Tk::F8) a = Tk::F8;
      return make_op(op, result, expr(gtype(a), d, vars), expr(gtype(b), d, vars));
    }
    case Generic::Pow: return make_op(op, result, numeric(kNums, d, vars), numeric(kNums, d, vars));
    case Generic::Mod: return make_op(op, result, numeric(kInts, d, vars), numeric(kInts, d, vars));
    case Generic::Match:
    case Generic::NoMatch: {
      GPtr v = expr({Tk::C, 1}, d, vars);
      if (v->kind == GNode::Lit && v->pattern) v = string_lit("abc");
      GPtr n = make_op(op, result, std::move(v), string_lit(pattern_text()));
      n->pattern_left = rng_.chance(20) && n->kids[0]->kind != GNode::Lit;
      return n;
    }
    case Generic::And:
    case Generic::Or: return make_op(op, result, expr(result, d, vars), expr(result, d, vars));
    case Generic::Not: return make_op(op, result, expr(result, d, vars));
    case Generic::Sqrt:
    case Generic::Log:
    case Generic::Exp:
    case Generic::Sin:
    case Generic::Cos:
    case Generic::Atan: return make_op(op, result, numeric(kNums, d, vars));
    case Generic::Ascii: {
      static const uint8_t width[] = {6, 6, 11, 15, 24};
      result.len = width[int(left)];
      return make_op(op, result, expr(gtype(left), d, vars));
    }
    case Generic::Concat: {
      GPtr a = expr({Tk::C, 1}, d, vars), b = expr({Tk::C, 1}, d, vars);
      if (a->type.len + b->type.len > 255) b = string_lit("x");
      result.len = uint8_t(a->type.len + b->type.len);
      return make_op(op, result, std::move(a), std::move(b));
    }
  }
  return simplest(result);
}

GPtr Generator::expr(GType t, int depth, const std::vector<GVar>& vars) {
  const auto& rows = by_result_[size_t(t.kind)];
  unsigned stop = unsigned(20 + depth * 20);
  if (depth >= opt_.max_depth || rows.empty() || (t.kind != Tk::B && rng_.chance(std::min(stop, 90u))) ||
      (t.kind == Tk::B && depth >= 2 && rng_.chance(50)))
    return leaf(t, vars);
  // Pick a generic operator first, so the 26 comparison rows do not drown and/or/not.
  std::vector<Generic> gens;
  for (Op op : rows) {
    if (!allowed(op)) continue;
    Generic g = ir::op_info(op).generic;
    if (std::find(gens.begin(), gens.end(), g) == gens.end()) gens.push_back(g);
  }
  if (gens.empty()) return leaf(t, vars);
  Generic g = gens[rng_.below(gens.size())];
  std::vector<Op> choice;
  for (Op op : rows)
    if (ir::op_info(op).generic == g && allowed(op)) choice.push_back(op);
  return op_node(choice[rng_.below(choice.size())], depth, vars);
}

GPtr Generator::bool_expr(int depth, const std::vector<GVar>& vars) { return expr({Tk::B, 1}, depth, vars); }

// `v.attr <op> literal`: what makes ISAM and hash variants use a key lookup
// or a key range.
GPtr Generator::key_conjunct(const std::vector<GVar>& vars) {
  const GVar& v = vars[rng_.below(vars.size())];
  const GRelation* r = TestData::find(v.base);
  const auto& a = r->attrs[rng_.below(r->attrs.size())];
  auto attr = std::make_unique<GNode>();
  attr->kind = GNode::Attr;
  attr->var = v.name;
  attr->attr = a.first;
  attr->type = a.second;
  static const Generic cmp[] = {Generic::Eq, Generic::Eq, Generic::Eq, Generic::Lt, Generic::Le, Generic::Gt,
                                Generic::Ge, Generic::Ne};
  Generic g = cmp[rng_.below(std::size(cmp))];
  GPtr lit;
  Tk cls;
  if (a.second.kind == Tk::C) {
    lit = string_lit(char_value());
    if (lit->pattern) lit = string_lit("abc");
    cls = Tk::C;
  } else if (rng_.chance(70)) {
    int64_t v2 = rng_.chance(80) ? kSmallInts[rng_.below(std::size(kSmallInts))] : kBigInts[rng_.below(std::size(kBigInts))];
    lit = int_lit(v2);
    cls = a.second.kind == Tk::F8 ? Tk::F8 : a.second.kind == Tk::F4 ? Tk::F4 : Tk::I4;
    if (rng_.chance(30)) {
      Op neg;
      ir::typed_op(Generic::Neg, Tk::I4, &neg);
      lit = make_op(neg, {Tk::I4, 4}, std::move(lit));
    }
  } else {
    lit = float_leaf(kFloats[rng_.below(std::size(kFloats))]);
    cls = Tk::F8;
  }
  Op op;
  ir::typed_op(g, cls, &op);
  if (rng_.chance(30)) return make_op(op, {Tk::B, 1}, std::move(lit), std::move(attr));
  return make_op(op, {Tk::B, 1}, std::move(attr), std::move(lit));
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
      q.targets.emplace_back("t" + std::to_string(i + 1), expr(gtype(k), 1, q.vars));
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
      GType t = r->attrs[c].second;
      GPtr e = t.kind == Tk::C ? expr({Tk::C, 1}, 1, q.vars)
                               : expr(gtype(kTargetKinds[rng_.below(5)]), 1, q.vars);
      q.targets.emplace_back(r->attrs[c].first, std::move(e));
    }
  } else {
    q.update_var = q.vars[0].name;
  }
  if (rng_.chance(85) || q.kind == GQuery::Delete) {
    q.where = bool_expr(0, q.vars);
    if (rng_.chance(30)) {
      GPtr k = key_conjunct(q.vars);
      q.where = rng_.chance(70) ? make_op(Op::AND, {Tk::B, 1}, std::move(k), std::move(q.where))
                                : make_op(Op::AND, {Tk::B, 1}, std::move(q.where), std::move(k));
    } else if (rng_.chance(10)) {
      q.where = key_conjunct(q.vars);
    }
  }
  // A variable that appears nowhere is still a variable of the query (a
  // cartesian factor); keep that rare by mentioning the second one.
  return q;
}

// ---- coverage ----

void Coverage::add(const ir::Node& n) {
  ++ops[size_t(n.op)];
  for (const auto& k : n.kid)
    if (k) add(*k);
}

std::vector<std::string> Coverage::missing() const {
  std::vector<std::string> m;
  for (int i = 0; i < ir::kNumOps; ++i)
    if (!ops[size_t(i)] && Op(i) != Op::PARAM) m.push_back(ir::op_name(Op(i)));
  return m;
}

}  // namespace quelkit::difftest
