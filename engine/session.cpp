// Statement execution for a session (session.h). Expression statements are
// evaluated on every runner before anything is applied, so a failed statement
// changes nothing and every back end sees the relation as it was.
#include "engine/session.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <unordered_set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/aggregate.h"
#include "engine/limits.h"
#include "engine/quel_statements.h"
#include "storage/budget.h"
#include "storage/checksum.h"
#include "storage/csv.h"
#include "storage/ingres_copy.h"
#include "storage/undo.h"
#include "engine/measure.h"
#include "runtime/runtime.h"
#include "engine/rows.h"
#include "engine/result_order.h"

namespace quelkit::harness {

namespace {

// A value made by f where it is stored: emplace_back(MadeBy{f}) constructs
// the element from f's result itself, where push_back would move it.
template <class F>
struct MadeBy {
  F f;
  operator std::invoke_result_t<F&>() { return f(); }
};

}  // namespace

using frontend::ast::Stmt;

std::vector<std::pair<std::string, std::string>> parse_backend_list(const std::string& spec, bool measured) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& name, const std::string& mode) {
    for (const auto& p : out)
      if (p.first == name && p.second == mode) return;
    out.emplace_back(name, mode);
  };
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item == "all") {
      for (const auto& b : registered_backends())
        for (const auto& m : b.modes)
          if (!measured || !m.for_tests) add(b.name, m.name);
      continue;
    }
    std::string name = item, mode;
    if (auto c = item.find(':'); c != std::string::npos) {
      name = item.substr(0, c);
      mode = item.substr(c + 1);
    }
    const BackendSpec* b = find_backend(name);
    if (!b) {
      std::string known;
      for (const auto& r : registered_backends()) known += (known.empty() ? "" : ", ") + r.name;
      throw_error(ErrKind::Usage, {}, nullptr,
                  "unknown back end '" + name + "' (built: " + known + ", or all)");
    }
    if (mode.empty()) mode = b->modes.front().name;
    if (mode == "all") {
      for (const auto& m : b->modes) add(name, m.name);
      continue;
    }
    if (!b->mode(mode)) {
      std::string known;
      for (const auto& m : b->modes) known += (known.empty() ? "" : ", ") + m.name;
      throw_error(ErrKind::Usage, {}, nullptr,
                  "back end " + name + " has no mode '" + mode + "' (modes: " + known + ")");
    }
    add(name, mode);
  }
  if (out.empty()) throw_error(ErrKind::Usage, {}, nullptr, "no back end given");
  return out;
}

Session::Session(SessionOptions opt, std::ostream& out, std::ostream& err)
    : opt_(std::move(opt)), out_(out), err_(err), msg_(&err), undo_(std::make_unique<UndoLog>()) {
  if (opt_.backends.empty()) opt_.backends = parse_backend_list("interp");
  cat_.set_usercode(session_user(opt_.user));
  owner_ = opt_.dba.empty() ? cat_.usercode() : opt_.dba;
  for (const auto& [name, mode] : opt_.backends) add_runner(name, mode, opt_.prepare);
}

Runner& Session::add_runner(const std::string& name, const std::string& mode, const PrepareOptions& prepare) {
  const BackendSpec* spec = find_backend(name);
  RunnerOptions ro = opt_.runner;
  ro.dump_out = &listing();
  ro.dump_decomp = opt_.dumps.count("decomp") > 0;
  for (const auto& d : opt_.dumps)
    if (spec->dumps(d)) ro.dumps.insert(d);
  auto r = std::make_unique<Runner>(name, mode, spec->make(mode, prepare), ro, prepare);
  r->cache().set_capacity(opt_.plan_cache_capacity);
  runners_.push_back(std::move(r));
  return *runners_.back();
}

Session::~Session() = default;

void Session::print_error(const Error& e) { err_ << e.format() << '\n'; }

void Session::invalidate(const std::string& relation) {
  for (auto& r : runners_) r->cache().invalidate(relation);
  catalog_changed();  // its structure changed too: the statement cache's bindings go
}

bool Session::run(const SourceRef& src) {
  const PhaseTiming phases(opt_.phase_timing);
  std::vector<Error> errors;
  std::vector<frontend::ast::StmtPtr> parsed;
  // The statement cache first (statement_cache.h): a text of a key it holds
  // is not lexed or parsed; its cached statement runs with the text's
  // literals and positions written in.
  // (norm_ is the session's buffer: read only before the statements run,
  // so an included file's run, inside one, may reuse it.)
  NormalisedText* norm = nullptr;
  CachedStatement* entry = nullptr;
  StatementCacheUse use = StatementCacheUse::None;
  const StatementCache::Against now{(cat_.version() << 32) + catalog_version_, ranges_.vars};
  if (statement_cache_on() && !src->cut()) {
    const uint64_t t0 = phase_ns();
    if (normalise_text(src->text(), norm_)) norm = &norm_;
    if (norm) {
      use = StatementCacheUse::Miss;
      if ((entry = stmt_cache_.find(norm->key, now))) {
        patch_statement(*entry, *norm);
        use = entry->plan    ? StatementCacheUse::Plan
              : entry->bound ? StatementCacheUse::Bind
                             : StatementCacheUse::Parse;
        entry->stmt->parse_ns = phase_ns() - t0;
      }
    }
  }
  // The statements to run: the cache's one (no vector made for it), or the parse's.
  const Stmt* cached = entry ? entry->stmt.get() : nullptr;
  std::vector<const Stmt*> stmts;
  if (!entry) {
    parsed = frontend::parse_recovering(src, &errors);
    // One statement the cache takes becomes its entry (a text of several,
    // or of a statement that failed to parse, is not cached).
    if (norm && errors.empty() && parsed.size() == 1) entry = stmt_cache_.adopt(*norm, parsed[0], now);
    if (entry) cached = entry->stmt.get();
    else
      for (const auto& p : parsed) stmts.push_back(p.get());
  }
  bool ok = errors.empty();
  size_t e = 0;
  auto before = [](SrcPos a, SrcPos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); };
  // A lexical or syntax error (or a refused monitor command) stops the text:
  // the statements wholly before it run, nothing from its position on does
  // (recovery at the next keyword could make a statement of the failed
  // one's text: `destroy delete p`). Later errors are still reported.
  if (!errors.empty()) {
    const SrcPos stop = errors.front().pos;
    const size_t kept = size_t(std::find_if(stmts.begin(), stmts.end(),
                                            [&](const auto& s) { return !before(s->pos, stop); }) -
                               stmts.begin());
    if (kept < stmts.size() || errors.size() > 1) errors.front().message += " (the text after it was not run)";
    stmts.resize(kept);
  }
  const bool syntax_stop = !errors.empty();
  stopped_ = false;  // set from here on by an included file's run
  for (const Stmt* s : cached ? std::span<const Stmt* const>(&cached, 1) : std::span<const Stmt* const>(stmts)) {
    // An error at a statement's first token is the statement's before it,
    // which failed on meeting that keyword (`retrieve (a = 1) where` then
    // `retrieve ...`): it is printed before this statement runs.
    while (e < errors.size() && !before(s->pos, errors[e].pos)) print_error(errors[e++]);
    if (cancel_requested()) {  // arrived between statements: this one does not start
      Error c;
      c.kind = ErrKind::Runtime;
      c.code = QK_ERR_CANCELLED;
      c.message = qk_err_message(QK_ERR_CANCELLED);
      c.pos = s->pos;
      c.src = src;
      print_error(c);
      fail_transaction();
      return false;
    }
    // The entry and how it was found, for the statement's binding and --stats.
    stmt_entry_ = entry;
    stmt_use_ = use;
    ok = run_statement(*s, src) && ok;
    stmt_entry_ = nullptr;
    stmt_use_ = StatementCacheUse::None;
    if (cancel_requested()) {  // the rest of the text does not run
      fail_transaction();  // a cancel inside a transaction undoes it, whatever it came during
      return false;
    }
    if (stopped_) break;  // an included file's syntax error stops this text too
  }
  while (e < errors.size()) print_error(errors[e++]);
  // A text stopped by its syntax error inside a transaction fails it, as
  // any other error there does: what the text meant to do did not all run.
  if (syntax_stop) fail_transaction();
  if (stopped_) return false;
  stopped_ = syntax_stop;
  return ok;
}

bool Session::run_statement(const Stmt& s, const SourceRef& src) {
  ++stmt_no_;
  stmt_rows_ = 0;
  if (opt_.dumps.count("ast")) listing() << "-- ast q" << stmt_no_ << "\n" << frontend::dump_ast(s) << "\n";
  // --stats=json has one object per statement: a statement no runner
  // evaluated (range, create, ..., or one that failed before it ran) gets
  // one of its own, timed here, after its output and its error.
  const size_t reports_before = reports_.size();
  const bool json_stats = opt_.stats && opt_.stats_json;
  const uint64_t start = stmt_start_ns_ = phase_ns();
  auto statement_stats = [&](const std::string& error) {
    if (json_stats && reports_.size() == reports_before) emit_statement_stats(s, phase_ns() - start, error);
  };
  // After a failure inside a transaction nothing runs until its end or
  // abort (help, which changes nothing, shows it): each statement says so.
  if (txn_ && txn_->failed && s.kind != Stmt::End && s.kind != Stmt::Abort && s.kind != Stmt::Help) {
    const std::string why = std::string(frontend::ast::statement_word(s.kind)) + " skipped: " + transaction_text() +
                            " failed; nothing runs until its end or abort";
    *msg_ << "(" << position_text(src, s.pos) << ": " << why << ")\n";
    statement_stats(why);
    return true;
  }
  try {
    const bool ok = exec(s, src);
    if (!ok) fail_transaction();
    // What a transaction counts as its statements: those that ran, not its
    // own begin, end or abort, nor help (which shows the count) or \i
    // (whose statements count themselves).
    if (ok && txn_ && s.kind != Stmt::Begin && s.kind != Stmt::End && s.kind != Stmt::Abort &&
        s.kind != Stmt::Help && s.kind != Stmt::Include)
      ++txn_->statements;
    statement_stats("");
    return ok;
  } catch (QuelError& e) {
    if (!e.err.src) e.err.src = src;
    if (!e.err.pos.line) e.err.pos = s.pos;  // the memory budget's: on the statement
    print_error(e.err);
    fail_transaction();
    statement_stats(e.err.format());
    return false;
  } catch (std::exception& e) {
    // A limit the checks above missed: report it against the statement and
    // keep the session (its relations are untouched: nothing was applied).
    Error err;
    err.kind = ErrKind::Runtime;
    err.pos = s.pos;
    err.src = src;
    err.message = dynamic_cast<std::bad_alloc*>(&e)
                      ? "out of memory: the system refused an allocation the memory budget (--memory-budget) allowed"
                      : std::string("internal limit: ") + e.what();
    print_error(err);
    fail_transaction();
    statement_stats(err.format());
    return false;
  }
}

// "1 row", "N rows": how every message and listing counts rows.

// "(N rows <what><name><close>)": a statement's message, written whole. The
// error stream is unbuffered, so each piece put there was a write of its own
// (five a replace, most of a short statement's result handling); the text is
// put together on the stack, as every short statement says one.
static void say_rows(std::ostream& os, size_t n, std::string_view what, std::string_view name = {},
                     std::string_view close = {}) {
  char head[32];
  auto [end, ec] = std::to_chars(head, head + sizeof head, n);
  const std::string_view parts[] = {"(", {head, size_t(end - head)}, n == 1 ? " row" : " rows", what, name, close, ")\n"};
  size_t len = 0;
  for (const auto& p : parts) len += p.size();
  char local[256];  // a short statement's message, without an allocation
  std::string big;
  char* m = local;
  if (len > sizeof local) big.resize(len), m = big.data();
  char* at = m;
  for (const auto& p : parts) at = std::copy(p.begin(), p.end(), at);
  os.write(m, std::streamsize(len));
}
// "3 statements", "1 statement": a transaction's count.
static std::string statements_text(size_t n) { return std::to_string(n) + (n == 1 ? " statement" : " statements"); }

// What --format none prints for a retrieve's rows or a print's relation.
static void put_checksum_line(std::ostream& os, uint64_t sum, size_t rows) {
  char line[64] = "checksum ";
  char* p = line + 9;
  checksum_hex_to(sum, p);
  p += 16;
  *p++ = ' ', *p++ = '(';
  p = std::to_chars(p, line + 48, rows).ptr;
  for (const char c : std::string_view(rows == 1 ? " row)\n" : " rows)\n")) *p++ = c;
  os.write(line, p - line);
}

// A relation's tuple must fit a page. (Its attributes are never empty:
// create takes c1..c255, and retrieve into stores a "" target as c1.)
static void check_tuple_fits(const Schema& schema, uint32_t page_size, SrcPos pos, const SourceRef& src) {
  if (tuples_per_page(page_size, schema.tuple_len) == 0)
    throw_error(ErrKind::Type, pos, src,
                "a tuple of " + std::to_string(schema.tuple_len) + " bytes does not fit a " + std::to_string(page_size) +
                    "-byte page, which holds tuples of at most " + std::to_string(max_tuple_len(page_size)) +
                    " bytes (--page-size sets the page size)");
}

static std::unique_ptr<Relation> new_relation(const std::string& name, Schema schema, uint32_t page_size, SrcPos pos,
                                              const SourceRef& src) {
  check_tuple_fits(schema, page_size, pos, src);
  return std::make_unique<Relation>(name, std::move(schema), page_size);
}

// The relation retrieve into makes: an attribute per target, of its format,
// but a target of "" (c0, no attribute's format) is stored as c1, a blank,
// which comparison (every blank ignored) finds equal to "".
static Schema into_schema(const frontend::BoundQuery& q) {
  std::vector<std::pair<std::string, Type>> cols;
  for (const auto& t : q.targets) {
    const Type type = t.expr->type;
    cols.emplace_back(t.name, type.is_char() && type.len == 0 ? Type::c(1) : type);
  }
  return Schema::packed(cols);
}

bool Session::exec(const Stmt& s, const SourceRef& src) {
  switch (s.kind) {
    case Stmt::Range: {
      if (!cat_.find(s.relation) && !is_system_catalog(lowercase(s.relation)) && !qmod_.is_view(s.relation))
        throw_error(ErrKind::Name, s.relation_pos, src, "there is no relation '" + s.relation + "'");
      ranges_.set(s.var, lowercase(s.relation));
      catalog_changed();
      return true;
    }
    case Stmt::Retrieve:
    case Stmt::Append:
    case Stmt::Delete:
    case Stmt::Replace: return exec_query(s, src);
    case Stmt::Create: exec_create(s, src); return true;
    case Stmt::Copy: exec_copy(s, src); return true;
    case Stmt::Modify: exec_modify(s, src); return true;
    case Stmt::Destroy: exec_destroy(s, src); return true;
    case Stmt::Print: exec_print(s, src); return true;
    case Stmt::Help: exec_help(s, src); return true;
    case Stmt::Begin: exec_begin(s, src); return true;
    case Stmt::End: exec_end(s, src); return true;
    case Stmt::Abort: exec_abort(s, src); return true;
    case Stmt::Save: exec_save(s, src); return true;
    case Stmt::Index: exec_index(s, src); return true;
    case Stmt::Define: exec_define(s, src); return true;
    case Stmt::Include:
      if (!includer_) throw_error(ErrKind::IO, s.file_pos, src, "\\i: no files can be included here");
      return includer_(s.file, s.file_pos, src);
  }
  return true;
}

Result Session::evaluate(const frontend::BoundQuery& q, Runner& r, const SourceRef& src, bool keep_rows,
                         bool verify, qk_accum* acc) {
  Engine eng(cat_, src, stmt_no_);
  // The statement cache's binding (not an aggregate's inner query, nor a
  // caller's own): its plan is kept with it.
  if (stmt_entry_ && stmt_entry_->bound && &q == &*stmt_entry_->bound) eng.set_entry(stmt_entry_);
  try {
    return eng.evaluate(q, r, keep_rows, verify, acc);
  } catch (QuelError& e) {
    // What run_statement reports for a statement; the report, the sweep and
    // the Wisconsin report read it from the Result. (It escaped them: a
    // gccjit compile that failed ended `quelkit paper` in std::terminate.)
    Result res;
    res.ok = false;
    res.error = std::move(e.err);
    if (!res.error.src) res.error.src = src;
    if (!res.error.pos.line) res.error.pos = q.pos;
    return res;
  }
}

void Session::dump_ir(const frontend::BoundQuery& q, const std::string& name) {
  if (opt_.dumps.empty() || dumps_quiet_) return;
  for (const char* form : {"ir", "folded"}) {
    if (!opt_.dumps.count(form)) continue;
    bool folded = form[0] == 'f';
    listing() << "-- " << form << " " << name << "\n";
    if (q.qual) listing() << "where:\n" << ir::dump(folded ? *frontend::fold(*q.qual) : *q.qual, 1);
    for (const auto& t : q.targets)
      listing() << "target " << t.name << ":\n" << ir::dump(folded ? *frontend::fold(*t.expr) : *t.expr, 1);
  }
}

Result Session::repeat_aggregates(const Stmt& s, Runner& r, const SourceRef& src, uint64_t& repeat_ns) {
  struct Quiet {  // no dumps from the repetition, the session's or the runner's
    Session& self;
    Runner& r;
    std::ostream* out = r.set_dump_out(nullptr);
    Quiet(Session& self, Runner& r) : self(self), r(r) { self.dumps_quiet_ = true; }
    ~Quiet() {
      self.dumps_quiet_ = false;
      r.set_dump_out(out);
    }
  } quiet{*this, r};
  AggregateScope scope(*this, r, s, src);
  if (!scope.ok()) return std::move(scope.failed());
  const frontend::BoundQuery q = frontend::bind(scope.statement(), ranges_, cat_, src);
  Result again = evaluate(q, r, src, false, false);
  repeat_ns = again.stats.run_ns + scope.stats().run_ns;
  return again;
}

bool Session::exec_query(const Stmt& typed, const SourceRef& src) {
  // Query modification first (views, integrity, permits): the statement as
  // modified is what every back end evaluates, bound afresh (the statement
  // cache's binding is of the text as typed), its views' variables in force.
  QueryModification::Modified mod;
  if (!qmod_.idle(cat_.usercode(), owner_)) mod = qmod_.modify(typed, ranges_, cat_, asker(), src);
  ScopedVars view_vars(ranges_, std::move(mod.vars));
  if (mod.stmt) stmt_entry_ = nullptr;
  const Stmt& s = mod.stmt ? *mod.stmt : typed;
  SystemCatalogs catalogs(*this, s, src);  // `relation` and `attribute`, if the statement reads them
  CachedStatement* entry = stmt_entry_ && stmt_entry_->stmt.get() == &s ? stmt_entry_ : nullptr;
  if (!entry || !entry->updates_no_index) {
    refuse_index_update(s, ranges_, cat_, src);
    if (entry) entry->updates_no_index = true;
  }
  // A statement with aggregates is bound per runner, once its aggregates have
  // values (engine/aggregate.h); the first runner's binding is then applied.
  // (The statement cache takes none: an entry has none.)
  const bool aggregates = !entry && has_aggregates(s);
  // (Held through a pointer, as `scope` and `local` below: an empty optional
  // of one is still kilobytes the compiler zeroes on every statement.)
  std::unique_ptr<frontend::BoundQuery> bound;
  // A relation retrieve into cannot store is refused before anything runs,
  // as create refuses it.
  auto check_into = [&](const frontend::BoundQuery& q) {
    if (!q.into.empty()) check_tuple_fits(into_schema(q), opt_.page_size, s.relation_pos, src);
  };
  uint64_t bind_ns = 0;  // the statement's binding (each runner's too, with aggregates)
  // The binding used: the statement cache's (patched with the text's
  // literals when the text was looked up), or `bound`.
  const frontend::BoundQuery* boundp = nullptr;
  if (!aggregates && stmt_entry_ && stmt_entry_->bound) {
    boundp = &*stmt_entry_->bound;
  } else if (!aggregates) {
    const uint64_t b0 = phase_ns();
    bound = std::make_unique<frontend::BoundQuery>(frontend::bind(s, ranges_, cat_, src));
    check_into(*bound);
    bind_ns = phase_ns() - b0;
    boundp = &*bound;
    // A cached statement's first binding is kept, if it can be patched.
    if (stmt_entry_ && !stmt_entry_->bind_tried)
      if (const frontend::BoundQuery* kept = adopt_bound(*stmt_entry_, *bound)) {
        boundp = kept;
        bound.reset();
      }
  }
  // With aggregates, the statement as rewritten on the first runner (their
  // values as constants, aggregate functions' temporaries joined back),
  // after its aggregates' inner queries (AggregateScope dumps each).
  const std::string stmt_plans = "q" + std::to_string(stmt_no_);
  if (boundp) dump_ir(*boundp, stmt_plans);
  // Rows are needed unless a plain retrieve prints nothing (--format none).
  const bool keep = !(s.kind == Stmt::Retrieve && s.relation.empty() && opt_.format == OutFormat::None);
  std::vector<Result> results;
  results.reserve(runners_.size());  // `first` below is a reference into it
  // Later answers are compared with the first (ref); a runner that could not
  // run the statement (could_not_run: its size limit, its toolchain) gave no
  // answer and is compared with nothing (refused: the first such).
  size_t ref = 0, refused = SIZE_MAX;
  std::string diff;    // the first difference from results[ref]
  size_t differs = 0;  // the runner it was found in
  // Stats follow the statement's output (and its error, if any), with the
  // statement's fixed costs: its parse, its result's handling (from
  // result_t0, when it got that far) and its whole time up to here.
  struct StatsAtEnd {
    Session* self;
    const Stmt& s;
    size_t from;
    uint64_t result_t0 = 0;
    ~StatsAtEnd() {
      const uint64_t end = phase_ns();
      for (size_t i = from; i < self->reports_.size(); ++i) {
        ExecStats& st = self->reports_[i].stats;
        st.parse_ns = s.parse_ns;
        st.result_ns = result_t0 ? end - result_t0 : 0;
        st.total_ns = s.parse_ns + (end - self->stmt_start_ns_);
      }
      if (self->opt_.stats)
        for (size_t i = from; i < self->reports_.size(); ++i) self->emit_stats(self->reports_[i]);
    }
  } stats_at_end{this, s, reports_.size()};
  for (auto& r : runners_) {
    // --repeat K: K single runs (no loop to a minimum time: a run is the
    // statement), summarised by the timing module (measure.h).
    std::vector<double> times;
    std::unique_ptr<AggregateScope> scope;
    std::unique_ptr<frontend::BoundQuery> local;
    if (aggregates) scope = std::make_unique<AggregateScope>(*this, *r, s, src);
    const bool inner_failed = scope && !scope->ok();
    uint64_t local_bind_ns = 0;
    if (scope && !inner_failed) {
      const uint64_t b0 = phase_ns();
      local = std::make_unique<frontend::BoundQuery>(frontend::bind(scope->statement(), ranges_, cat_, src));
      check_into(*local);
      local_bind_ns = phase_ns() - b0;
      if (r == runners_.front()) dump_ir(*local, stmt_plans);
    }
    const frontend::BoundQuery* q = local ? &*local : boundp;
    Result& first = results.emplace_back(MadeBy{[&]() -> Result {
      return inner_failed ? std::move(scope->failed()) : evaluate(*q, *r, src, keep, verify_);
    }});
    if (scope) {  // the aggregates' queries ran first and are part of the statement's work
      first.stats.add_scan(scope->stats());
      first.stats.run_ns += scope->stats().run_ns;
      first.stats.access_path = join_access_paths(scope->stats().access_path, first.stats.access_path);
      first.stats.selection = join_selections(scope->stats().selection, first.stats.selection);
    }
    const double first_time = double(first.stats.run_ns);
    if (opt_.repeat > 1) times.push_back(first_time);  // (one run needs no list)
    // The repetitions after the first are timed only: the first run's rows
    // were checksummed, and a checksum pass between timed runs is work the
    // next run would start after (reading every result row), which a
    // hand-written loop's timed runs never do (docs/stats.md).
    // A repetition that fails (Ctrl-C: the next one's scan refuses to start)
    // fails the statement and ends the loop: `--repeat 100000000` ran on for
    // its K runs after a Ctrl-C, each cancelled at once.
    // A statement's aggregates are part of each repetition, run afresh.
    for (int k = 1; k < opt_.repeat && first.ok && s.kind == Stmt::Retrieve; ++k) {
      uint64_t again_ns = 0;
      Result again = scope ? repeat_aggregates(s, *r, src, again_ns) : evaluate(*q, *r, src, false, false);
      if (!again.ok) {
        first.ok = false;
        first.error = std::move(again.error);
        break;
      }
      times.push_back(double(scope ? again_ns : again.stats.run_ns));
    }
    if (local && !boundp) {
      bound = std::move(local);
      boundp = &*bound;
    }
    // One run (every statement but a repeated retrieve) has nothing to summarise.
    Stats ts;
    if (times.size() <= 1) ts.median = ts.min = ts.max = first_time;
    else ts = summarise(times);
    StmtReport rep;
    rep.stmt = stmt_no_;
    rep.line = s.pos.line;
    rep.statement = frontend::ast::statement_word(s.kind);
    rep.backend = r->name();
    rep.mode = r->mode();
    rep.stats = std::move(first.stats);  // (a Result's stats are read no more: only its answer)
    rep.stats.run_ns = uint64_t(ts.median);
    rep.stats.bind_ns = bind_ns + local_bind_ns;
    rep.stats.statement_cache = stmt_use_;
    rep.run_ns_min = uint64_t(ts.min);
    rep.run_ns_max = uint64_t(ts.max);
    rep.runs = int(std::max<size_t>(times.size(), 1));
    if (!first.ok) rep.error = first.error.format();
    reports_.push_back(std::move(rep));
    // Compared with the first runner's result as soon as it is made, and its
    // rows and updated tuples let go: only the first's are used after the
    // loop, and holding every runner's at once made the memory budget fail
    // the later ones (a replace's or delete's tuples too, once).
    const size_t i = results.size() - 1;
    if (could_not_run(results[i])) {
      if (refused == SIZE_MAX) refused = i;
    } else if (could_not_run(results[ref])) {
      ref = i;  // the first answer: the one the later ones are compared with
    } else if (i != ref && diff.empty()) {  // the first is the reference itself
      diff = result_difference(results[ref], results[i]);
      differs = i;
    }
    if (i != ref) {
      Result& later = results[i];
      later.rows.clear();
      std::vector<Tid>().swap(later.tids);
      later.tids_charge.reset();
    }
  }
  Result& res = results[ref];
  if (!diff.empty()) {
    // The memory budget refusing a later runner for the first's rows held
    // to compare with gave no answer to compare either: said as such.
    const Result& other = results[differs];
    if (res.ok && !other.ok && other.error.code == QK_ERR_MEMORY) {
      print_error(other.error);
      err_ << "(" << runners_[differs]->label() << " ran while " << runners_[ref]->label()
           << "'s result was held to compare with it)\n";
      return false;
    }
    err_ << position_text(src, s.pos) << ": error: back ends disagree: "
         << runners_[ref]->label() << " vs " << runners_[differs]->label() << ": " << diff << '\n';
  }
  if (refused != SIZE_MAX && diff.empty()) {
    // A runner that could not run the statement, where another ran, is the
    // statement's error, said as such, not a disagreement between answers.
    // The one that ran may have failed too (division by zero): that error
    // is its answer, and is said first. Where none ran, each runner's own
    // refusal is said once.
    if (!could_not_run(res)) {
      if (!res.ok) print_error(res.error);
      print_error(results[refused].error);
      err_ << "(" << runners_[refused]->label() << " could not run the statement; " << runners_[ref]->label()
           << " did: an answer missing, not one differing)\n";
      return false;
    }
    for (size_t i = 0; i < results.size(); ++i)
      if (std::none_of(results.begin(), results.begin() + i, [&](const Result& r) { return r.error == results[i].error; }))
        print_error(results[i].error);
    return false;
  }
  if (!res.ok) {
    print_error(res.error);
    return false;
  }
  if (!diff.empty()) return false;
  const frontend::BoundQuery& q = *boundp;
  // A Ctrl-C that came after the scans ended: the last moment nothing has
  // changed, so the statement is cancelled whole, not applied and then
  // followed by a silent stop (a 200,000-row replace was).
  check_cancel();
  stats_at_end.result_t0 = phase_ns();
  return apply(s, src, q, res);
}

// What a statement's result does, once every runner agreed on it: a
// retrieve's rows printed (or stored by `into`), an append's tuples added,
// a replace's or delete's tuples changed. Each is one change: what can fail
// (the memory budget, a relation that exists) fails before anything changes.
bool Session::apply(const Stmt& s, const SourceRef& src, const frontend::BoundQuery& q, Result& res) {
  const uint32_t len = res.layout.tuple_len;
  switch (q.kind) {
    case frontend::BoundKind::Retrieve: {
      if (opt_.runner.count_sink && q.into.empty()) {  // a measurement: the count, no rows
        // A message, as "(N rows appended)" is, under every format: a count
        // has no rows to print or checksum (--stats=json carries it as rows_out).
        if (!json_only()) say_rows(*msg_, res.nrows(), " counted");
        return true;
      }
      size_t n = res.keep_rows ? res.rows.size() : res.nrows();
      if (!q.into.empty()) {
        if (cat_.find(q.into))
          throw_error(ErrKind::Name, s.relation_pos, src, "relation '" + q.into + "' already exists");
        // Rows are packed in the result's layout; a "" target is c0 there
        // and a blank in the relation (into_schema).
        // Sorted on every domain and without duplicates, as INGRES stored
        // a retrieve into (its result modified to cheapsort).
        order_rows(res.rows, res.layout, {}, true);
        n = res.rows.size();
        Schema stored = into_schema(q);
        auto rel = new_relation(q.into, stored, opt_.page_size, s.relation_pos, src);
        rel->reserve_tuples(n);
        const bool same = stored.tuple_len == len;
        std::vector<uint8_t> tuple(stored.tuple_len);
        res.rows.for_each_run([&](const uint8_t* run, size_t k) {
          for (size_t i = 0; i < k; ++i) {
            const uint8_t* row = run + i * len;
            if (same) {
              rel->insert(row);
              continue;
            }
            for (size_t j = 0; j < stored.attrs.size(); ++j) {
              const Attribute& from = res.layout.attrs[j];
              const Attribute& to = stored.attrs[j];
              if (from.type.len == to.type.len)
                std::memcpy(tuple.data() + to.offset, row + from.offset, to.type.len);
              else
                tuple[to.offset] = ' ';
            }
            rel->insert(tuple.data());
          }
        });
        if (UndoLog* u = undo_log()) u->create(cat_, std::move(rel));
        else cat_.add(std::move(rel));
        say_rows(*msg_, n, " into ", q.into);
      } else if (opt_.format != OutFormat::None) {
        show_result(res.layout, res.rows);
      } else if (!json_only()) {  // the JSON object carries the checksum
        put_checksum_line(out_, res.checksum.sum, n);
      }
      return true;
    }
    case frontend::BoundKind::Append: {
      Relation* rel = cat_.find(q.relation);
      const Schema& sch = rel->schema();
      std::vector<uint8_t> base(sch.tuple_len);
      for (const auto& a : sch.attrs)
        if (a.type.kind == Tk::C) std::memset(base.data() + a.offset, ' ', a.type.len);
      std::vector<uint8_t> tuple(sch.tuple_len);
      size_t n = res.nrows();
      UndoLog* undo = undo_log();
      if (undo) undo->reserve(n, 0);
      std::vector<Tid> added;
      // One change: an insert the memory budget refuses takes the others out.
      rel->insert_all(
          n,
          [&](size_t i) {
            tuple = base;
            for (size_t t = 0; t < q.targets.size(); ++t)
              copy_value(res.layout.attrs[t].type, res.rows.row(i) + res.layout.attrs[t].offset,
                         sch.attrs[size_t(q.targets[t].column)], tuple.data());
            return tuple.data();
          },
          undo ? &added : nullptr);
      for (const Tid t : added) undo->inserted(rel, t);
      say_rows(*msg_, n, " appended to ", rel->name());
      return true;
    }
    case frontend::BoundKind::Delete:
    case frontend::BoundKind::Replace: {
      Relation* rel = cat_.find(q.vars[size_t(q.update_var)].relation);
      const Schema& sch = rel->schema();
      // A tuple qualifying through several combinations is updated once, by
      // the first. A set of the Tids seen: comparing with every earlier one
      // is quadratic, and made a large replace cost far more than its scan.
      // (A short statement's one or few Tids are compared with each other: no set to make.)
      std::vector<std::pair<Tid, size_t>> todo;
      auto tid_key = [](Tid t) { return uint64_t(t.page) << 16 | t.line; };
      if (res.tids.size() <= 16) {
        for (size_t i = 0; i < res.tids.size(); ++i)
          if (std::none_of(todo.begin(), todo.end(),
                           [&](const auto& d) { return tid_key(d.first) == tid_key(res.tids[i]); }))
            todo.emplace_back(res.tids[i], i);
      } else {
        std::unordered_set<uint64_t> seen;
        seen.reserve(res.tids.size());
        for (size_t i = 0; i < res.tids.size(); ++i)
          if (seen.insert(tid_key(res.tids[i])).second) todo.emplace_back(res.tids[i], i);
      }
      // Inside a transaction each change is logged; the log's room is
      // reserved first, so logging cannot fail once tuples change.
      UndoLog* undo = undo_log();
      if (q.kind == frontend::BoundKind::Delete) {
        if (undo) undo->reserve(todo.size(), 0);
        for (const auto& [t, k] : todo)
          if (rel->erase(t) && undo) undo->erased(rel, t);
        say_rows(*msg_, todo.size(), " deleted from ", rel->name());
        return true;
      }
      // Build every new tuple from the old relation first, then apply.
      // (One buffer, tuple i at i * tuple_len.)
      const size_t tl = sch.tuple_len;
      uint8_t local[512];  // a short replace's few tuples, without an allocation
      std::vector<uint8_t> fresh_tuples(todo.size() * tl > sizeof local ? todo.size() * tl : 0);
      uint8_t* const fresh_at = fresh_tuples.empty() ? local : fresh_tuples.data();
      auto fresh = [&](size_t i) { return fresh_at + i * tl; };
      for (size_t i = 0; i < todo.size(); ++i) {
        const uint8_t* old = rel->tuple(todo[i].first);
        uint8_t* nt = fresh(i);
        std::memcpy(nt, old, tl);
        for (size_t c = 0; c < q.targets.size(); ++c)
          copy_value(res.layout.attrs[c].type, res.rows.row(todo[i].second) + res.layout.attrs[c].offset,
                     sch.attrs[size_t(q.targets[c].column)], nt);
      }
      // A change of any key domain moves the tuple.
      std::vector<size_t> moved;
      for (size_t i = 0; i < todo.size(); ++i) {
        const uint8_t* old = rel->tuple(todo[i].first);
        for (const int key : rel->key_attrs())
          if (compare_value(sch.attrs[size_t(key)], old, fresh(i)) != 0) {
            moved.push_back(i);
            break;
          }
      }
      // A tuple whose key changed moves: its new version is inserted first,
      // as one change, since only an insert can fail (the memory budget);
      // then the old versions are erased and the others overwritten in place
      // (Tids stay valid: inserts never reuse a line).
      if (undo) undo->reserve(todo.size() + moved.size(), (todo.size() - moved.size()) * sch.tuple_len);
      std::vector<Tid> added;
      rel->insert_all(moved.size(), [&](size_t j) -> const uint8_t* { return fresh(moved[j]); }, undo ? &added : nullptr);
      for (const Tid t : added) undo->inserted(rel, t);
      for (size_t j = 0, i = 0; i < todo.size(); ++i) {
        if (j < moved.size() && moved[j] == i) {
          if (rel->erase(todo[i].first) && undo) undo->erased(rel, todo[i].first);
          ++j;
        } else {
          if (undo) undo->overwriting(rel, todo[i].first);
          rel->overwrite(todo[i].first, fresh(i));
        }
      }
      say_rows(*msg_, todo.size(), " replaced in ", rel->name());
      return true;
    }
  }
  return true;
}

// In integers: ns / 1000.0 through ostream's default 6 digits printed a
// run of seconds as 4.34297e+06.
std::string session_user(const std::string& given) {
  std::string u = given;
  for (const char* var : {"QUELKIT_USER", "USER"})
    if (const char* v = std::getenv(var); u.empty() && v) u = v;
  if (u.empty()) u = "ingres";
  return u.substr(0, 255);
}

std::string session_terminal(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* t = isatty(0) ? ttyname(0) : nullptr) {
    std::string name = t;
    if (name.starts_with("/dev/")) name = name.substr(5);
    return name;
  }
  return "none";
}

std::string stats_us_text(uint64_t ns) {
  std::string frac = std::to_string(ns % 1000);
  return std::to_string(ns / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

// The tier fields of a back end that changes tiers (docs/stats.md), "" for the others.
static std::string tier_text(const ExecStats& s) {
  if (s.tier_tuples.empty() && !s.bg_compiles) return "";
  std::ostringstream os;
  os << "; tiers " << s.tiers();
  if (s.tier_switch_page >= 0) os << ", switched at page " << s.tier_switch_page;
  if (s.bg_compiles)
    os << "; background compiles " << s.bg_compiles << " (abandoned " << s.bg_abandoned << "), wall "
       << stats_us_text(s.bg_compile_wall_ns) << " us, cpu " << stats_us_text(s.bg_compile_cpu_ns) << " us";
  return os.str();
}

void Session::show_result(const Schema& schema, const ResultRows& rows) {
  switch (opt_.format) {
    case OutFormat::Table: print_table(out_, schema, rows); break;
    case OutFormat::Csv:
      if (results_shown_++ && opt_.separate_results) out_ << '\n';
      print_csv(out_, schema, rows);
      break;
    case OutFormat::Json: print_json(out_, schema, rows, stmt_no_); break;
    case OutFormat::None: break;
  }
}

void Session::emit_statement_stats(const Stmt& s, uint64_t run_ns, const std::string& error) {
  StmtReport r;
  r.stmt = stmt_no_;
  r.line = s.pos.line;
  r.statement = frontend::ast::statement_word(s.kind);
  r.stats.rows_out = stmt_rows_;
  r.stats.run_ns = r.run_ns_min = r.run_ns_max = run_ns;
  r.stats.parse_ns = s.parse_ns;
  r.stats.total_ns = s.parse_ns + run_ns;
  r.stats.statement_cache = stmt_use_;
  r.error = error;
  emit_stats(r);
}

void Session::emit_stats(const StmtReport& r) {
  const ExecStats& s = r.stats;
  const bool session_only = r.backend.empty();  // no back end evaluated it
  const std::string settings = session_only ? "" : backend_settings(r.backend, opt_.prepare);
  std::ostream& out = stats_out();
  if (opt_.stats_json) {
    // One object per line, fields in docs/stats.md's order.
    const nlohmann::ordered_json j = {
        {"stmt", r.stmt},
        {"line", r.line},
        {"statement", r.statement},
        {"backend", session_only ? nlohmann::ordered_json() : nlohmann::ordered_json(r.backend)},
        {"mode", session_only ? nlohmann::ordered_json() : nlohmann::ordered_json(r.mode)},
        {"jit_opt", opt_.prepare.jit_opt},
        {"jit_lookup_opt", opt_.prepare.jit_lookup_opt},
        {"settings", settings},
        {"page_bytes", opt_.page_size},
        {"access_path", s.access_path},
        {"selection", s.selection},
        {"accumulated", s.accumulated},
        {"rows_scanned", s.rows_scanned},
        {"rows_qualified", s.rows_qualified},
        {"rows_out", s.rows_out},
        {"index_pages", s.index_pages},
        {"index_fetched", s.index_fetched},
        {"prepares", s.prepares},
        {"cache_hits", s.cache_hits},
        {"prepare_ns", s.prepare_ns},
        {"irgen_ns", s.irgen_ns},
        {"opt_ns", s.opt_ns},
        {"codegen_ns", s.codegen_ns},
        {"run_ns", s.run_ns},
        {"run_ns_min", r.run_ns_min},
        {"run_ns_max", r.run_ns_max},
        {"repeat", r.runs},
        {"verify_ns", s.verify_ns},
        {"parse_ns", s.parse_ns},
        {"bind_ns", s.bind_ns},
        {"plan_ns", s.plan_ns},
        {"lookup_ns", s.lookup_ns},
        {"result_ns", s.result_ns},
        {"total_ns", s.total_ns},
        {"statement_cache", statement_cache_use_name(s.statement_cache)
                                ? nlohmann::ordered_json(statement_cache_use_name(s.statement_cache))
                                : nlohmann::ordered_json()},
        {"checksum", checksum_hex(s.checksum)},
        {"tiers", s.tiers()},
        {"tier_switch_page", s.tier_switch_page},
        {"bg_compiles", s.bg_compiles},
        {"bg_abandoned", s.bg_abandoned},
        {"bg_compile_wall_ns", s.bg_compile_wall_ns},
        {"bg_compile_cpu_ns", s.bg_compile_cpu_ns},
        {"error", r.error.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.error)}};
    // An error quoting a literal may hold bytes that are not UTF-8: they
    // become U+FFFD rather than an exception.
    out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    return;
  }
  // A JIT's phases, where it reported them (a cache hit prepares nothing).
  std::string phases;
  if (s.irgen_ns || s.opt_ns || s.codegen_ns)
    phases = " (irgen " + stats_us_text(s.irgen_ns) + ", opt " + stats_us_text(s.opt_ns) + ", codegen " +
             stats_us_text(s.codegen_ns) + ")";
  out << "-- q" << r.stmt << " (line " << r.line << ") " << r.backend << ":" << r.mode
       << (settings.empty() ? "" : " [" + settings + "]") << ": " << s.access_path
       << (s.selection.empty() ? "" : " (" + s.selection + ")")
       << (s.accumulated.empty() ? "" : "; accumulated " + s.accumulated) << "; scanned " << s.rows_scanned << ", qualified " << s.rows_qualified << ", out " << s.rows_out
       << (s.index_pages ? "; index pages " + std::to_string(s.index_pages) + ", fetched " + std::to_string(s.index_fetched) : "")
       << "; prepares " << s.prepares << ", cache hits " << s.cache_hits << "; prepare " << stats_us_text(s.prepare_ns)
       << " us" << phases << ", run " << stats_us_text(s.run_ns) << " us (min " << stats_us_text(r.run_ns_min) << ", max "
       << stats_us_text(r.run_ns_max) << ", " << r.runs << (r.runs == 1 ? " run" : " runs") << "); verify " << stats_us_text(s.verify_ns) << " us; parse " << stats_us_text(s.parse_ns) << ", bind "
       << stats_us_text(s.bind_ns) << ", plan " << stats_us_text(s.plan_ns) << ", lookup " << stats_us_text(s.lookup_ns)
       << ", result " << stats_us_text(s.result_ns) << ", total " << stats_us_text(s.total_ns) << " us"
       << (statement_cache_use_name(s.statement_cache)
               ? std::string("; statement cache ") + statement_cache_use_name(s.statement_cache)
               : std::string())
       << "; checksum " << checksum_hex(s.checksum)
       << tier_text(s) << (r.error.empty() ? "" : "; error") << "\n";
}

void Session::exec_create(const Stmt& s, const SourceRef& src) {
  if (is_system_catalog(lowercase(s.relation)))
    throw_error(ErrKind::Name, s.relation_pos, src, "'" + s.relation + "' is a system catalog: the name is taken");
  if (cat_.find(s.relation))
    throw_error(ErrKind::Name, s.relation_pos, src, "relation '" + s.relation + "' already exists");
  std::vector<std::pair<std::string, Type>> cols;
  for (const auto& c : s.columns) {
    for (const auto& p : cols)
      if (p.first == c.name) throw_error(ErrKind::Name, c.pos, src, "attribute " + c.name + " given twice");
    auto t = parse_format(c.format);
    if (!t) throw_error(ErrKind::Type, c.format_pos, src, "unknown format '" + c.format + "' (i1 i2 i4 f4 f8 c1..c255)");
    cols.emplace_back(c.name, *t);
  }
  auto rel = new_relation(lowercase(s.relation), Schema::packed(cols), opt_.page_size, s.relation_pos, src);
  if (UndoLog* u = undo_log()) u->create(cat_, std::move(rel));
  else cat_.add(std::move(rel));
}

void Session::exec_modify(const Stmt& s, const SourceRef& src) {
  Relation& rel = user_relation(s.relation, s.relation_pos, src);
  if (!rel.notes().index_of.empty())
    throw_error(ErrKind::Name, s.relation_pos, src,
                "'" + rel.name() + "' is an index of '" + rel.notes().index_of + "': it stays isam on its domains");
  modify_relation(rel, s, src, undo_log());
  invalidate(lowercase(s.relation));
}

// The index is a relation of the catalog; the base's plans are stale (a
// new access path may use it).
void Session::exec_index(const Stmt& s, const SourceRef& src) {
  Relation& base = user_relation(s.relation, s.relation_pos, src);
  create_index(cat_, base, s, src, undo_log());
  invalidate(lowercase(s.relation));
  catalog_changed();
}

void Session::exec_save(const Stmt& s, const SourceRef& src) {
  Relation& rel = user_relation(s.relation, s.relation_pos, src);
  if (UndoLog* u = undo_log()) u->modifying(rel);  // an abort takes the date back with the relation
  rel.notes().save_until = s.save_until;
}

Relation& Session::user_relation(const std::string& name, SrcPos pos, const SourceRef& src) {
  if (is_system_catalog(lowercase(name)))
    throw_error(ErrKind::Name, pos, src, "'" + name + "' is a system catalog: it is read-only");
  Relation* rel = cat_.find_as_is(name);  // an index is not rebuilt to be destroyed
  if (!rel) throw_error(ErrKind::Name, pos, src, "there is no relation '" + name + "'");
  return *rel;
}

Session::SystemCatalogs::SystemCatalogs(Session& s, const Stmt& st, const SourceRef& src) : self(s) {
  CachedStatement* e = s.stmt_entry_ && s.stmt_entry_->stmt.get() == &st ? s.stmt_entry_ : nullptr;
  if (e && e->reads_no_catalog) return;
  if (!reads_system_catalog(st, s.ranges_, src)) {
    if (e) e->reads_no_catalog = true;
    return;
  }
  for (const char* name : {"relation", "attribute"}) {
    s.cat_.add(build_system_catalog(name, s.cat_, s.opt_.page_size));
    added.push_back(name);
  }
  // Their widths follow the longest name: what was bound against the last ones is stale.
  s.catalog_changed();
}

Session::SystemCatalogs::~SystemCatalogs() {
  for (const auto& n : added) {
    self.cat_.remove(n);
    self.invalidate(n);
  }
}

// Position of the i-th relation named by print/destroy.
static SrcPos name_pos(const Stmt& s, size_t i) {
  return i < s.relation_positions.size() ? s.relation_positions[i] : s.relation_pos;
}

void Session::exec_destroy(const Stmt& s, const SourceRef& src) {
  if (!s.define_what.empty()) {  // destroy permit|integrity rel n, ... | all
    user_relation(s.relation, s.relation_pos, src);
    if (asker().user != owner_)
      throw_error(ErrKind::Name, s.relation_pos, src,
                  "destroy " + s.define_what + ": relation '" + s.relation + "' is not owned by " + asker().user);
    qmod_.destroy_rules(s, src);
    catalog_changed();
    return;
  }
  std::vector<std::string> names = s.relations;
  if (names.empty()) names.push_back(s.relation);
  for (size_t i = 0; i < names.size(); ++i)  // all first: atomic
    if (!qmod_.is_view(names[i])) user_relation(names[i], name_pos(s, i), src);
  // A relation's indexes go with it (after it, each once); an index
  // destroyed alone leaves its base's plans stale.
  for (size_t i = 0, n = names.size(); i < n; ++i) {
    const Relation* r = cat_.find_as_is(names[i]);
    if (!r) continue;  // a view
    for (const Relation* x : indexes_of(cat_, *r))
      if (std::find_if(names.begin(), names.end(), [&](const std::string& m) { return lowercase(m) == x->name(); }) ==
          names.end())
        names.push_back(x->name());
    if (const std::string& base = r->notes().index_of; !base.empty())
      if (Relation* b = cat_.find_as_is(base)) {
        b->restructured();
        invalidate(b->name());
      }
  }
  for (const auto& n : names) {
    // A view's definition goes; a relation's integrity constraints and
    // permits go with it (views over it stay, as INGRES's did).
    const bool view = qmod_.is_view(n);
    qmod_.dropped(n);
    catalog_changed();
    if (view) continue;
    invalidate(lowercase(n));
    if (UndoLog* u = undo_log()) u->destroy(cat_, n);  // kept whole for an abort
    else cat_.remove(n);
  }
}

void Session::exec_print(const Stmt& s, const SourceRef& src) {
  std::ostream& out = listing();
  std::vector<std::string> names = s.relations;
  if (names.empty()) names.push_back(s.relation);
  for (size_t i = 0; i < names.size(); ++i)
    if (!cat_.find(names[i]) && !is_system_catalog(lowercase(names[i])))
      throw_error(ErrKind::Name, name_pos(s, i), src, "there is no relation '" + names[i] + "'");
  for (const auto& n : names) {
    // A system catalog is built as the session's relations are now.
    std::unique_ptr<Relation> catalog;
    if (is_system_catalog(lowercase(n))) catalog = build_system_catalog(lowercase(n), cat_, opt_.page_size);
    Relation* rel = catalog ? catalog.get() : cat_.find(n);
    ResultRows rows(rel->tuple_len());
    rel->for_each([&](Tid, const uint8_t* t) { rows.append(t, 1); });
    stmt_rows_ += rows.size();
    // Under csv and json the title is a message: the output holds results alone.
    (machine() ? *msg_ : out) << rel->name() << " relation\n";
    if (opt_.format != OutFormat::None) {
      show_result(rel->schema(), rows);
    } else {  // none: as a retrieve prints under it, the checksum of the rows
      Checksum sum;
      rows.for_each_run([&](const uint8_t* run, size_t k) { sum.add_rows(rel->schema(), run, k); });
      put_checksum_line(out, sum.sum, rows.size());
    }
  }
}

void Session::exec_help(const Stmt& s, const SourceRef& src) {
  // Under csv and json help's text is a message, as print's title: the output holds results alone.
  std::ostream& out = machine() ? *msg_ : listing();
  if (s.help_items.empty()) {
    out << "relations:\n";
    for (const auto& n : cat_.names()) {
      Relation* r = cat_.find(n);
      out << "  " << n << " (" << structure_name(r->structure()) << ", " << r->ntuples() << (r->ntuples() == 1 ? " tuple)\n" : " tuples)\n");
    }
    out << "system catalogs:\n  attribute, relation (read-only)\n";
    if (const auto views = qmod_.view_names(); !views.empty()) {
      out << "views:\n";
      for (const auto& v : views) out << "  " << v << "\n";
    }
    if (!ranges_.vars.empty()) {
      out << "range variables:\n";
      for (const auto& [v, r] : ranges_.vars) out << "  " << v << " is " << r << "\n";
    }
    if (txn_) {
      out << "transaction:\n  begun at " << position_text(txn_->src, txn_->pos);
      if (txn_->failed) out << ", failed and undone: nothing runs until its end or abort\n";
      else out << ", " << statements_text(txn_->statements) << " so far\n";
    }
    return;
  }
  // Every name is checked before anything is printed: a relation, a system
  // catalog (built as it is now) or, for a word that names no relation, a
  // manual section.
  std::vector<std::unique_ptr<Relation>> catalogs;
  std::vector<std::pair<const Relation*, const char*>> shown;
  for (const auto& h : s.help_items) {
    if (!h.section && qmod_.is_view(h.name) && s.help_what != "permit" && s.help_what != "integrity") {
      shown.emplace_back(nullptr, nullptr);  // a view: its definition
      continue;
    }
    if (!h.section && qmod_.is_view(h.name) && (s.help_what == "permit" || s.help_what == "integrity"))
      throw_error(ErrKind::Name, h.pos, src, "'" + h.name + "' is a view: a view has no " + s.help_what + "s");
    const Relation* r = h.section ? nullptr : cat_.find(h.name);
    if (!r && !h.section && is_system_catalog(h.name)) {
      catalogs.push_back(build_system_catalog(h.name, cat_, opt_.page_size));
      r = catalogs.back().get();
    }
    const char* text = r ? nullptr : manual_section(h.name);
    if (!r && !text)
      throw_error(ErrKind::Name, h.pos, src,
                  h.section ? "there is no section \"" + h.name + "\" (help quel lists them)"
                            : "there is no relation '" + h.name + "'");
    if (!s.help_what.empty()) {
      if (!r) throw_error(ErrKind::Name, h.pos, src, "there is no relation '" + h.name + "'");
      if (s.help_what == "view") throw_error(ErrKind::Name, h.pos, src, "'" + h.name + "' is not a view");
    }
    shown.emplace_back(r, text);
  }
  for (size_t i = 0; i < shown.size(); ++i) {
    const auto& [r, text] = shown[i];
    if (text) out << text;
    else if (!r) qmod_.help_view(out, s.help_items[i].name);
    else if (s.help_what.empty()) help_relation(out, *r, cat_);
    else qmod_.help_rules(out, r->name(), s.help_what);
  }
}

std::string Session::transaction_text() const {
  return "the transaction begun at " + position_text(txn_->src, txn_->pos);
}

void Session::exec_begin(const Stmt& s, const SourceRef& src) {
  if (txn_)  // an error inside the open one: run_statement then aborts it
    throw_error(ErrKind::Runtime, s.pos, src,
                "a transaction is open already (begun at " + position_text(txn_->src, txn_->pos) +
                    "): transactions do not nest");
  txn_ = Transaction{s.pos, src, 0, false};
  qmod_at_begin_ = qmod_;
}

void Session::exec_end(const Stmt& s, const SourceRef& src) {
  if (!txn_) throw_error(ErrKind::Runtime, s.pos, src, "end: no transaction is open (begin starts one)");
  if (txn_->failed)
    *msg_ << "(" << transaction_text() << " failed and was undone: its end commits nothing)\n";
  undo_->clear();  // its changes stay
  txn_.reset();
  qmod_at_begin_.reset();
}

void Session::exec_abort(const Stmt& s, const SourceRef& src) {
  if (!txn_) throw_error(ErrKind::Runtime, s.pos, src, "abort: no transaction is open (begin starts one)");
  if (txn_->failed) {
    *msg_ << "(" << transaction_text() << " failed and was undone then: abort ends it)\n";
  } else {
    const size_t n = txn_->statements;
    undo_transaction();
    *msg_ << "(transaction aborted: " << statements_text(n) << " undone)\n";
  }
  txn_.reset();
  qmod_at_begin_.reset();
}

void Session::undo_transaction() {
  for (const std::string& name : undo_->undo(cat_)) invalidate(lowercase(name));
  if (qmod_at_begin_ && qmod_at_begin_->version() != qmod_.version()) {
    qmod_ = std::move(*qmod_at_begin_);  // definitions made or dropped inside it are undone too
    catalog_changed();
  }
  qmod_at_begin_.reset();
}

void Session::fail_transaction() {
  if (!txn_ || txn_->failed) return;
  undo_transaction();
  txn_->failed = true;
  err_ << "(" << transaction_text() << " is aborted: " << statements_text(txn_->statements)
       << " undone; nothing runs until its end or abort)\n";
}

bool Session::end_input() {
  if (!txn_) return true;
  const bool open = !txn_->failed;
  if (open) {
    const size_t n = txn_->statements;
    undo_transaction();
    Error e;
    e.kind = ErrKind::Runtime;
    e.pos = txn_->pos;
    e.src = txn_->src;
    e.message = "the input ended inside this transaction, which is aborted: " + statements_text(n) + " undone";
    print_error(e);
  } else {
    err_ << "(the input ended inside " << transaction_text() << ", which failed and was undone then)\n";
  }
  txn_.reset();
  qmod_at_begin_.reset();
  return !open;
}

void Session::exec_copy(const Stmt& s, const SourceRef& src) {
  Relation* rel = cat_.find(s.relation);
  if (!rel) throw_error(ErrKind::Name, s.relation_pos, src, "there is no relation '" + s.relation + "'");
  refuse_index_update(s, ranges_, cat_, src);
  // A list of i1..f8 and c1..c255 alone is the kit's CSV, as it always was;
  // `()`, a list with c0, d0 or dN, and `with ingres` are INGRES's formats.
  // Names and conversions are checked there (storage/csv.h, ingres_copy.h).
  const bool csv = !s.copy_ingres && !s.columns.empty() &&
                   std::all_of(s.columns.begin(), s.columns.end(), [](const auto& c) { return parse_format(c.format); });
  std::vector<CopyColumn> cols;
  std::vector<IngresColumn> ingres;
  for (const auto& c : s.columns) {
    if (csv) cols.push_back({c.name, *parse_format(c.format), c.pos, c.format_pos});
    else ingres.push_back({c.name, *parse_copy_format(c.format), c.pos, c.format_pos});  // the parser checked it
  }
  if (s.copy_into) {
    if (csv) write_csv_file(s.file, *rel, cols, s.file_pos, src);
    else write_ingres_file(s.file, *rel, ingres, s.file_pos, src);
    uint64_t n = rel->ntuples();
    stmt_rows_ = n;
    say_rows(*msg_, n, " copied into \"", s.file, "\"");
  } else {
    std::vector<uint8_t> tuples = csv ? read_csv_file(s.file, rel->schema(), cols, s.file_pos, src)
                                      : read_ingres_file(s.file, rel->schema(), ingres, s.file_pos, src);
    size_t n = rel->tuple_len() ? tuples.size() / rel->tuple_len() : 0;
    UndoLog* undo = undo_log();
    if (undo) undo->reserve(n, 0);
    std::vector<Tid> added;
    rel->insert_all(n, [&](size_t i) { return tuples.data() + i * rel->tuple_len(); }, undo ? &added : nullptr);
    for (const Tid t : added) undo->inserted(rel, t);
    stmt_rows_ = n;
    say_rows(*msg_, n, " copied from \"", s.file, "\"");
  }
}

}  // namespace quelkit::harness
