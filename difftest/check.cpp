// The differential checker (check.h): every query on every runner, on the
// storage variants of its relations and through SQLite, results compared;
// queries that raise are checked against the Python oracle's first error;
// coverage is read from the bound IR. Shrinking and the reproducer are in
// shrink.cpp and reproducer.cpp.
#include "difftest/check.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <ostream>
#include <stdexcept>

#include "difftest/bind.h"
#include "difftest/python_oracle.h"
#include "difftest/sqlite_oracle.h"
#include "difftest/twin.h"
#include "engine/limits.h"
#include "bench/workloads/parts.h"
#include "engine/rows.h"

namespace quelkit::difftest {

using harness::Result;
using harness::could_not_run;
using harness::result_difference;

// ---- comparing results ----

static std::vector<std::string> sorted_rows(const Result& r) {
  std::vector<std::string> v;
  const uint32_t len = r.layout.tuple_len;
  for (uint64_t i = 0; i < r.nrows(); ++i)
    v.emplace_back(reinterpret_cast<const char*>(r.rows.row(i)), len);
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

// ---- the checker ----

std::string code_options(const harness::PrepareOptions& p) {
  const harness::PrepareOptions defaults;
  std::string s;
  if (p.jit_opt != defaults.jit_opt) s += " --jit-opt " + std::to_string(p.jit_opt);
  if (p.jit_lookup_opt != defaults.jit_lookup_opt)
    s += " --jit-lookup-opt " + (p.jit_lookup_opt < 0 ? std::string("same") : std::to_string(p.jit_lookup_opt));
  if (p.jit_checks) s += " --jit-checks";
  if (p.jit_native_cpu) s += " --jit-cpu native";
  if (p.vector_batch != defaults.vector_batch) s += " --vector-batch " + std::to_string(p.vector_batch);
  return s;
}

Checker::Checker(const std::string& backends, std::ostream& log, const harness::PrepareOptions& prepare, bool sqlite,
                 bool reformat)
    : log_(log), backends_(backends), prepare_(prepare) {
  harness::SessionOptions o;
  o.prepare = prepare;
  o.runner.reformat = reformat;
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
  cache_off_ = cache_off_runners(*session_);
  {
    const harness::Runner& first = *session_->runners()[0];
    harness::RunnerOptions ro = first.options();
    ro.reformat = false;
    no_reformat_ = std::make_unique<harness::Runner>(
        first.name(), first.mode(), harness::find_backend(first.name())->make(first.mode(), first.prepare_options()),
        ro, first.prepare_options());
  }
  // The generator binds against the test data's schemas: they must be the built relations'.
  if (std::string d = TestData::difference(session_->catalog()); !d.empty()) throw std::runtime_error("difftest: " + d);
  if (!sqlite) return;  // --no-sqlite: not opened, so nothing (--aggregates included) consults it
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
  BoundText b;
  try {
    b = bind_query(q, session_->catalog(), prefix);
  } catch (QuelError& e) {
    out.bind_error = e.err;
    return out;
  }
  out.bound = true;
  for (auto* r : runners) {
    try {
      out.results.push_back(session_->evaluate(b.query, *r, b.src, true));
    } catch (QuelError& e) {
      Result res;
      res.ok = false;
      res.error = e.err;
      out.results.push_back(std::move(res));
    }
  }
  out.query = std::move(b.query);
  return out;
}

std::optional<Mismatch> Checker::check_backends(const GQuery& q, Outcome& out) {
  auto& rs = session_->runners();
  // Answers are compared with the first answer; a runner that could not run
  // the query (its size limit, its toolchain) gave none (engine.h).
  size_t ref = 0;
  while (ref + 1 < out.results.size() && could_not_run(out.results[ref])) ++ref;
  for (size_t i = ref + 1; i < out.results.size(); ++i) {
    if (could_not_run(out.results[i])) continue;
    std::string d = result_difference(out.results[ref], out.results[i]);
    if (!d.empty()) {
      Mismatch m;
      m.kind = Mismatch::Backends;
      m.a = rs[ref]->label();
      m.b = rs[i]->label();
      m.detail = d;
      m.query = q.clone();
      return m;
    }
  }
  return std::nullopt;
}

bool Checker::storage_differs(const Result& heap, const Result& var, std::string* detail) {
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
  // Two variants per query, in turn: over a run every variant meets every
  // kind of query. The first keeps to variants keyed on the attribute a key
  // conjunct compares, where there are some: a lookup or a range then serves
  // it, its bounds resolved per substituted tuple in a join.
  auto keyed_on = [](const GRelation& r, const std::string& attr) {
    return !attr.empty() && r.name.size() > attr.size() &&
           r.name.compare(r.name.size() - attr.size() - 1, std::string::npos, "_" + attr) == 0;
  };
  for (int k = 0; k < 2; ++k) {
    GQuery v = q.clone();
    for (size_t i = 0; i < v.vars.size() && i < 2; ++i) {
      std::vector<const GRelation*> pick;
      if (k == 0)
        for (const GRelation* r : variants[i])
          if (keyed_on(*r, v.vars[i].key_hint)) pick.push_back(r);
      if (pick.empty()) pick = variants[i];
      if (pick.empty()) continue;
      v.vars[i].relation = pick[(variant_pick_ + i) % pick.size()]->name;
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

bool Checker::open_python(const std::string& script, std::string* err) {
  python_ = PythonOracle::open(session_->catalog(), script.empty() ? PythonOracle::default_script() : script, err);
  return python_ != nullptr;
}

namespace {

// How the Python oracle's first error differs from quelkit's ("" if not):
// the error (its code), the operator it names, the relation and the tuple.
std::string error_difference(const Error& mine, const Error& theirs) {
  auto text = [](const Error& e) {
    return std::string(e.message) + " at " + std::to_string(e.pos.line) + ":" + std::to_string(e.pos.col) +
           " (relation " + (e.relation.empty() ? std::string("none") : e.relation) + ", tuple " +
           std::to_string(e.tuple) + ")";
  };
  if (mine.code == theirs.code && mine.pos == theirs.pos && mine.relation == theirs.relation &&
      mine.tuple == theirs.tuple)
    return "";
  return text(mine) + " vs the Python oracle's " + text(theirs);
}

void count_reason(std::vector<std::pair<std::string, uint64_t>>& v, const std::string& why) {
  for (auto& [r, n] : v)
    if (r == why) {
      ++n;
      return;
    }
  v.emplace_back(why, 1);
}

}  // namespace

std::optional<Mismatch> Checker::check_python(const GQuery& q, const Outcome& heap, Summary* sum) {
  const Result& r = heap.results[0];
  if (!python_ || r.ok) return std::nullopt;
  if (r.error.kind != ErrKind::Runtime) {
    if (sum) count_reason(sum->python_skipped, "not a runtime error");
    return std::nullopt;
  }
  Mismatch m;
  m.kind = Mismatch::Python;
  m.a = session_->runners()[0]->label();
  m.b = "python oracle";
  m.query = q.clone();
  PythonOracle::Answer a;
  std::string err;
  if (!python_->ask(heap.query, &a, &err)) {
    // An oracle that fails is a failed check, not one left out.
    python_.reset();
    m.detail = err;
    return m;
  }
  if (!a.evaluated) {
    if (sum) count_reason(sum->python_skipped, a.skipped);
    return std::nullopt;
  }
  if (sum) ++sum->python_checked;
  if (!a.raised) {
    m.detail = r.error.format() + "\n  where the Python oracle finds no error";
    return m;
  }
  m.detail = error_difference(r.error, a.error);
  if (!m.detail.empty()) return m;
  if (sum) ++sum->python_agreed;
  return std::nullopt;
}

namespace {
GQuery equi_join(const GQuery& q) {
  // Attributes of one kind in each neighbouring pair of variables, picked
  // by the query's text: `v.a = w.b`, and an attribute of each as targets.
  GQuery j;
  j.vars = q.vars;
  uint64_t h = std::hash<std::string>{}(q.text());
  auto pick = [&](size_t n) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return size_t((h >> 33) % n);
  };
  for (size_t i = 0; i + 1 < q.vars.size(); ++i) {
    const auto& a = TestData::find(q.vars[i].base)->attrs;
    const auto& b = TestData::find(q.vars[i + 1].base)->attrs;
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t x = 0; x < a.size(); ++x)
      for (size_t y = 0; y < b.size(); ++y)
        if (a[x].second.kind == b[y].second.kind) pairs.emplace_back(x, y);
    if (pairs.empty()) return {};
    const auto [x, y] = pairs[pick(pairs.size())];
    GPtr eq = make_op(ir::Generic::Eq, make_attr(q.vars[i].name, a[x].first), make_attr(q.vars[i + 1].name, b[y].first));
    j.where = j.where ? make_op(ir::Generic::And, std::move(j.where), std::move(eq)) : std::move(eq);
  }
  for (size_t i = 0; i < q.vars.size(); ++i) {
    const auto& a = TestData::find(q.vars[i].base)->attrs;
    j.targets.emplace_back("t" + std::to_string(i + 1), make_attr(q.vars[i].name, a[pick(a.size())].first));
  }
  return j;
}
}  // namespace

std::optional<Mismatch> Checker::check_reformat(const GQuery& q, const Outcome& out, Summary* sum) {
  if (q.vars.size() < 2 || !session_->runners()[0]->options().reformat) return std::nullopt;
  // The query, and (from the full run, not the shrinker) its variables' plain
  // equi-join, which the step takes more often: the generator's joins mostly
  // hold an operator that may raise, which it leaves alone.
  if (sum && q.kind == GQuery::Retrieve)
    if (GQuery j = equi_join(q); j.where) {
      Outcome a = evaluate(j, {session_->runners()[0].get()});
      if (a.bound)
        if (auto m = check_reformat(j, a, nullptr)) return m;
      ++sum->reformat_checked;
      sum->reformat_taken += a.bound && a.results[0].stats.access_path.find("reformat to hash") != std::string::npos;
    }
  Outcome o = evaluate(q, {no_reformat_.get()});
  if (!o.bound) return std::nullopt;
  if (sum) {
    ++sum->reformat_checked;
    sum->reformat_taken += out.results[0].stats.access_path.find("reformat to hash") != std::string::npos;
  }
  std::string d = result_difference(out.results[0], o.results[0]);
  if (d.empty()) return std::nullopt;
  Mismatch m;
  m.kind = Mismatch::Reformat;
  m.a = session_->runners()[0]->label();
  m.b = m.a + " --no-reformat";
  m.detail = d;
  m.query = q.clone();
  return m;
}

harness::Runner* Checker::runner(const std::string& label) {
  for (auto& r : session_->runners())
    if (r->label() == label) return r.get();
  return nullptr;
}

harness::Runner* Checker::cache_off_runner(const harness::Runner* r) {
  for (size_t i = 0; i < session_->runners().size(); ++i)
    if (session_->runners()[i].get() == r) return cache_off_[i].get();
  return nullptr;
}

std::optional<Mismatch> Checker::check_plan_reuse(const GQuery& q, const GQuery* twin, uint64_t salt,
                                                  const Outcome& out, Summary* sum) {
  std::vector<harness::Runner*> off;
  for (auto& r : cache_off_) off.push_back(r.get());
  Outcome o = evaluate(q, off);
  if (!o.bound) return std::nullopt;  // bound once already: cannot happen
  auto& rs = session_->runners();
  if (sum) ++sum->cache_off;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (could_not_run(out.results[i]) || could_not_run(o.results[i])) continue;
    std::string d = result_difference(out.results[i], o.results[i]);
    if (d.empty()) continue;
    Mismatch m;
    m.kind = Mismatch::CacheOff;
    m.a = rs[i]->label();
    m.b = m.a + " --no-plan-cache";
    m.detail = d;
    m.query = q.clone();
    m.twin_salt = salt;
    // Without the twin, from a clean start, it may show too: then the twin
    // is not what it takes.
    if (twin && !reproduces_reuse(m, q)) m.kind = Mismatch::Twin;
    if (m.kind == Mismatch::Twin) m.detail += kAfterTwin;
    return m;
  }
  return std::nullopt;
}

std::optional<Mismatch> Checker::check(const GQuery& q, const RunOptions& o, Summary* sum) {
  std::vector<harness::Runner*> all;
  for (auto& r : session_->runners()) all.push_back(r.get());
  // The plan-reuse net: the literal twin first, so the statement runs on the
  // plans the twin prepared (the twin's own answers compared as any query's).
  const uint64_t salt = twin_salt(q.text());
  std::optional<GQuery> twin = o.plan_reuse ? literal_twin(q, salt) : std::nullopt;
  if (twin) {
    Outcome t = evaluate(*twin, all);
    if (!t.bound) {
      twin.reset();
    } else if (auto m = check_backends(*twin, t)) {
      m->detail += "\n(the literal twin of the query generated)";
      return m;
    }
  }
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
  if (sum) {
    // Coverage: the typed operators the binder chose.
    if (out.query.qual) sum->coverage.add(*out.query.qual);
    for (const auto& t : out.query.targets) sum->coverage.add(*t.expr);
    ++sum->queries;
    if (!out.results[0].ok) ++sum->failed;
    sum->rows += out.results[0].nrows();
  }
  if (twin && sum) {
    ++sum->twins;
    auto& rs = session_->runners();
    for (size_t i = 0; i < rs.size(); ++i)
      if (rs[i]->reuses() && out.results[i].ok && out.results[i].stats.prepares == 0) {
        ++sum->twin_reused;
        break;
      }
  }
  if (o.plan_reuse && (o.cache_off_every <= 1 || !sum || sum->queries % o.cache_off_every == 0))
    if (auto m = check_plan_reuse(q, twin ? &*twin : nullptr, salt, out, sum)) return m;
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
  if (o.python)
    if (auto m = check_python(q, out, sum)) return m;
  if (auto m = check_reformat(q, out, sum)) return m;
  if (o.storage)
    if (auto m = check_storage(q, out, sum)) return m;
  if (o.sqlite)
    if (auto m = check_sqlite(q, out, sum)) return m;
  return std::nullopt;
}

Summary Checker::run(const RunOptions& o) {
  Summary sum;
  if (o.python && !python_ && !open_python(o.python_script, &sum.python_missing))
    log_ << "difftest: no Python oracle: " << sum.python_missing << "\n";
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

// ---- coverage ----

void Coverage::add(const ir::Node& n) {
  ++ops[size_t(n.op)];
  for (const auto& k : n.kid)
    if (k) add(*k);
}

std::vector<std::string> Coverage::missing() const {
  std::vector<std::string> m;
  for (int i = 0; i < ir::kNumOps; ++i)
    if (!ops[size_t(i)] && ir::Op(i) != ir::Op::PARAM) m.push_back(ir::op_name(ir::Op(i)));
  return m;
}

}  // namespace quelkit::difftest
