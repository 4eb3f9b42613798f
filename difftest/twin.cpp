// Literal twins (twin.h): other values of the same types and shape, for the
// generator's trees and for parsed corpus statements alike.
#include "difftest/twin.h"

#include <charconv>
#include <cctype>
#include <cmath>
#include <functional>

#include "difftest/gen.h"
#include "engine/backend.h"

namespace quelkit::difftest {

namespace {

uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr int64_t kI2Max = 32767, kI4Max = 2147483647;

}  // namespace

uint64_t twin_salt(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return mix(h);
}

int64_t other_int(int64_t v, uint64_t salt) {
  const uint64_t h = mix(salt ^ uint64_t(v));
  // An offset short of the class's size: never v itself.
  if (v >= 0 && v <= kI2Max) return (v + 1 + int64_t(h % 1000)) % (kI2Max + 1);
  if (v > kI2Max && v <= kI4Max) return kI2Max + 1 + (v - kI2Max + int64_t(h % 1000000)) % (kI4Max - kI2Max);
  return v;  // outside what a literal holds: left as written
}

double other_float(double v, uint64_t salt) {
  const uint64_t h = mix(salt ^ std::hash<double>{}(v));
  // Halving is exact and stays finite; a quarter step added to a moderate
  // value is exact too.
  if (!std::isfinite(v) || std::fabs(v) >= 1e15) return v / 2;
  if (v != 0 && std::fabs(v) < 1e-3) return v * 2;
  return v + 1 + 0.25 * double(h % 8);
}

std::string float_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (auto p = s.find("e+"); p != std::string::npos) s.erase(p + 1, 1);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string other_chars(const std::string& value, uint64_t salt) {
  std::string s = value;
  uint64_t h = mix(salt ^ twin_salt(value));
  bool in_class = false, escaped = false;
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (escaped) {
      escaped = false;
      continue;
    }
    if (c == '\\') escaped = true;
    else if (c == '[') in_class = true;
    else if (c == ']') in_class = false;
    if (in_class || !std::isalnum(u)) continue;
    h = mix(h);
    if (std::isdigit(u)) c = char('0' + (c - '0' + 1 + int(h % 9)) % 10);
    else if (std::islower(u)) c = char('a' + (c - 'a' + 1 + int(h % 25)) % 26);
    else c = char('A' + (c - 'A' + 1 + int(h % 25)) % 26);
  }
  // Nothing to change (blanks, punctuation): a letter at the first place
  // that is neither a pattern's character nor a blank the comparison strips.
  if (s == value)
    for (char& c : s)
      if (c != ' ' && c != '*' && c != '?' && c != '[' && c != ']' && c != '\\' && c != '^' && c != '-') {
        c = c == 'm' ? 'n' : 'm';
        break;
      }
  return s;
}

namespace {

// A generated literal's kind, from its text: "..." characters, digits an
// integer, anything else a float.
void twin_node(GNode& n, uint64_t salt, int* changed) {
  for (auto& k : n.kids) twin_node(*k, salt, changed);
  if (n.kind != GNode::Lit) return;
  if (n.text.size() && n.text[0] == '"') {
    if (n.value.empty()) return;
    GPtr t = Generator::string_lit(other_chars(n.value, salt));
    if (t->value == n.value) return;
    n.text = t->text;
    n.value = t->value;
    n.pattern = t->pattern;
  } else if (n.text.find_first_not_of("0123456789") == std::string::npos) {
    int64_t v = 0;
    std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    const int64_t w = other_int(v, salt);
    if (w == v) return;
    n.text = std::to_string(w);
  } else {
    double v = 0;
    std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    n.text = float_text(other_float(v, salt));
  }
  ++*changed;
}

// Literals of a parsed expression (one without an aggregate).
void twin_expr(frontend::ast::Expr& e, uint64_t salt, int* changed) {
  using frontend::ast::Expr;
  for (auto& a : e.args) twin_expr(*a, salt, changed);
  switch (e.kind) {
    case Expr::Int:
      if (int64_t w = other_int(e.ival, salt); w != e.ival) e.ival = w, ++*changed;
      break;
    case Expr::Float:
      e.fval = other_float(e.fval, salt);
      ++*changed;
      break;
    case Expr::String:
      if (!e.text.empty()) {
        e.text = other_chars(e.text, salt);
        ++*changed;
      }
      break;
    default: break;
  }
}

}  // namespace

std::vector<std::unique_ptr<harness::Runner>> cache_off_runners(harness::Session& s) {
  std::vector<std::unique_ptr<harness::Runner>> v;
  harness::RunnerOptions off;
  off.plan_cache = false;
  for (const auto& r : s.runners()) {
    const harness::PrepareOptions& po = r->prepare_options();
    v.push_back(std::make_unique<harness::Runner>(r->name(), r->mode(),
                                                  harness::find_backend(r->name())->make(r->mode(), po), off, po));
  }
  return v;
}

std::optional<GQuery> literal_twin(const GQuery& q, uint64_t salt) {
  GQuery t = q.clone();
  int changed = 0;
  if (t.where) twin_node(*t.where, salt, &changed);
  for (auto& [name, e] : t.targets) twin_node(*e, salt, &changed);
  if (!changed) return std::nullopt;
  return t;
}

int twin_literals(frontend::ast::Stmt& s, uint64_t salt) {
  using frontend::ast::Stmt;
  if (s.kind != Stmt::Retrieve && s.kind != Stmt::Append && s.kind != Stmt::Replace && s.kind != Stmt::Delete)
    return 0;
  int changed = 0;
  // Checked whole first: a statement with an aggregate is left as it is.
  std::function<bool(const frontend::ast::Expr&)> plain = [&](const frontend::ast::Expr& e) {
    if (e.kind == frontend::ast::Expr::Aggregate) return false;
    for (const auto& a : e.args)
      if (!plain(*a)) return false;
    return true;
  };
  for (const auto& t : s.targets)
    if (t.expr && !plain(*t.expr)) return 0;
  if (s.where && !plain(*s.where)) return 0;
  for (auto& t : s.targets)
    if (t.expr) twin_expr(*t.expr, salt, &changed);
  if (s.where) twin_expr(*s.where, salt, &changed);
  return changed;
}

}  // namespace quelkit::difftest
