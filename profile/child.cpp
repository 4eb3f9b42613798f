// The profiled child (child.h). Under perf each repetition is the statement as
// a session runs it again: parse, bind, evaluate, format the rows (to
// /dev/null). Under callgrind the counts depend on nothing but the binary and
// the command; each measurement is a dump of its own, with the perf map's line
// count then, so the parent names the JIT code as it was at that moment.
#include "profile/child.h"

#include <fcntl.h>
#include <unistd.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // without valgrind's headers the client requests do nothing (and --instructions says why)
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "profile/meta.h"
#include "frontend/frontend.h"
#include "engine/aggregate.h"
#include "engine/engine.h"
#include "engine/measure.h"
#include "jit/perfmap.h"
#include "engine/rows.h"

namespace quelkit::profile {

using namespace harness;

namespace {

// prepare() with callgrind's collection switched off (the run phase) or on
// (the cold preparation, counted apart), so compile cost never mixes with
// run cost.
enum class Collect { Off, Run, Prepare };
Collect g_collect = Collect::Off;

class ExcludePrepare final : public Backend {
 public:
  explicit ExcludePrepare(std::unique_ptr<Backend> b) : b_(std::move(b)) {}
  bool reuses_plans() const override { return b_->reuses_plans(); }
  std::unique_ptr<Prepared> prepare(const Plan& plan, const uint8_t* params) override {
    if (g_collect == Collect::Off) return b_->prepare(plan, params);
    CALLGRIND_TOGGLE_COLLECT;
    std::unique_ptr<Prepared> p = b_->prepare(plan, params);
    CALLGRIND_TOGGLE_COLLECT;
    return p;
  }
  bool dump(const Plan& plan, std::string_view form, const uint8_t* params, Selection variant,
            std::ostream& os) override {
    return b_->dump(plan, form, params, variant, os);
  }

 private:
  std::unique_ptr<Backend> b_;
};

// One expression statement of the script, as the setup run met it.
struct Stmt {
  int k = 0;  // statement number in the session (names the plans: q<k>)
  size_t src = 0, index = 0;
  frontend::RangeTable ranges;  // in force when it ran
  bool print = false;           // a plain retrieve: its rows are formatted
  uint32_t line = 0;
  std::string text;
};

struct Workload {
  std::unique_ptr<Session> session;
  std::vector<SourceRef> sources;
  std::vector<std::vector<frontend::ast::StmtPtr>> parsed;
  std::vector<Stmt> stmts;
  std::ofstream devnull{"/dev/null"};
};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

[[noreturn]] void child_fail(const std::string& m) {
  std::cerr << "quelkit profile: " << m << "\n";
  std::exit(1);
}

// The data, and the script run once (errors end the profile: a profile of a
// failing statement would be a profile of the error path).
void setup(Workload& w, const Options& o, bool wrap) {
  SessionOptions so;
  so.backends = backend_list(o);
  so.format = OutFormat::None;
  so.page_size = o.page_size;
  so.prepare = o.code.prepare();
  w.session = std::make_unique<Session>(so, w.devnull, std::cerr);
  Session& s = *w.session;
  if (wrap) {
    for (auto& r : s.runners()) {
      const BackendSpec* spec = find_backend(r->name());
      auto nr = std::make_unique<Runner>(r->name(), r->mode(),
                                         std::make_unique<ExcludePrepare>(spec->make(r->mode(), r->prepare_options())),
                                         r->options(), r->prepare_options());
      nr->cache().set_capacity(so.plan_cache_capacity);
      r = std::move(nr);
    }
  }
  for (const auto& p : o.parts) {
    if (s.catalog().find("parts")) s.catalog().remove("parts");
    s.catalog().add(make_parts(p.rows, p.wide, p.s, o.page_size));
  }
  int k = 0;
  for (const auto& [name, what] : o.scripts) {
    std::string text = what, srcname = name;
    if (name == "-") {  // standard input, read by the parent into a file (--stdin-script)
      std::ifstream f(o.stdin_script, std::ios::binary);
      if (o.stdin_script.empty() || !f) child_fail("standard input did not reach the profiled process");
      std::optional<Source::Cut> cut;
      if (!read_text(f, &text, &cut) || cut) child_fail("cannot read standard input's script");
      srcname = "<stdin>";
    } else if (name.empty()) {
      std::ifstream f(what, std::ios::binary);
      if (!f) child_fail("cannot open " + what + ": " + std::strerror(errno));
      // Bounded as the command bounds a script: a line or text past the
      // limits is refused, not profiled in part.
      std::optional<Source::Cut> cut;
      if (!read_text(f, &text, &cut)) child_fail("cannot read " + what + ": " + std::strerror(errno));
      if (cut) child_fail(what + ": " + cut->message);
      srcname = what;
    }
    auto src = std::make_shared<Source>(srcname, text);
    std::vector<frontend::ast::StmtPtr> stmts;
    try {
      stmts = frontend::parse(src);
    } catch (QuelError& e) {
      s.print_error(e.err);
      child_fail("the script does not parse");
    }
    for (size_t i = 0; i < stmts.size(); ++i) {
      const auto& st = *stmts[i];
      Stmt e;
      e.k = ++k;
      e.src = w.sources.size();
      e.index = i;
      e.ranges = s.ranges();
      e.line = st.pos.line;
      e.text = one_line(text.substr(st.begin, st.end - st.begin));
      using K = frontend::ast::Stmt;
      bool expr = st.kind == K::Retrieve || st.kind == K::Append || st.kind == K::Delete || st.kind == K::Replace;
      e.print = st.kind == K::Retrieve && st.relation.empty();
      if (!s.run_statement(st, src)) child_fail("statement " + std::to_string(e.k) + " failed; nothing profiled");
      if (expr) w.stmts.push_back(std::move(e));
    }
    w.sources.push_back(src);
    w.parsed.push_back(std::move(stmts));
  }
  if (w.stmts.empty()) child_fail(kNothingToProfile);
}

// Binding again against the database as the script left it can fail (the
// script destroyed a relation it queried earlier): that ends the profile.
// The range table is the session's, as run_stmt set it.
frontend::BoundQuery bind_stmt(Workload& w, const Stmt& e, const frontend::ast::Stmt& st) {
  try {
    return frontend::bind(st, w.session->ranges(), w.session->catalog(), w.sources[e.src]);
  } catch (QuelError& err) {
    if (!err.err.src) err.err.src = w.sources[e.src];
    child_fail("statement " + std::to_string(e.k) + " cannot be repeated: " + err.err.format());
  }
}

Result evaluate(Workload& w, const Stmt& e, const frontend::BoundQuery& q, Runner& r, bool keep) {
  Engine eng(w.session->catalog(), w.sources[e.src], e.k);
  Result res;
  try {
    res = eng.evaluate(q, r, keep);
  } catch (QuelError& err) {
    child_fail("statement " + std::to_string(e.k) + " failed: " + err.err.format());
  }
  if (!res.ok) child_fail("statement " + std::to_string(e.k) + " failed: " + res.error.format());
  return res;
}

// Tuples in the statement's largest relation: 0 for empty ones (the report
// then gives no per-tuple figure).
uint64_t tuples_of(Workload& w, const frontend::BoundQuery& q) {
  uint64_t n = 0;
  for (const auto& v : q.vars)
    if (const Relation* rel = w.session->catalog().find(v.relation)) n = std::max(n, rel->ntuples());
  return n;
}

// Tuples in the largest relation an aggregate in `e` ranges over: its inner
// query scans it, though the rewritten statement may name no relation at all
// (`retrieve (n = count(p.pnum))`).
uint64_t aggregate_tuples(Workload& w, const frontend::ast::Expr& e, bool inside = false) {
  using E = frontend::ast::Expr;
  inside = inside || e.kind == E::Aggregate;
  uint64_t n = 0;
  if (inside && e.kind == E::Attr) {
    const std::string* rel = w.session->ranges().find(e.text);  // or a relation named as its own variable
    if (const Relation* r = w.session->catalog().find(rel ? *rel : e.text)) n = r->ntuples();
  }
  for (const auto* kids : {&e.args, &e.by})
    for (const auto& k : *kids) n = std::max(n, aggregate_tuples(w, *k, inside));
  if (e.qual) n = std::max(n, aggregate_tuples(w, *e.qual, inside));
  return n;
}
uint64_t aggregate_tuples(Workload& w, const frontend::ast::Stmt& st) {
  uint64_t n = st.where ? aggregate_tuples(w, *st.where) : 0;
  for (const auto& t : st.targets)
    if (t.expr) n = std::max(n, aggregate_tuples(w, *t.expr));
  return n;
}

// One evaluation of statement e on runner r, as a session runs it (and not
// applied): the range table as it was when the statement ran in the script;
// its aggregates' inner queries first, on the same runner (engine/aggregate.h),
// their values and temporaries then bound into the statement. *tuples: the
// tuples of its largest relation.
Result run_stmt(Workload& w, const Stmt& e, const frontend::ast::Stmt& st, Runner& r, bool keep,
                uint64_t* tuples = nullptr) {
  w.session->ranges() = e.ranges;
  std::optional<AggregateScope> scope;
  try {
    if (has_aggregates(st)) scope.emplace(*w.session, r, st, w.sources[e.src]);
  } catch (QuelError& err) {
    if (!err.err.src) err.err.src = w.sources[e.src];
    child_fail("statement " + std::to_string(e.k) + " failed: " + err.err.format());
  }
  if (scope && !scope->ok())
    child_fail("statement " + std::to_string(e.k) + " failed: " + scope->failed().error.format());
  frontend::BoundQuery q = bind_stmt(w, e, scope ? scope->statement() : st);
  Result res = evaluate(w, e, q, r, keep);
  if (scope) res.stats.add_scan(scope->stats());  // the aggregates' queries are the statement's work
  if (tuples) *tuples = std::max(tuples_of(w, q), scope ? aggregate_tuples(w, st) : 0);
  return res;
}

// What the meta file says of statement e on runner r.
StmtMeta stmt_meta(const Runner& r, const Stmt& e, uint64_t tuples, const Result& res, uint64_t reps) {
  StmtMeta m;
  m.label = r.label();
  m.k = e.k;
  m.line = e.line;
  m.tuples = tuples;
  m.scanned = res.stats.rows_scanned;
  m.rows = res.stats.rows_out;
  m.reps = reps;
  m.text = e.text;
  return m;
}

// Lines in this process's perf map so far: the map as it is now.
size_t map_lines() {
  std::ifstream f(perfmap_path());
  size_t n = 0;
  std::string line;
  while (std::getline(f, line)) ++n;
  return n;
}

// perf's control fifo: events are enabled only around the repetitions.
void perf_control(int ctl, int ack, const char* cmd) {
  if (ctl < 0) return;
  ssize_t n = write(ctl, cmd, std::strlen(cmd));
  (void)n;
  char buf[16];
  if (ack >= 0) n = read(ack, buf, sizeof buf);
}

}  // namespace

int child_perf(const Options& o) {
  perfmap_enable(true);
  std::ofstream meta(o.child_dir + "/meta." + o.child_backend);
  write_meta_pid(meta, getpid());
  Workload w;
  setup(w, o, false);
  Runner& r = *w.session->runners().at(0);
  // One repetition: the script's statements as a session runs them again.
  std::vector<StmtMeta> stmts(w.stmts.size());
  auto rep = [&](bool first) {
    std::vector<std::vector<frontend::ast::StmtPtr>> parsed;
    for (const auto& src : w.sources) parsed.push_back(frontend::parse(src));
    if (o.cold) r.cache().clear();
    for (size_t i = 0; i < w.stmts.size(); ++i) {
      const Stmt& e = w.stmts[i];
      bool keep = e.print && o.format != OutFormat::None;
      // The tuples counted once, on the first repetition, not on the sampled ones.
      uint64_t tuples = 0;
      Result res = run_stmt(w, e, *parsed[e.src][e.index], r, keep, first ? &tuples : nullptr);
      if (keep) {
        if (o.format == OutFormat::Table) print_table(w.devnull, res.layout, res.rows);
        else print_csv(w.devnull, res.layout, res.rows);
      }
      if (first) stmts[i] = stmt_meta(r, e, tuples, res, 0);
    }
  };
  rep(true);
  int ctl = o.ctl.empty() ? -1 : open(o.ctl.c_str(), O_WRONLY | O_CLOEXEC);
  int ack = o.ack.empty() ? -1 : open(o.ack.c_str(), O_RDONLY | O_CLOEXEC);
  perf_control(ctl, ack, "enable\n");
  uint64_t t0 = now_ns(), reps = 0, limit = uint64_t(o.seconds * 1e9);
  do {
    rep(false);
    ++reps;
  } while (now_ns() - t0 < limit);
  uint64_t ns = now_ns() - t0;
  perf_control(ctl, ack, "disable\n");
  write_meta_run(meta, r.label(), reps, ns);
  for (StmtMeta& s : stmts) {
    s.reps = reps;
    write_meta_stmt(meta, s);
  }
  write_meta_done(meta);
  return 0;
}

int child_callgrind(const Options& o) {
  if (!RUNNING_ON_VALGRIND) child_fail("--child=callgrind runs only under valgrind --tool=callgrind");
  perfmap_enable(true);
  std::ofstream meta(o.child_dir + "/meta." + o.child_backend);
  write_meta_pid(meta, getpid());
  Workload w;
  setup(w, o, true);
  CALLGRIND_START_INSTRUMENTATION;
  int part = 0;
  for (auto& rp : w.session->runners()) {
    Runner& r = *rp;
    for (const Stmt& e : w.stmts) {
      const frontend::ast::Stmt& st = *w.parsed[e.src][e.index];
      // Bound once, outside the count, as the run phase is evaluation alone;
      // a statement with aggregates is bound per evaluation, after its inner
      // queries (whose values it is bound with), and counts both.
      std::optional<frontend::BoundQuery> bound;
      if (!has_aggregates(st)) {
        w.session->ranges() = e.ranges;
        bound = bind_stmt(w, e, st);
      }
      auto once = [&](uint64_t* tuples) {
        if (!bound) return run_stmt(w, e, st, r, false, tuples);
        if (tuples) *tuples = tuples_of(w, *bound);
        return evaluate(w, e, *bound, r, false);
      };
      // A cold preparation: the plan cache cleared, only prepare() collected.
      int prep_part = 0;
      size_t prep_map = 0;
      if (!o.no_prepare) {
        r.cache().clear();
        g_collect = Collect::Prepare;
        once(nullptr);
        g_collect = Collect::Off;
        CALLGRIND_DUMP_STATS_AT(("quelkit-profile " + std::to_string(++part)).c_str());
        prep_part = part;
        prep_map = map_lines();
      }
      uint64_t tuples = 0;
      Result warm = once(&tuples);  // warm: caches, first touches
      g_collect = Collect::Run;
      CALLGRIND_TOGGLE_COLLECT;
      for (int i = 0; i < o.reps; ++i) once(nullptr);
      CALLGRIND_TOGGLE_COLLECT;
      g_collect = Collect::Off;
      CALLGRIND_DUMP_STATS_AT(("quelkit-profile " + std::to_string(++part)).c_str());
      StmtMeta s = stmt_meta(r, e, tuples, warm, uint64_t(o.reps));
      s.run_part = part;
      s.prep_part = prep_part;
      s.run_map = map_lines();
      s.prep_map = prep_map;
      write_meta_stmt(meta, s);
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  write_meta_done(meta);
  return 0;
}

}  // namespace quelkit::profile
