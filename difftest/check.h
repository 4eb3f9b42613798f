// The differential checker of `quelkit difftest`: runs each generated query on
// every selected back end and mode (rows, values bit for bit, errors
// exactly), on the storage variants of its relations (same row multiset as
// the heap), through SQLite where the query is in the SQL-compatible
// subset, and, where it raises, through the Python oracle (python_oracle.h:
// the same error, position and tuple from a second implementation). A mismatch is shrunk (shrink.cpp) to a minimal query that still
// shows it and printed as a .quel reproducer (reproducer.cpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "difftest/gen.h"
#include "frontend/bound.h"
#include "engine/engine.h"
#include "engine/session.h"

namespace quelkit::difftest {

class SqliteOracle;
class PythonOracle;

// The typed operators of the bound queries (coverage of ops.def).
struct Coverage {
  std::vector<uint64_t> ops = std::vector<uint64_t>(ir::kNumOps, 0);
  void add(const ir::Node& n);
  std::vector<std::string> missing() const;  // ops never seen (PARAM excluded)
};

struct Mismatch {
  // Generator: the binder rejected a generated query. The plan-reuse net
  // (twin.h): Twin, the statement run on one back end after its literal
  // twin differs from its run with the plan cache off; CacheOff, the same
  // from a clean start, with no twin needed.
  enum Kind : uint8_t { Backends, Storage, Sqlite, Python, Twin, CacheOff, Generator, Reformat } kind = Backends;
  std::string a, b;    // what disagreed: runner labels, "relation x vs y", "sqlite", "python oracle",
                       // "L --no-plan-cache"
  std::string detail;  // the first difference
  GQuery query;        // the (shrunk) query
  // Twin: the twin's salt (literal_twin(query, twin_salt) is the twin of
  // every shrunk candidate too).
  uint64_t twin_salt = 0;
  int original_operators = 0;
  uint64_t seed = 0, index = 0;
  std::string reproducer;  // .quel text
};

struct RunOptions {
  uint64_t seed = 1;
  uint64_t count = 0;     // 0: no limit
  double seconds = 0;     // 0: no limit (one of count/seconds must be set)
  bool shrink = true;
  bool sqlite = true;
  bool storage = true;
  // The Python oracle on the queries that raise (python_oracle.h), run from
  // python_script ("": PythonOracle::default_script()).
  bool python = true;
  std::string python_script;
  // The plan-reuse net: each query's literal twin first, then the query
  // with the plan cache on (on the twin's plans) and again with it off.
  bool plan_reuse = true;
  // The cache-off rerun on every k-th query only (1: each), where a run must
  // be short: it is the net's cost, a second prepare of every plan (the
  // twin's prepare is one the query then skips). The twins still run on
  // every query, answers compared across back ends as any query's.
  uint64_t cache_off_every = 1;
  size_t max_mismatches = 1;  // stop after this many
  GenOptions gen;
};

struct Summary {
  uint64_t queries = 0;        // generated and bound
  uint64_t failed = 0;         // statements that raised a runtime error (on every back end alike)
  uint64_t rows = 0;           // result rows compared
  uint64_t storage_checked = 0;
  // Joins run again on the first back end with --no-reformat (answers and
  // errors must be the same), and of those the ones the reformat step
  // reformatted a relation for.
  uint64_t reformat_checked = 0, reformat_taken = 0;
  uint64_t sqlite_checked = 0;
  std::vector<std::pair<std::string, uint64_t>> sqlite_skipped;  // reason -> count
  // Of the queries that raised: evaluated by the Python oracle, and of
  // those, the ones whose error (code, position, relation, tuple) it found
  // too; what it could not evaluate, by reason. python_missing: why there
  // was no oracle at all ("" when there was, or none was asked for).
  uint64_t python_checked = 0, python_agreed = 0;
  std::vector<std::pair<std::string, uint64_t>> python_skipped;
  std::string python_missing;
  // The plan-reuse net: queries run after a literal twin (one that had
  // literals and whose twin bound), of those the ones that prepared nothing
  // on some back end that reuses plans (the twin's plans served them), and
  // reruns with the plan cache off.
  uint64_t twins = 0, twin_reused = 0, cache_off = 0;
  uint64_t bind_failures = 0;  // generator bugs (must stay 0)
  double seconds = 0;
  Coverage coverage;
  std::vector<Mismatch> mismatches;
};

// One evaluation of a query on some runners.
struct Outcome {
  bool bound = false;
  Error bind_error;
  frontend::BoundQuery query;            // what the binder made of it
  std::vector<harness::Result> results;  // one per runner asked for
};

// The options of `p` other than --selection that differ from their defaults,
// as command-line text (" --jit-opt 2 --jit-checks"): what a rerun or a
// reproducer must give to run the same code.
std::string code_options(const harness::PrepareOptions& p);

class Checker {
 public:
  // backends: "all" or a -b list. log: progress and mismatch reports.
  // prepare: the options that shape each back end's code (--selection,
  // --jit-opt, --jit-checks, --jit-cpu, --vector-batch).
  // sqlite: open the SQLite oracle (--no-sqlite: not, nor for --aggregates).
  // reformat false: every back end runs with --no-reformat (and the reformat
  // check, which compares with that, is left out).
  Checker(const std::string& backends, std::ostream& log, const harness::PrepareOptions& prepare = {},
          bool sqlite = true, bool reformat = true);
  ~Checker();

  // Runs the generator from o.seed; stops at o.count queries, o.seconds, or
  // o.max_mismatches mismatches (each shrunk and with its reproducer).
  Summary run(const RunOptions& o);
  // Checks one query; the mismatch is not shrunk.
  std::optional<Mismatch> check(const GQuery& q, const RunOptions& o, Summary* sum = nullptr);
  // Shrinks a mismatch to a query with as few operators as still shows it
  // (same kind of mismatch, same pair of runners) and fills its reproducer.
  void shrink(Mismatch& m);
  std::string reproducer(const Mismatch& m);

  harness::Session& session() { return *session_; }
  std::vector<std::string> runner_labels() const;
  bool have_sqlite() const;
  SqliteOracle* sqlite() { return sqlite_.get(); }  // null without the oracle
  // Starts the Python oracle (script "": the default); false and *err if it cannot.
  bool open_python(const std::string& script, std::string* err);

 private:
  // `prefix` goes before the statement's text: the same statement elsewhere
  // in a source (same plan shapes, other positions).
  Outcome evaluate(const GQuery& q, const std::vector<harness::Runner*>& runners, const std::string& prefix = "");
  // Does q show the mismatch from a clean start (plan caches emptied), run
  // once, or run again elsewhere in the text reusing the plans the first
  // run prepared? *twice: only the second run shows it.
  bool reproduces(const Mismatch& m, const GQuery& q, bool* twice = nullptr);
  // Twin and CacheOff: does q (after its twin, for Twin) show the mismatch
  // on m.a from a clean start against a run with the plan cache off?
  // *detail: the difference.
  bool reproduces_reuse(const Mismatch& m, const GQuery& q, std::string* detail = nullptr);
  std::optional<Mismatch> check_plan_reuse(const GQuery& q, const GQuery* twin, uint64_t salt, const Outcome& out,
                                           Summary* sum);
  harness::Runner* runner(const std::string& label);
  harness::Runner* cache_off_runner(const harness::Runner* r);
  std::optional<Mismatch> check_backends(const GQuery& q, Outcome& out);
  std::optional<Mismatch> check_storage(const GQuery& q, const Outcome& heap, Summary* sum);
  std::optional<Mismatch> check_sqlite(const GQuery& q, const Outcome& heap, Summary* sum);
  std::optional<Mismatch> check_python(const GQuery& q, const Outcome& heap, Summary* sum);
  // A join's answer on the first back end against the same back end's with
  // --no-reformat (engine/reformat.cpp): rows in order and errors exactly.
  std::optional<Mismatch> check_reformat(const GQuery& q, const Outcome& out, Summary* sum);
  bool still_fails(const Mismatch& m, const GQuery& candidate);
  // Does a keyed relation's answer differ from the heap's? (*detail: how)
  static bool storage_differs(const harness::Result& heap, const harness::Result& var, std::string* detail);

  // The second text of a statement run twice: another line, another column.
  static constexpr const char* kAgain = "\n\n   ";
  // What a Twin mismatch's detail ends with.
  static constexpr const char* kAfterTwin = "\n(the statement ran after its literal twin, on the plans the twin prepared)";

  std::ostream& log_;
  std::ostringstream sink_out_, sink_err_;  // what the session prints (setup only)
  std::unique_ptr<harness::Session> session_;
  std::vector<std::unique_ptr<harness::Runner>> cache_off_;  // session_'s runners with --no-plan-cache
  std::unique_ptr<harness::Runner> no_reformat_;             // the first runner with --no-reformat
  std::unique_ptr<SqliteOracle> sqlite_;
  std::unique_ptr<PythonOracle> python_;
  std::string backends_;
  harness::PrepareOptions prepare_;
  uint64_t variant_pick_ = 0;
};

// harness::result_difference compares two results of one statement exactly;
// this one compares rows as multisets (storage variants, other engines).
std::string multiset_difference(const harness::Result& a, const harness::Result& b);

}  // namespace quelkit::difftest
