// The shrinker (Checker::shrink, check.h): one-step simplifications of a
// mismatching query, biggest first, kept while the mismatch still shows. It
// edits the untyped tree; a node's type, and whether a candidate is a query
// at all, are the binder's answers (bind.h).
#include <functional>
#include <tuple>

#include "difftest/bind.h"
#include "difftest/check.h"
#include "difftest/twin.h"
#include "engine/limits.h"

namespace quelkit::difftest {

using harness::result_difference;

bool Checker::still_fails(const Mismatch& m, const GQuery& cand) {
  switch (m.kind) {
    case Mismatch::Generator: return false;
    case Mismatch::Backends: return reproduces(m, cand);
    case Mismatch::Twin:
    case Mismatch::CacheOff: return reproduces_reuse(m, cand);
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
      return check_sqlite(cand, h, nullptr).has_value();
    }
    case Mismatch::Python: {
      Outcome h = evaluate(cand, {session_->runners()[0].get()});
      if (!h.bound || h.results[0].ok) return false;
      return check_python(cand, h, nullptr).has_value();
    }
    case Mismatch::Reformat: {
      Outcome h = evaluate(cand, {session_->runners()[0].get()});
      return h.bound && check_reformat(cand, h, nullptr).has_value();
    }
  }
  return false;
}

bool Checker::reproduces(const Mismatch& m, const GQuery& q, bool* twice) {
  harness::Runner* a = runner(m.a);
  harness::Runner* b = runner(m.b);
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

bool Checker::reproduces_reuse(const Mismatch& m, const GQuery& q, std::string* detail) {
  harness::Runner* on = runner(m.a);
  harness::Runner* off = cache_off_runner(on);
  if (!on || !off) return false;
  on->cache().clear();
  if (m.kind == Mismatch::Twin) {
    std::optional<GQuery> twin = literal_twin(q, m.twin_salt);
    if (!twin || !evaluate(*twin, {on}).bound) return false;
  }
  Outcome a = evaluate(q, {on});
  if (!a.bound) return false;
  Outcome b = evaluate(q, {off});
  if (harness::could_not_run(a.results[0]) || harness::could_not_run(b.results[0])) return false;
  std::string d = result_difference(a.results[0], b.results[0]);
  if (detail) *detail = d;
  return !d.empty();
}

namespace {

// The kind the binder gives n over vars; kNoTk if it rejects it.
Tk bound_kind(const GNode& n, const std::vector<GVar>& vars, const CatalogView& cat) {
  ir::NodePtr b = bind_expr(n, vars, cat);
  return b ? b->type.kind : kNoTk;
}

// The first attribute of v that the binder gives kind k; nullptr if none.
GPtr attr_of_kind(const GVar& v, Tk k, const CatalogView& cat) {
  for (const auto& a : TestData::find(v.base)->attrs) {
    GPtr n = make_attr(v.name, a.first);
    if (bound_kind(*n, {v}, cat) == k) return n;
  }
  return nullptr;
}

void walk(GNode& n, std::vector<GNode*>* out) {
  out->push_back(&n);
  for (auto& k : n.kids) walk(*k, out);
}

// Every one-step simplification of q, biggest first. Candidates are not
// checked here: one the binder rejects reproduces nothing.
std::vector<GQuery> candidates(const GQuery& q, const CatalogView& cat) {
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
  // One variable fewer: its attributes become the other variable's of the
  // same kind (or a simplest value of it).
  for (size_t v = 0; q.vars.size() > 1 && v < q.vars.size(); ++v) {
    GQuery c = q.clone();
    const GVar gone = c.vars[v];
    c.vars.erase(c.vars.begin() + long(v));
    if (c.update_var == gone.name) continue;
    const GVar& keep = c.vars[0];
    std::function<void(GPtr&)> sub = [&](GPtr& p) {
      if (p->kind == GNode::Attr && p->var == gone.name) {
        const Tk k = bound_kind(*p, q.vars, cat);
        GPtr r = k == kNoTk ? nullptr : attr_of_kind(keep, k, cat);
        p = r ? std::move(r) : Generator::simplest(k == kNoTk ? Tk::I2 : k);
        return;
      }
      for (auto& k : p->kids) sub(k);
    };
    if (c.where) sub(c.where);
    for (auto& t : c.targets) sub(t.second);
    out.push_back(std::move(c));
  }
  // Node edits: the nodes of where and targets in one preorder.
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
    out.push_back(std::move(c));
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GNode& n = *nodes[i];
    for (size_t k = 0; k < n.kids.size(); ++k)
      edit(i, [k](const GNode& x) { return x.kids[k]->clone(); });
    const Tk kind = bound_kind(n, q.vars, cat);
    if (kind == kNoTk) continue;
    if (n.kind == GNode::Op) {
      edit(i, [kind](const GNode&) { return Generator::simplest(kind); });
      if (kind == Tk::B)  // simplest() is true; false decides and/or the other way
        edit(i, [](const GNode&) {
          GPtr f = Generator::simplest(Tk::B);
          f->kids[1] = Generator::int_lit(0);
          return f;
        });
      // An attribute of the same kind keeps the dependence on the data.
      for (const auto& v : q.vars)
        if (std::shared_ptr<const GNode> at = attr_of_kind(v, kind, cat))
          edit(i, [at](const GNode&) { return at->clone(); });
    } else if (n.kind == GNode::Lit && !n.pattern) {
      if (kind == Tk::C && !n.value.empty())
        edit(i, [](const GNode&) { return Generator::string_lit(""); });
      else if (kind == Tk::F8 && n.text != "0.0" && n.text != "1.0")
        for (const char* f : {"0.0", "1.0"}) edit(i, [f](const GNode&) { return Generator::float_lit(f); });
      else if (is_int(kind) && n.text != "0" && n.text != "1")
        for (int v : {0, 1}) edit(i, [v](const GNode&) { return Generator::int_lit(v); });
    }
  }
  return out;
}

}  // namespace

void Checker::shrink(Mismatch& m) {
  m.original_operators = m.query.operators();
  const bool reuse = m.kind == Mismatch::Twin || m.kind == Mismatch::CacheOff;
  if ((m.kind == Mismatch::Backends && !reproduces(m, m.query)) || (reuse && !reproduces_reuse(m, m.query))) {
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
    for (auto& c : candidates(m.query, session_->catalog())) {
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
      Outcome out = evaluate(m.query, {runner(m.a), runner(m.b)}, twice ? kAgain : "");
      if (out.bound) m.detail = result_difference(out.results[0], out.results[1]);
      if (twice) m.detail += "\n(the second run of the statement, which reuses the plans the first prepared)";
      break;
    }
    case Mismatch::Twin:
    case Mismatch::CacheOff:
      reproduces_reuse(m, m.query, &m.detail);
      if (m.kind == Mismatch::Twin) m.detail += kAfterTwin;
      break;
    case Mismatch::Sqlite: {
      Outcome out = evaluate(m.query, {session_->runners()[0].get()});
      if (out.bound)
        if (auto again = check_sqlite(m.query, out, nullptr)) m.detail = again->detail;
      break;
    }
    case Mismatch::Python: {
      Outcome out = evaluate(m.query, {session_->runners()[0].get()});
      if (out.bound && !out.results[0].ok)
        if (auto again = check_python(m.query, out, nullptr)) m.detail = again->detail;
      break;
    }
    case Mismatch::Reformat: {
      Outcome out = evaluate(m.query, {session_->runners()[0].get()});
      if (out.bound)
        if (auto again = check_reformat(m.query, out, nullptr)) m.detail = again->detail;
      break;
    }
    default: break;
  }
  m.reproducer = reproducer(m);
}

}  // namespace quelkit::difftest
