// The differential checker, the shrinker and the reproducer (check.h).
#include "cli/difftest/check.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "cli/difftest/corpus.h"
#include "cli/difftest/sqlite_oracle.h"
#include "frontend/frontend.h"
#include "harness/parts.h"
#include "harness/rows.h"

namespace quelkit::difftest {

using harness::Result;
using harness::result_difference;
using ir::Generic;
using ir::Op;

// The second text of a statement run twice: another line, another column.
static const char* const kAgain = "\n\n   ";

// ---- comparing results ----

static std::vector<std::string> sorted_rows(const Result& r) {
  std::vector<std::string> v;
  const uint32_t len = r.layout.tuple_len;
  for (uint64_t i = 0; i < r.nrows(); ++i)
    v.emplace_back(reinterpret_cast<const char*>(r.data.data() + i * len), len);
  std::sort(v.begin(), v.end());
  return v;
}

static std::string row_text(const Schema& s, const std::string& row) {
  std::string t = "(";
  for (size_t i = 0; i < s.attrs.size(); ++i)
    t += (i ? ", " : "") + harness::value_text(s.attrs[i], reinterpret_cast<const uint8_t*>(row.data()));
  return t + ")";
}

std::string multiset_difference(const Result& a, const Result& b) {
  if (a.nrows() != b.nrows()) return std::to_string(a.nrows()) + " rows vs " + std::to_string(b.nrows()) + " rows";
  auto x = sorted_rows(a), y = sorted_rows(b);
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] != y[i]) return "rows differ: " + row_text(a.layout, x[i]) + " vs " + row_text(b.layout, y[i]);
  return "";
}

// ---- typing generated trees the way the binder does ----

namespace {

Tk numeric_class(GType a, GType b) {
  if (a.kind == Tk::F8 || b.kind == Tk::F8) return Tk::F8;
  if (a.kind == Tk::F4 || b.kind == Tk::F4) return Tk::F4;
  return Tk::I4;
}

GType gt(Tk k, uint8_t len = 0) {
  static const uint8_t lens[] = {1, 2, 4, 4, 8, 1, 1};
  return {k, len ? len : lens[int(k)]};
}

// Recomputes types and typed operators bottom-up after the shrinker edited a
// tree (a child replaced by one of another type changes its parents' rows).
void retype(GNode& n) {
  for (auto& k : n.kids) retype(*k);
  if (n.kind != GNode::Op) return;
  const Generic g = ir::op_info(n.op).generic;
  auto set = [&](Generic gen, Tk cls, GType t) {
    Op op;
    if (ir::typed_op(gen, cls, &op)) n.op = op;
    n.type = t;
  };
  const GType a = n.kids.size() > 0 ? n.kids[0]->type : GType{};
  const GType b = n.kids.size() > 1 ? n.kids[1]->type : GType{};
  switch (g) {
    case Generic::Const:
    case Generic::Attr:
    case Generic::Param: break;
    case Generic::Cvt: {
      Op op;
      if (ir::cvt_op(a.kind, n.type.kind, &op)) n.op = op;
      break;
    }
    case Generic::Neg:
    case Generic::Abs: {
      Tk c = a.is_int() ? Tk::I4 : a.kind;
      set(g, c, gt(c));
      break;
    }
    case Generic::Add:
    case Generic::Sub:
    case Generic::Mul:
    case Generic::Div: {
      Tk c = numeric_class(a, b);
      set(g, c, gt(c));
      break;
    }
    case Generic::Pow: n.type = gt(Tk::F8); break;
    case Generic::Mod: n.type = gt(Tk::I4); break;
    case Generic::Eq:
    case Generic::Ne:
    case Generic::Lt:
    case Generic::Le:
    case Generic::Gt:
    case Generic::Ge:
      if (a.kind == Tk::C || b.kind == Tk::C) {
        bool pat = (n.kids[1]->kind == GNode::Lit && n.kids[1]->pattern) ||
                   (n.kids[0]->kind == GNode::Lit && n.kids[0]->pattern);
        if (pat && (g == Generic::Eq || g == Generic::Ne)) {
          if (n.kids[1]->kind != GNode::Lit || !n.kids[1]->pattern) {
            std::swap(n.kids[0], n.kids[1]);
            n.pattern_left = true;
          }
          n.op = g == Generic::Eq ? Op::MATCH_C : Op::NOMATCH_C;
          n.type = gt(Tk::B);
        } else {
          set(g, Tk::C, gt(Tk::B));
        }
      } else {
        set(g, numeric_class(a, b), gt(Tk::B));
      }
      break;
    case Generic::Match:
    case Generic::NoMatch:
      if (n.kids[1]->kind != GNode::Lit || !n.kids[1]->pattern) {
        // The pattern was shrunk away: a plain comparison now.
        set(g == Generic::Match ? Generic::Eq : Generic::Ne, Tk::C, gt(Tk::B));
        n.pattern_left = false;
      }
      break;
    case Generic::And:
    case Generic::Or:
    case Generic::Not: n.type = gt(Tk::B); break;
    case Generic::Sqrt:
    case Generic::Log:
    case Generic::Exp:
    case Generic::Sin:
    case Generic::Cos:
    case Generic::Atan: n.type = gt(Tk::F8); break;
    case Generic::Ascii: {
      static const uint8_t width[] = {6, 6, 11, 15, 24, 0, 0};
      set(g, a.kind, gt(Tk::C, width[int(a.kind)]));
      break;
    }
    case Generic::Concat: n.type = gt(Tk::C, uint8_t(std::min(255, a.len + b.len))); break;
  }
}

// Does the generated tree say what the binder understood? Implicit
// conversions exist only in the IR; an explicit conversion to the operand's
// own type exists only in the generated tree.
bool agrees(const GNode& g, const ir::Node& n0, std::string* why = nullptr) {
  const ir::Node* n = &n0;
  while (n->op != Op::CONST && n->op != Op::ATTR && ir::op_info(n->op).generic == Generic::Cvt && n->implicit)
    n = n->kid[0].get();
  if (g.kind == GNode::Op && ir::op_info(g.op).generic == Generic::Cvt && g.kids[0]->type.kind == g.type.kind)
    return agrees(*g.kids[0], *n, why);
  auto no = [&] {
    if (why && why->empty())
      *why = quel_text(g) + ": generated " + (g.kind == GNode::Op ? ir::op_name(g.op) : "leaf") + " " +
             type_name(g.type.type()) + ", bound " + ir::op_name(n->op) + " " + type_name(n->type);
    return false;
  };
  if (g.kind == GNode::Lit) return (n->op == Op::CONST && GType::of(n->type) == g.type) || no();
  if (g.kind == GNode::Attr) return (n->op == Op::ATTR && GType::of(n->type) == g.type) || no();
  if (n->op != g.op || !(GType::of(n->type) == g.type) || n->arity() != int(g.kids.size())) return no();
  for (size_t i = 0; i < g.kids.size(); ++i)
    if (!agrees(*g.kids[i], *n->kid[i], why)) return false;
  return true;
}

void walk(GNode& n, std::vector<GNode*>* out) {
  out->push_back(&n);
  for (auto& k : n.kids) walk(*k, out);
}

}  // namespace

// ---- the checker ----

Checker::Checker(const std::string& backends, std::ostream& log, int jit_opt) : log_(log), backends_(backends) {
  harness::SessionOptions o;
  if (jit_opt >= 0) o.prepare.jit_opt = jit_opt;
  o.backends = harness::parse_backend_list(backends);
  o.format = harness::OutFormat::None;
  o.page_size = TestData::kPageSize;
  // A small plan cache: eviction (and the freeing of compiled code) happens
  // all the time instead of never.
  o.plan_cache_capacity = 64;
  session_ = std::make_unique<harness::Session>(o, sink_out_, sink_err_);
  // The relations are built by the first back end alone and handed over: a
  // back end under test must not be able to spoil the data it is tested on.
  harness::SessionOptions so = o;
  so.backends.resize(1);
  harness::Session setup(so, sink_out_, sink_err_);
  setup.catalog().add(harness::make_parts(TestData::kPartsRows, false, harness::Structure::Heap,
                                          TestData::kPageSize));
  for (const auto& s : TestData::setup()) {
    if (!setup.run(std::make_shared<Source>("setup:" + s.relation, s.text)))
      throw std::runtime_error("difftest: building relation " + s.relation + " failed:\n" + sink_err_.str());
  }
  for (const auto& name : setup.catalog().names()) session_->catalog().add(setup.catalog().remove(name));
  std::string err;
  sqlite_ = SqliteOracle::open(session_->catalog(), &err);
  if (!sqlite_) log_ << "difftest: no SQLite oracle: " << err << "\n";
}

Checker::~Checker() = default;

bool Checker::have_sqlite() const { return sqlite_ != nullptr; }

std::vector<std::string> Checker::runner_labels() const {
  std::vector<std::string> v;
  for (const auto& r : session_->runners()) v.push_back(r->label());
  return v;
}

Outcome Checker::evaluate(const GQuery& q, const std::vector<harness::Runner*>& runners, const std::string& prefix) {
  Outcome out;
  for (const auto& v : q.vars) session_->ranges().set(v.name, v.relation);
  auto src = std::make_shared<Source>("difftest.quel", prefix + q.statement_text());
  frontend::BoundQuery bq;
  try {
    auto stmts = frontend::parse(src);
    if (stmts.size() != 1) throw std::runtime_error("difftest: generated text is not one statement");
    bq = frontend::bind(*stmts[0], session_->ranges(), session_->catalog(), src);
  } catch (QuelError& e) {
    out.bind_error = e.err;
    return out;
  }
  out.bound = true;
  for (auto* r : runners) {
    try {
      out.results.push_back(session_->evaluate(bq, *r, src, true));
    } catch (QuelError& e) {
      Result res;
      res.ok = false;
      res.error = e.err;
      out.results.push_back(std::move(res));
    }
  }
  return out;
}

static harness::Runner* find_runner(harness::Session& s, const std::string& label) {
  for (auto& r : s.runners())
    if (r->label() == label) return r.get();
  return nullptr;
}

std::optional<Mismatch> Checker::check_backends(const GQuery& q, Outcome& out) {
  auto& rs = session_->runners();
  for (size_t i = 1; i < out.results.size(); ++i) {
    std::string d = result_difference(out.results[0], out.results[i]);
    if (!d.empty()) {
      Mismatch m;
      m.kind = Mismatch::Backends;
      m.a = rs[0]->label();
      m.b = rs[i]->label();
      m.detail = d;
      m.query = q.clone();
      return m;
    }
  }
  return std::nullopt;
}

static bool storage_differs(const Result& heap, const Result& var, std::string* detail) {
  if (!heap.ok) return false;  // a keyed scan evaluates fewer tuples: it may not raise
  if (!var.ok) {
    *detail = "the keyed relation failed where the heap did not: " + var.error.format();
    return true;
  }
  *detail = multiset_difference(heap, var);
  return !detail->empty();
}

std::optional<Mismatch> Checker::check_storage(const GQuery& q, const Outcome& heap, Summary* sum) {
  if (!heap.results[0].ok) return std::nullopt;
  std::vector<const GRelation*> variants[2];
  for (size_t i = 0; i < q.vars.size() && i < 2; ++i)
    for (const auto& r : TestData::relations())
      if (r.base == q.vars[i].base && r.name != r.base) variants[i].push_back(&r);
  // Two variants per query, in turn: over a run every variant meets every kind of query.
  for (int k = 0; k < 2; ++k) {
    GQuery v = q.clone();
    for (size_t i = 0; i < v.vars.size() && i < 2; ++i) {
      if (variants[i].empty()) continue;
      v.vars[i].relation = variants[i][(variant_pick_ + i) % variants[i].size()]->name;
    }
    ++variant_pick_;
    Outcome o = evaluate(v, {session_->runners()[0].get()});
    if (!o.bound) continue;
    if (sum) ++sum->storage_checked;
    std::string d;
    if (storage_differs(heap.results[0], o.results[0], &d)) {
      Mismatch m;
      m.kind = Mismatch::Storage;
      std::string rels;
      for (const auto& var : v.vars) rels += (rels.empty() ? "" : ", ") + var.relation;
      m.a = "heap";
      m.b = rels;
      m.detail = d;
      m.query = std::move(v);
      return m;
    }
  }
  return std::nullopt;
}

std::optional<Mismatch> Checker::check_sqlite(const GQuery& q, const Outcome& heap, Summary* sum) {
  auto skip = [&](const std::string& why) {
    if (!sum) return;
    for (auto& [r, n] : sum->sqlite_skipped)
      if (r == why) {
        ++n;
        return;
      }
    sum->sqlite_skipped.emplace_back(why, 1);
  };
  if (!sqlite_) return std::nullopt;
  std::string reason;
  auto t = sqlite_->translate(q, &reason);
  if (!t) {
    skip(reason);
    return std::nullopt;
  }
  if (!heap.results[0].ok) {
    skip("error");
    return std::nullopt;
  }
  std::vector<std::string> rows;
  std::string err;
  Mismatch m;
  m.kind = Mismatch::Sqlite;
  m.a = session_->runners()[0]->label();
  m.b = "sqlite";
  m.query = q.clone();
  if (!sqlite_->run(*t, heap.results[0].layout, &rows, &err)) {
    m.detail = "SQLite failed: " + err;
    return m;
  }
  if (sum) ++sum->sqlite_checked;
  auto mine = SqliteOracle::canonical(heap.results[0], t->columns);
  if (mine == rows) return std::nullopt;
  auto show = [](const std::string& r) {
    std::string s = r;
    std::replace(s.begin(), s.end(), '\x1f', '|');
    return "(" + s + ")";
  };
  if (mine.size() != rows.size()) {
    m.detail = std::to_string(mine.size()) + " rows vs " + std::to_string(rows.size()) + " rows from SQLite";
  } else {
    for (size_t i = 0; i < rows.size(); ++i)
      if (mine[i] != rows[i]) {
        m.detail = "rows differ: " + show(mine[i]) + " vs SQLite " + show(rows[i]);
        break;
      }
  }
  m.detail += "\n  SQL: " + t->sql;
  return m;
}

std::optional<Mismatch> Checker::check(const GQuery& q, const RunOptions& o, Summary* sum) {
  std::vector<harness::Runner*> all;
  for (auto& r : session_->runners()) all.push_back(r.get());
  Outcome out = evaluate(q, all);
  if (!out.bound) {
    if (sum) ++sum->bind_failures;
    Mismatch m;
    m.kind = Mismatch::Generator;
    m.a = m.b = "binder";
    m.detail = "the generator wrote a query the binder rejects: " + out.bind_error.format();
    m.query = q.clone();
    return m;
  }
  // The generator's idea of every type and operator must be the binder's.
  {
    auto src = std::make_shared<Source>("difftest.quel", q.statement_text());
    auto stmts = frontend::parse(src);
    frontend::BoundQuery bq = frontend::bind(*stmts[0], session_->ranges(), session_->catalog(), src);
    if (sum) {
      if (bq.qual) sum->coverage.add(*bq.qual);
      for (const auto& t : bq.targets) sum->coverage.add(*t.expr);
    }
    std::string why;
    bool ok = !q.where || (bq.qual && agrees(*q.where, *bq.qual, &why));
    // append/replace targets carry the conversion to the column type.
    for (size_t i = 0; ok && q.kind == GQuery::Retrieve && i < q.targets.size(); ++i)
      ok = agrees(*q.targets[i].second, *bq.targets[i].expr, &why);
    if (!ok) {
      if (sum) ++sum->bind_failures;
      Mismatch m;
      m.kind = Mismatch::Generator;
      m.a = m.b = "binder";
      m.detail = "the generator's types or operators are not the binder's: " + why;
      m.query = q.clone();
      return m;
    }
  }
  if (sum) {
    ++sum->queries;
    if (!out.results[0].ok) ++sum->failed;
    sum->rows += out.results[0].nrows();
  }
  if (auto m = check_backends(q, out)) return m;
  // Every eighth query again, elsewhere in the text: the plans it prepared
  // are reused (same shapes), and its answers and errors must be this run's.
  if (sum && sum->queries % 8 == 0) {
    Outcome again = evaluate(q, all, kAgain);
    if (auto m = check_backends(q, again)) {
      m->detail += "\n(the second run of the statement, which reuses the plans the first prepared)";
      return m;
    }
  }
  if (o.storage)
    if (auto m = check_storage(q, out, sum)) return m;
  if (o.sqlite)
    if (auto m = check_sqlite(q, out, sum)) return m;
  return std::nullopt;
}

// ---- shrinking ----

bool Checker::still_fails(const Mismatch& m, const GQuery& cand) {
  switch (m.kind) {
    case Mismatch::Generator: return false;
    case Mismatch::Backends: return reproduces(m, cand);
    case Mismatch::Storage: {
      GQuery heap = cand.clone();
      for (auto& v : heap.vars) v.relation = v.base;
      Outcome h = evaluate(heap, {session_->runners()[0].get()});
      if (!h.bound || !h.results[0].ok) return false;
      Outcome v = evaluate(cand, {session_->runners()[0].get()});
      std::string d;
      return v.bound && storage_differs(h.results[0], v.results[0], &d);
    }
    case Mismatch::Sqlite: {
      Outcome h = evaluate(cand, {session_->runners()[0].get()});
      if (!h.bound || !h.results[0].ok) return false;
      // Rejects candidates whose types the generator got wrong after editing.
      auto src = std::make_shared<Source>("difftest.quel", cand.statement_text());
      auto bq = frontend::bind(*frontend::parse(src)[0], session_->ranges(), session_->catalog(), src);
      if (cand.where && !agrees(*cand.where, *bq.qual)) return false;
      for (size_t i = 0; i < cand.targets.size(); ++i)
        if (!agrees(*cand.targets[i].second, *bq.targets[i].expr)) return false;
      return check_sqlite(cand, h, nullptr).has_value();
    }
  }
  return false;
}

bool Checker::reproduces(const Mismatch& m, const GQuery& q, bool* twice) {
  harness::Runner* a = find_runner(*session_, m.a);
  harness::Runner* b = find_runner(*session_, m.b);
  if (!a || !b) return false;
  a->cache().clear();
  b->cache().clear();
  Outcome o = evaluate(q, {a, b});
  if (!o.bound) return false;
  if (twice) *twice = false;
  if (!result_difference(o.results[0], o.results[1]).empty()) return true;
  o = evaluate(q, {a, b}, kAgain);
  if (twice) *twice = true;
  return !result_difference(o.results[0], o.results[1]).empty();
}

namespace {

// Every one-step simplification of q, biggest first.
std::vector<GQuery> candidates(const GQuery& q) {
  std::vector<GQuery> out;
  if (q.where) {
    GQuery c = q.clone();
    c.where.reset();
    out.push_back(std::move(c));
  }
  if (q.targets.size() > 1)
    for (size_t i = 0; i < q.targets.size(); ++i) {
      GQuery c = q.clone();
      c.targets.erase(c.targets.begin() + long(i));
      out.push_back(std::move(c));
    }
  // One variable fewer: its attributes become the other variable's (or literals).
  for (size_t v = 0; q.vars.size() > 1 && v < q.vars.size(); ++v) {
    GQuery c = q.clone();
    const GVar gone = c.vars[v];
    c.vars.erase(c.vars.begin() + long(v));
    const GVar& keep = c.vars[0];
    std::function<void(GPtr&)> sub = [&](GPtr& p) {
      if (p->kind == GNode::Attr && p->var == gone.name) {
        GPtr r;
        for (const auto& a : TestData::find(keep.base)->attrs)
          if (!r && a.second.kind == p->type.kind) {
            r = std::make_unique<GNode>();
            r->kind = GNode::Attr;
            r->var = keep.name;
            r->attr = a.first;
            r->type = a.second;
          }
        p = r ? std::move(r) : Generator::simplest(p->type);
        return;
      }
      for (auto& k : p->kids) sub(k);
    };
    if (c.where) sub(c.where);
    for (auto& t : c.targets) sub(t.second);
    if (c.update_var == gone.name) continue;
    if (c.where) retype(*c.where);
    for (auto& t : c.targets) retype(*t.second);
    out.push_back(std::move(c));
  }
  // Node edits: count the nodes of where and targets in one preorder.
  GQuery probe = q.clone();
  std::vector<GNode*> nodes;
  if (probe.where) walk(*probe.where, &nodes);
  for (auto& t : probe.targets) walk(*t.second, &nodes);
  auto edit = [&](size_t index, const std::function<GPtr(const GNode&)>& make) {
    GQuery c = q.clone();
    std::vector<GNode*> ns;
    std::vector<GPtr*> slots;  // the owning pointer of each node, same order
    std::function<void(GPtr&)> collect = [&](GPtr& p) {
      ns.push_back(p.get());
      slots.push_back(&p);
      for (auto& k : p->kids) collect(k);
    };
    if (c.where) collect(c.where);
    for (auto& t : c.targets) collect(t.second);
    GPtr repl = make(*ns[index]);
    if (!repl) return;
    *slots[index] = std::move(repl);
    if (c.where) retype(*c.where);
    for (auto& t : c.targets) retype(*t.second);
    out.push_back(std::move(c));
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GNode& n = *nodes[i];
    for (size_t k = 0; k < n.kids.size(); ++k)
      edit(i, [k](const GNode& x) { return x.kids[k]->clone(); });
    if (n.kind == GNode::Op) {
      edit(i, [](const GNode& x) { return Generator::simplest(x.type); });
      if (n.type.kind == Tk::B)  // simplest() is true; false decides and/or the other way
        edit(i, [](const GNode&) {
          GPtr f = Generator::simplest({Tk::B, 1});
          f->kids[1] = Generator::int_lit(0);
          return f;
        });
      // An attribute of the same type keeps the dependence on the data.
      for (const auto& v : q.vars) {
        const GRelation* r = TestData::find(v.base);
        for (const auto& a : r->attrs)
          if (a.second.kind == n.type.kind) {
            edit(i, [&](const GNode&) {
              auto at = std::make_unique<GNode>();
              at->kind = GNode::Attr;
              at->var = v.name;
              at->attr = a.first;
              at->type = a.second;
              return at;
            });
            break;
          }
      }
    } else if (n.kind == GNode::Lit && !n.pattern) {
      if (n.type.kind == Tk::C && !n.value.empty())
        edit(i, [](const GNode&) { return Generator::string_lit(""); });
      else if (n.type.kind == Tk::F8 && n.text != "0.0" && n.text != "1.0")
        for (const char* f : {"0.0", "1.0"}) edit(i, [f](const GNode&) { return Generator::float_lit(f); });
      else if (n.type.is_int() && n.text != "0" && n.text != "1")
        for (int v : {0, 1}) edit(i, [v](const GNode&) { return Generator::int_lit(v); });
    }
  }
  return out;
}

}  // namespace

void Checker::shrink(Mismatch& m) {
  m.original_operators = m.query.operators();
  if (m.kind == Mismatch::Backends && !reproduces(m, m.query)) {
    // It needed plans an earlier query left in a cache: keep the query as it is.
    m.detail += "\n(not reproduced from a clean start: it depends on plans earlier queries prepared)";
    m.reproducer = reproducer(m);
    return;
  }
  // Only strictly smaller queries are taken, so shrinking ends: fewer
  // operators, then fewer nodes, then shorter and lexicographically smaller
  // text (a literal 0 for 7, a false condition for a true one).
  auto measure = [](const GQuery& q) {
    int nodes = q.where ? q.where->size() : 0;
    for (const auto& t : q.targets) nodes += t.second->size();
    std::string text = q.text();
    return std::make_tuple(q.operators(), nodes + int(q.vars.size()), text.size(), text);
  };
  int budget = 3000;  // evaluations
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    const auto current = measure(m.query);
    for (auto& c : candidates(m.query)) {
      if (!(measure(c) < current)) continue;
      if (--budget <= 0) break;
      if (still_fails(m, c)) {
        m.query = std::move(c);
        progress = true;
        break;
      }
    }
  }
  // The difference as the shrunk query shows it.
  switch (m.kind) {
    case Mismatch::Backends: {
      bool twice = false;
      reproduces(m, m.query, &twice);
      Outcome out = evaluate(m.query, {find_runner(*session_, m.a), find_runner(*session_, m.b)}, twice ? kAgain : "");
      if (out.bound) m.detail = result_difference(out.results[0], out.results[1]);
      if (twice) m.detail += "\n(the second run of the statement, which reuses the plans the first prepared)";
      break;
    }
    case Mismatch::Sqlite: {
      Outcome out = evaluate(m.query, {session_->runners()[0].get()});
      if (out.bound)
        if (auto again = check_sqlite(m.query, out, nullptr)) m.detail = again->detail;
      break;
    }
    default: break;
  }
  m.reproducer = reproducer(m);
}

std::string Checker::reproducer(const Mismatch& m) {
  static const char* kinds[] = {"back ends disagree", "storage structures disagree", "SQLite disagrees",
                                "generator and binder disagree"};
  std::string detail = m.detail;
  for (size_t p = 0; (p = detail.find('\n', p)) != std::string::npos; p += 4) detail.replace(p, 1, "\n * ");
  // A comment must not end early.
  for (size_t p = 0; (p = detail.find("*/", p)) != std::string::npos;) detail.replace(p, 2, "* /");
  std::string runners = m.kind == Mismatch::Backends ? m.a + "," + m.b : m.a;
  std::string head = "/* quelkit difftest --seed " + std::to_string(m.seed) + ": query " + std::to_string(m.index) +
                     (m.original_operators ? ", shrunk from " + std::to_string(m.original_operators) + " to " +
                                                 std::to_string(m.query.operators()) + " operators"
                                           : "") +
                     ".\n * " + kinds[m.kind] + ": " + m.a + " vs " + m.b + ": " + detail +
                     "\n * Run: quelkit difftest --corpus FILE -b " + runners +
                     "\n *  or: quelkit --page-size " + std::to_string(TestData::kPageSize) + " --parts " +
                     std::to_string(TestData::kPartsRows) + " -b " + runners + " FILE" +
                     "\n * The expectation is " + m.a +
                     "'s answer: check it by hand before adding this file to test/queries/. */\n";
  std::string text = head + "/*! page-size " + std::to_string(TestData::kPageSize) + " */\n/*! parts " +
                     std::to_string(TestData::kPartsRows) + " */\n";
  std::vector<std::string> need;
  for (const auto& v : m.query.vars) {
    need.push_back(v.base);
    if (v.relation != v.base) need.push_back(v.relation);
  }
  if (m.query.kind == GQuery::Append) need.push_back(m.query.append_to);
  for (const auto& s : TestData::setup())
    if (std::find(need.begin(), need.end(), s.relation) != need.end()) text += s.text;
  GQuery heap = m.query.clone();
  for (auto& v : heap.vars) v.relation = v.base;
  const GQuery& first = m.kind == Mismatch::Storage ? heap : m.query;
  text += first.ranges_text() + first.statement_text();
  text += m.kind == Mismatch::Storage ? "/*= checksum */\n" : "/*= ? */\n";
  bool twice = false;
  if (m.kind == Mismatch::Backends && reproduces(m, m.query, &twice) && twice)
    text += "/* the same statement again: it reuses the plans the first one prepared */" + std::string(kAgain) +
            m.query.statement_text() + "/*= ? */\n";
  std::string filled = text;
  try {
    CorpusReport r = run_corpus(parse_corpus("repro.quel", text), m.a == "heap" ? runner_labels()[0] : m.a);
    filled = r.rewritten;
  } catch (std::exception& e) {
    filled += "/* could not run the reproducer: " + std::string(e.what()) + " */\n";
  }
  if (m.kind == Mismatch::Storage) {
    // The same statement over the keyed relations must give the heap's checksum.
    size_t b = filled.rfind("/*= checksum"), e = filled.find("*/", b);
    std::string block = filled.substr(b, e + 2 - b);
    filled += m.query.ranges_text() + m.query.statement_text() + block + "\n";
  }
  if (m.kind == Mismatch::Sqlite && sqlite_) {
    std::string why;
    if (auto t = sqlite_->translate(m.query, &why)) filled += "/* SQL: " + t->sql + " */\n";
  }
  return filled;
}

Summary Checker::run(const RunOptions& o) {
  Summary sum;
  Generator gen(o.seed, o.gen);
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double next_report = 10;
  for (uint64_t k = 0;; ++k) {
    if (o.count && k >= o.count) break;
    if (o.seconds > 0 && elapsed() >= o.seconds) break;
    if (!o.count && o.seconds <= 0 && k >= 1000) break;
    GQuery q = gen.query();
    auto m = check(q, o, &sum);
    if (m) {
      m->seed = o.seed;
      m->index = k;
      log_ << "difftest: query " << k << ": " << m->a << " vs " << m->b << ": " << m->detail << "\n"
           << q.text();
      if (o.shrink && m->kind != Mismatch::Generator) {
        log_ << "difftest: shrinking...\n" << std::flush;
        shrink(*m);
      } else {
        m->reproducer = reproducer(*m);
      }
      log_ << m->reproducer << std::flush;
      sum.mismatches.push_back(std::move(*m));
      if (sum.mismatches.size() >= o.max_mismatches) break;
    }
    if (elapsed() >= next_report) {
      next_report += 10;
      log_ << "difftest: " << sum.queries << " queries in " << int(elapsed()) << " s\n" << std::flush;
    }
  }
  sum.seconds = elapsed();
  return sum;
}

}  // namespace quelkit::difftest
