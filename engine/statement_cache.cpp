// The statement cache (statement_cache.h): the literal scan, which must read
// a text's literals exactly as frontend/lexer.re does (an entry is taken
// only where the parser's literal expressions agree with it, one for one),
// and the patching of a cached statement's values and positions.
#include "engine/statement_cache.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include <cmath>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/aggregate.h"
#include "engine/rows.h"
#include "frontend/frontend.h"
#include "frontend/ir.h"

namespace quelkit::harness {

using frontend::ast::Expr;
using frontend::ast::Stmt;

namespace {

// The scan's character classes, one table lookup a byte (it runs on every
// statement's text before the cache is looked up).
// kPlain: a byte the scan copies to the key as it is, none that starts a
// name, a string, a comment or a line, nor one that refuses the text ('.' is
// one: a number it starts is found at its first digit).
enum CharClass : uint8_t { kPlain, kLetter, kDigit, kOther };
constexpr std::array<uint8_t, 256> kClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[size_t(c)] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = kLetter;
  t[size_t('_')] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = kDigit;
  for (const char c : {'"', '/', '\n', '\\', '\x01', '\x02'}) t[uint8_t(c)] = kOther;
  return t;
}();
CharClass class_of(char c) { return CharClass(kClass[uint8_t(c)]); }
bool is_digit(char c) { return class_of(c) == kDigit; }
bool is_name_char(char c) { return class_of(c) == kLetter || class_of(c) == kDigit; }

// The first byte at or after i that the scan looks at: a digit or a kOther
// (blanks, operators, points and letters are copied to the key as they are;
// a digit in a name, or after a number's point, is told by the byte before
// it). Sixteen bytes a step where SSE2 is there, the last sixteen of the
// text overlapping the step before: a statement's text is mostly names and
// blanks.
size_t skip_plain(std::string_view t, size_t i) {
#if defined(__SSE2__)
  const size_t n = t.size();
  if (n >= 16) {
    auto looked_at = [](const char* p) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i m = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
      m = _mm_or_si128(m, _mm_and_si128(_mm_cmpgt_epi8(v, _mm_setzero_si128()),
                                        _mm_cmplt_epi8(v, _mm_set1_epi8(3))));  // \x01 \x02
      for (const char c : {'"', '/', '\n', '\\'}) m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
      return unsigned(_mm_movemask_epi8(m));
    };
    for (; i + 16 <= n; i += 16)
      if (const unsigned bits = looked_at(t.data() + i)) return i + size_t(__builtin_ctz(bits));
    if (i == n) return n;
    const unsigned bits = looked_at(t.data() + n - 16) >> (16 - (n - i));  // bytes before i dropped
    return bits ? i + size_t(__builtin_ctz(bits)) : n;
  }
#endif
  while (i < t.size() && (class_of(t[i]) == kPlain || class_of(t[i]) == kLetter)) ++i;
  return i;
}

// The type a literal binds to, as the key spells it.
void key_type(std::string& key, const TextLiteral& l) {
  char b[8] = {'\x01'};  // one append: the marker, the type, the marker
  size_t n = 1;
  switch (l.kind) {
    case TextLiteral::Int:
      b[n++] = 'i';
      b[n++] = frontend::int_literal_type(l.ival) == Type::i2() ? '2' : '4';
      break;
    case TextLiteral::Float:
      b[n++] = 'f';
      b[n++] = '8';
      break;
    case TextLiteral::String:  // at most 255 bytes: three digits
      b[n++] = 'c';
      n = size_t(std::to_chars(b + n, b + 6, l.text.size()).ptr - b);
      break;
  }
  b[n++] = '\x02';
  key.append(b, n);
}

// digits "." digits, at most 15 of them: the value m / 10^k of two doubles
// held exactly, so one division rounds it correctly (Clinger's fast path),
// as from_chars would; false for any other spelling (an exponent, more digits).
bool simple_decimal(std::string_view s, double* out) {
  if (s.size() > 16) return false;
  uint64_t m = 0;
  int frac = -1;
  for (const char c : s) {
    if (c == '.') {
      if (frac >= 0) return false;
      frac = 0;
      continue;
    }
    if (c < '0' || c > '9') return false;
    m = m * 10 + uint64_t(c - '0');
    if (frac >= 0) ++frac;
  }
  static constexpr double kTen[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
  *out = double(m) / kTen[frac < 0 ? 0 : frac];
  return true;
}

}  // namespace

const char* statement_cache_use_name(StatementCacheUse u) {
  switch (u) {
    case StatementCacheUse::None: return nullptr;
    case StatementCacheUse::Miss: return "miss";
    case StatementCacheUse::Parse: return "parse";
    case StatementCacheUse::Bind: return "bind";
    case StatementCacheUse::Plan: return "plan";
  }
  return nullptr;
}

bool normalise_text(std::string_view t, NormalisedText& n) {
  n.key.clear();
  if (t.size() > kMaxCachedText) {
    n.literals.clear();
    return false;
  }
  // The buffer's literals are rewritten in place, not made afresh: a string
  // literal's value keeps the capacity the last text's gave it.
  size_t used = 0;
  auto next_literal = [&]() -> TextLiteral& {
    if (used == n.literals.size()) n.literals.emplace_back();
    return n.literals[used++];
  };
  struct Trim {  // on every return: the literals this text has, no more
    NormalisedText& n;
    const size_t& used;
    ~Trim() { n.literals.resize(used); }
  } trim{n, used};
  n.key.reserve(t.size() + 16);
  uint32_t line = 1;
  size_t line_start = 0;
  const size_t end = t.size();
  auto pos_at = [&](size_t i) { return SrcPos{line, uint32_t(i - line_start + 1)}; };
  // The key is the text with its literals replaced: what lies between them
  // is copied in one piece, from `run` up to the next literal.
  size_t run = 0;
  auto put_literal = [&](size_t b, size_t e, const TextLiteral& l) {
    n.key.append(t.data() + run, b - run);
    key_type(n.key, l);
    run = e;
  };
  for (size_t i = 0; i < end;) {
    i = skip_plain(t, i);  // blanks, operators and names, kept
    if (i == end) break;
    // A digit after a name's byte is the name's (`p2`, `x1e5`): a number
    // takes every digit after it, and a string or comment ends in another
    // byte. One after a point the scan passed starts a number at the point
    // (`.5`): a number's own point it has taken with the number.
    if (is_digit(t[i]) && i > 0) {
      if (is_name_char(t[i - 1])) {
        while (i < end && is_name_char(t[i])) ++i;
        continue;
      }
      if (t[i - 1] == '.') --i;
    }
    const char c = t[i];
    const CharClass k = class_of(c);
    if (c == '\n') {
      ++i;
      ++line;
      line_start = i;
      continue;
    }
    if (c == '/') {
      if (i + 1 < end && t[i + 1] == '*') {  // a comment, kept whole (it may span lines)
        const size_t close = t.find("*/", i + 2);
        if (close == std::string_view::npos) return false;
        for (size_t q = i; q < close; ++q)
          if (t[q] == '\n') ++line, line_start = q + 1;
        i = close + 2;
      } else {
        ++i;
      }
      continue;
    }
    if (k == kDigit || (c == '.' && i + 1 < end && is_digit(t[i + 1]))) {
      // lexer.re: digit+ | digit+ "." digit* exponent? | "." digit+ exponent?
      // | digit+ exponent, the longest; a sign is an operator, never part of it.
      const size_t b = i;
      bool is_float = false;
      while (i < end && is_digit(t[i])) ++i;
      if (i < end && t[i] == '.') {
        is_float = true;
        ++i;
        while (i < end && is_digit(t[i])) ++i;
      }
      if (i < end && (t[i] == 'e' || t[i] == 'E')) {
        size_t q = i + 1;
        if (q < end && (t[q] == '+' || t[q] == '-')) ++q;
        if (q < end && is_digit(t[q])) {
          while (q < end && is_digit(t[q])) ++q;
          i = q;
          is_float = true;
        }
      }
      TextLiteral& l = next_literal();
      l.pos = pos_at(b);
      l.len = uint32_t(i - b);
      l.text.clear();
      if (is_float) {
        l.kind = TextLiteral::Float;
        l.ival = 0;
        if (!simple_decimal(t.substr(b, i - b), &l.fval)) {
          const auto r = std::from_chars(t.data() + b, t.data() + i, l.fval);
          if (r.ec != std::errc() || r.ptr != t.data() + i) return false;  // out of range: the lexer says so
        }
      } else {
        uint64_t v = 0;
        for (size_t q = b; q < i; ++q) v = std::min<uint64_t>(v * 10 + uint64_t(t[q] - '0'), uint64_t(1) << 40);
        if (v > 2147483647) return false;  // too large: the lexer says so
        l.kind = TextLiteral::Int;
        l.ival = int64_t(v);
        l.fval = 0;
      }
      put_literal(b, i, l);
      continue;
    }
    if (c == '"') {  // lexer.re's string_literal: only \" and \\ are escapes
      const size_t b = i++;
      TextLiteral& l = next_literal();
      std::string& value = l.text;
      value.clear();
      // Runs between escapes taken whole (most strings have none).
      for (;;) {
        size_t q = i;
        while (q < end && t[q] != '"' && t[q] != '\\' && t[q] != '\n') ++q;
        value.append(t.data() + i, q - i);
        i = q;
        if (i >= end || t[i] == '\n') return false;  // unterminated, or a newline in it
        if (t[i] == '"') {
          ++i;
          break;
        }
        // A backslash: an escape only before " or \.
        if (i + 1 < end && (t[i + 1] == '"' || t[i + 1] == '\\')) ++i;
        value += t[i++];
      }
      if (value.size() > 255) return false;
      if (value.find_first_of("*?[\\") != std::string::npos) {  // a pattern: its value is its shape, kept
        --used;
        continue;
      }
      l.kind = TextLiteral::String;
      l.pos = pos_at(b);
      l.len = uint32_t(i - b);
      l.ival = 0;
      l.fval = 0;
      put_literal(b, i, l);
      continue;
    }
    // A monitor command (\g, \i), or the key's own markers: not cached.
    return false;
  }
  n.key.append(t.data() + run, end - run);
  return true;
}

std::optional<NormalisedText> normalise_text(std::string_view t) {
  NormalisedText n;
  if (!normalise_text(t, n)) return std::nullopt;
  return n;
}

namespace {

// Every literal expression of an expression tree, in the parser's order.
void literal_exprs(Expr& e, std::vector<Expr*>& out) {
  if (e.kind == Expr::Int || e.kind == Expr::Float || e.kind == Expr::String) out.push_back(&e);
  for (auto& a : e.args) literal_exprs(*a, out);
  for (auto& a : e.by) literal_exprs(*a, out);
  if (e.qual) literal_exprs(*e.qual, out);
}

// A string the scan keeps in the key (frontend/binder.cpp's pattern literal).
bool is_pattern(const Expr& e) { return e.kind == Expr::String && e.text.find_first_of("*?[\\") != std::string::npos; }

bool before(SrcPos a, SrcPos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

bool same_value(const TextLiteral& l, const Expr& e) {
  switch (l.kind) {
    case TextLiteral::Int: return e.kind == Expr::Int && e.ival == l.ival;
    case TextLiteral::Float: return e.kind == Expr::Float && std::memcmp(&e.fval, &l.fval, sizeof l.fval) == 0;
    case TextLiteral::String: return e.kind == Expr::String && e.text == l.text;
  }
  return false;
}

// Where a statement's patterns are (the strings its key holds).
std::vector<SrcPos> pattern_positions(Stmt& s) {
  std::vector<Expr*> exprs;
  for (auto& t : s.targets)
    if (t.expr) literal_exprs(*t.expr, exprs);
  if (s.where) literal_exprs(*s.where, exprs);
  std::vector<SrcPos> out;
  for (const Expr* x : exprs)
    if (is_pattern(*x)) out.push_back(x->pos);
  return out;
}

// Moves positions from one text's literal layout to another's: a position
// after a literal on its line moves by the difference of their lengths.
struct Remap {
  const std::vector<TextLiteral>& from;
  const std::vector<TextLiteral>& to;
  void operator()(SrcPos& p) const {
    if (!p.line) return;
    int64_t d = 0;
    for (size_t i = 0; i < from.size(); ++i)
      if (from[i].pos.line == p.line && from[i].pos.col < p.col) d += int64_t(to[i].len) - int64_t(from[i].len);
    p.col = uint32_t(int64_t(p.col) + d);
  }
  void expr(Expr& e) const {
    (*this)(e.pos);
    for (auto& a : e.args) expr(*a);
    for (auto& a : e.by) expr(*a);
    if (e.qual) expr(*e.qual);
  }
  void node(ir::Node& n) const {
    (*this)(n.pos);
    for (auto& k : n.kid)
      if (k) node(*k);
  }
};

// A literal's value in a parameter slot of type t, as folding converts it
// (an implicit conversion of the literal folded, or none); false where
// folding would not (out of the type's range: it raises, and keeps the
// conversion) or the slot is of no type a literal converts to.
bool slot_value(const TextLiteral& l, Type t, ir::Value* v) {
  *v = ir::Value{};
  switch (l.kind) {
    case TextLiteral::Int:
      switch (t.kind) {
        case Tk::I1: v->i = l.ival; return l.ival >= -128 && l.ival <= 127;
        case Tk::I2: v->i = l.ival; return l.ival >= -32768 && l.ival <= 32767;
        case Tk::I4: v->i = l.ival; return true;
        case Tk::F4: v->f4 = float(l.ival); return true;
        case Tk::F8: v->f8 = double(l.ival); return true;
        default: return false;
      }
    case TextLiteral::Float:
      if (t.kind == Tk::F8) {
        v->f8 = l.fval;
        return true;
      }
      if (t.kind == Tk::F4 && std::isfinite(l.fval) && std::fabs(l.fval) <= std::numeric_limits<float>::max()) {
        v->f4 = float(l.fval);
        return true;
      }
      return false;
    case TextLiteral::String:
      v->s = l.text;
      return t.kind == Tk::C && t.len >= l.text.size();
  }
  return false;
}

// The literal constant under a chain of the binder's implicit conversions
// whose outermost is at `pos` (null if none): what folding made one
// constant of, at that conversion's position.
const ir::Node* converted_literal_at(const ir::Node& n, SrcPos pos) {
  if (n.implicit && n.pos == pos) {
    const ir::Node* c = n.kid[0].get();
    while (c && c->implicit) c = c->kid[0].get();
    if (c && c->op == ir::Op::CONST) return c;
  }
  for (const auto& k : n.kid)
    if (k)
      if (const ir::Node* c = converted_literal_at(*k, pos)) return c;
  return nullptr;
}

void collect_params(ir::Node& n, std::vector<ir::Node*>& out) {
  if (n.op == ir::Op::PARAM) out.push_back(&n);
  for (auto& k : n.kid)
    if (k) collect_params(*k, out);
}

void collect_consts(ir::Node& n, std::vector<ir::Node*>& out) {
  if (n.op == ir::Op::CONST) out.push_back(&n);
  for (auto& k : n.kid)
    if (k) collect_consts(*k, out);
}

}  // namespace

void StatementCache::check(const Against& now) {
  if (now.version == version_ && now.ranges == ranges_) return;
  map_.clear();  // the catalog, a range or a structure changed: every binding may be stale
  version_ = now.version;
  ranges_ = now.ranges;
}

CachedStatement* StatementCache::find(const std::string& key, const Against& now) {
  check(now);
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : it->second.get();
}

CachedStatement* StatementCache::adopt(const NormalisedText& n, frontend::ast::StmtPtr& stmt, const Against& now) {
  Stmt& s = *stmt;
  const bool query = s.kind == Stmt::Append || s.kind == Stmt::Replace || s.kind == Stmt::Delete ||
                     (s.kind == Stmt::Retrieve && s.relation.empty());
  // begin, end and abort have nothing to bind: their parse is all there is
  // to reuse (TP1 sends them around every transaction).
  const bool txn = s.kind == Stmt::Begin || s.kind == Stmt::End || s.kind == Stmt::Abort;
  if (!(query || (txn && n.literals.empty())) || has_aggregates(s)) return nullptr;
  std::vector<Expr*> nodes;
  for (auto& t : s.targets)
    if (t.expr) literal_exprs(*t.expr, nodes);
  if (s.where) literal_exprs(*s.where, nodes);
  // The scan keeps a pattern in the key: its expressions are not literals of it.
  std::erase_if(nodes, [](const Expr* e) { return is_pattern(*e); });
  std::sort(nodes.begin(), nodes.end(), [](const Expr* a, const Expr* b) { return before(a->pos, b->pos); });
  if (nodes.size() != n.literals.size()) return nullptr;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!(nodes[i]->pos == n.literals[i].pos) || !same_value(n.literals[i], *nodes[i])) return nullptr;
  check(now);
  if (map_.size() >= capacity_) map_.clear();  // texts of many shapes: start again rather than keep the oldest
  auto e = std::make_unique<CachedStatement>();
  e->stmt = std::move(stmt);
  e->nodes = std::move(nodes);
  e->literals = n.literals;
  CachedStatement* p = e.get();
  map_[n.key] = std::move(e);
  return p;
}

void patch_statement(CachedStatement& e, NormalisedText& n) {
  bool moved = false;
  for (size_t i = 0; i < e.literals.size(); ++i) moved = moved || e.literals[i].len != n.literals[i].len;
  if (moved) {
    const Remap r{e.literals, n.literals};
    Stmt& s = *e.stmt;
    // A statement's start and its update variable precede its literals or
    // follow them on their line: every position it holds moves alike.
    for (SrcPos* p : {&s.pos, &s.var_pos, &s.relation_pos, &s.file_pos, &s.key_pos}) r(*p);
    for (auto& p : s.relation_positions) r(p);
    for (auto& t : s.targets) {
      r(t.pos);
      if (t.expr) r.expr(*t.expr);
    }
    if (s.where) r.expr(*s.where);
    for (auto& k : s.sort) r(k.pos);
    int64_t d = 0;
    for (size_t i = 0; i < n.literals.size(); ++i) d += int64_t(n.literals[i].len) - int64_t(e.literals[i].len);
    s.end = size_t(int64_t(s.end) + d);
    if (e.bound) {
      frontend::BoundQuery& q = *e.bound;
      r(q.pos);
      r(q.update_pos);
      for (auto& v : q.vars) r(v.first_use);
      if (q.qual) r.node(*q.qual);
      for (auto& t : q.targets) {
        r(t.pos);
        if (t.expr) r.node(*t.expr);
      }
      for (auto& k : q.sort) r(k.pos);
    }
    if (e.plan) {
      Plan& p = e.plan->plan;
      for (ir::NodePtr* t : {&p.qual, &p.qual_folded})
        if (*t) r.node(**t);
      for (auto* v : {&p.targets, &p.targets_folded})
        for (auto& t : *v)
          if (t) r.node(*t);
    }
  }
  for (size_t i = 0; i < n.literals.size(); ++i) {
    const TextLiteral& l = n.literals[i];
    Expr& x = *e.nodes[i];
    x.ival = l.ival;
    x.fval = l.fval;
    x.text = l.text;
    x.pos = l.pos;
    if (!e.bound) continue;
    for (ir::Node* c : e.consts[i]) {
      if (l.kind == TextLiteral::Int) c->val.i = l.ival;
      else if (l.kind == TextLiteral::Float) c->val.f8 = l.fval;
      else c->val.s = l.text;
    }
  }
  if (e.plan) {
    PlanMemo& m = *e.plan;
    for (size_t i = 0; i < n.literals.size(); ++i)
      for (ir::Node* c : m.consts[i]) c->val = e.consts[i].front()->val;
    ir::Value v;
    for (const PlanMemo::Slot& sl : m.slots) {
      if (!slot_value(n.literals[sl.literal], sl.at.type, &v)) {
        // A value the slot cannot hold as folding would (an i2 slot, a
        // literal past it): folding keeps the conversion, another shape.
        e.plan.reset();
        e.plan_tried = false;
        break;
      }
      put_value(sl.at, v, m.plan.literal_block.data());
    }
  }
  e.literals.swap(n.literals);  // n's buffer keeps the old ones, cleared by the next scan
}

const frontend::BoundQuery* adopt_bound(CachedStatement& e, frontend::BoundQuery& q) {
  e.bind_tried = true;
  // The binder makes a constant only of a literal (frontend/binder.cpp), at
  // its position, of its type: a constant that is not so (a value the
  // binder computed) would keep the first text's value, so none may be.
  std::vector<ir::Node*> all;
  if (q.qual) collect_consts(*q.qual, all);
  for (auto& t : q.targets)
    if (t.expr) collect_consts(*t.expr, all);
  // A pattern's constant is the same in every text of the key, which holds it.
  const std::vector<SrcPos> patterns = pattern_positions(*e.stmt);
  std::vector<std::vector<ir::Node*>> per(e.literals.size());
  for (ir::Node* c : all) {
    size_t i = 0;
    while (i < e.literals.size() && !(e.literals[i].pos == c->pos)) ++i;
    if (i == e.literals.size()) {
      if (c->type.kind == Tk::C && std::find(patterns.begin(), patterns.end(), c->pos) != patterns.end()) continue;
      return nullptr;
    }
    const TextLiteral& l = e.literals[i];
    bool same = false;
    switch (l.kind) {
      case TextLiteral::Int: same = c->type == frontend::int_literal_type(l.ival) && c->val.i == l.ival; break;
      case TextLiteral::Float:
        same = c->type == Type::f8() && std::memcmp(&c->val.f8, &l.fval, sizeof l.fval) == 0;
        break;
      case TextLiteral::String: same = c->type == Type::c(unsigned(l.text.size())) && c->val.s == l.text; break;
    }
    if (!same) return nullptr;
    per[i].push_back(c);
  }
  for (const auto& v : per)
    if (v.empty()) return nullptr;  // a literal the binding does not hold as itself
  e.bound = std::move(q);
  e.consts = std::move(per);  // the nodes moved with their trees: the pointers hold
  e.plan.reset();
  e.plan_tried = false;
  return &*e.bound;
}

PlanMemo* adopt_plan(CachedStatement& e, Plan& plan, AccessSpec& acc, std::string& key, std::string& access,
                     const Relation* rel) {
  e.plan_tried = true;
  auto literal_at = [&](SrcPos p) {
    size_t i = 0;
    while (i < e.literals.size() && !(e.literals[i].pos == p)) ++i;
    return i;
  };
  // Key bounds read from the block (a literal is a parameter by now).
  for (const BoundSrc* b : {&acc.lo, &acc.hi})
    if (b->present && (!b->is_param || b->expr)) return nullptr;
  // The folded trees: no constant left of a literal (its value would stay),
  // each parameter slot one literal's value in its type.
  std::vector<ir::Node*> folded_consts, params;
  for (ir::NodePtr* t : {&plan.qual_folded})
    if (*t) collect_consts(**t, folded_consts), collect_params(**t, params);
  for (auto& t : plan.targets_folded)
    if (t) collect_consts(*t, folded_consts), collect_params(*t, params);
  for (const ir::Node* c : folded_consts) {
    const size_t i = literal_at(c->pos);
    // "" stays a constant (plan.h): one value, its type in the key.
    if (i < e.literals.size() && !(c->type == Type::c(0) && e.literals[i].kind == TextLiteral::String &&
                                   e.literals[i].text.empty()))
      return nullptr;
  }
  const std::vector<SrcPos> patterns = pattern_positions(*e.stmt);
  std::vector<const ir::Node*> unfolded_roots;
  if (plan.qual) unfolded_roots.push_back(plan.qual.get());
  for (auto& t : plan.targets)
    if (t) unfolded_roots.push_back(t.get());
  std::vector<PlanMemo::Slot> slots;
  std::vector<bool> has_slot(e.literals.size());
  std::vector<uint8_t> want;
  for (const Attribute& a : plan.params.attrs) {
    if (a.offset < plan.literal_at) continue;
    const ir::Node* use = nullptr;
    for (const ir::Node* p : params)
      if (p->offset == a.offset && p->type == a.type) use = p;
    if (!use) return nullptr;
    size_t i = literal_at(use->pos);
    if (i == e.literals.size()) {
      // A pattern's slot holds it whatever the text's literals (the key does).
      if (a.type.kind == Tk::C && std::find(patterns.begin(), patterns.end(), use->pos) != patterns.end()) continue;
      // An assignment's conversion of a literal, folded: the binder placed
      // it on the attribute assigned (its range error points there).
      const ir::Node* lit = nullptr;
      for (const ir::Node* t : unfolded_roots)
        if (const ir::Node* c = converted_literal_at(*t, use->pos)) lit = c;
      if (lit) i = literal_at(lit->pos);
      if (i == e.literals.size()) return nullptr;  // a value folding computed
    }
    ir::Value v;
    if (!slot_value(e.literals[i], a.type, &v)) return nullptr;
    Attribute at = a;
    at.offset -= plan.literal_at;
    want.assign(plan.literal_block.size(), 0);
    std::memcpy(want.data(), plan.literal_block.data(), want.size());
    put_value(at, v, want.data());
    if (std::memcmp(want.data() + at.offset, plan.literal_block.data() + at.offset, a.type.len) != 0) return nullptr;
    slots.push_back({i, at});
    has_slot[i] = true;
  }
  for (size_t i = 0; i < e.literals.size(); ++i)
    if (!has_slot[i] && !(e.literals[i].kind == TextLiteral::String && e.literals[i].text.empty()))
      return nullptr;  // folded away, or kept as a constant: its value shaped the plan
  // The unfolded trees (the 1976 interpreter's): their constants are the binding's.
  std::vector<ir::Node*> unfolded;
  if (plan.qual) collect_consts(*plan.qual, unfolded);
  for (auto& t : plan.targets)
    if (t) collect_consts(*t, unfolded);
  std::vector<std::vector<ir::Node*>> consts(e.literals.size());
  for (ir::Node* c : unfolded) {
    const size_t i = literal_at(c->pos);
    if (i == e.literals.size()) {
      // A pattern's (adopt_bound let no other through), the same in every text of the key.
      if (c->type.kind != Tk::C) return nullptr;
      continue;
    }
    const ir::Node* bound = e.consts[i].front();
    if (!(c->type == bound->type) || c->val.i != bound->val.i || c->val.f8 != bound->val.f8 ||
        c->val.s != bound->val.s)
      return nullptr;
    consts[i].push_back(c);
  }
  e.plan.emplace();
  PlanMemo& m = *e.plan;
  m.plan = std::move(plan);
  m.acc = std::move(acc);
  m.key = std::move(key);
  m.access = std::move(access);
  m.rel = rel;
  m.rel_version = rel ? rel->version() : 0;
  m.slots = std::move(slots);
  m.consts = std::move(consts);
  return &m;
}

}  // namespace quelkit::harness
