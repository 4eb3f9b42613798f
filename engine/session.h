// A session: the catalog, range declarations, one Runner per selected back end
// and mode, and the execution of every statement kind. Expression statements
// are evaluated on every runner, compared (rows bit for bit, errors exactly),
// and applied once; a failed statement applies nothing (statements are atomic).
// Between `begin` and `end` the statements are atomic together: an undo log
// (storage/undo.h) takes them back at `abort`, at an error or a cancel, and
// at the end of the input (docs/DESIGN.md, "Transactions").
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/frontend.h"
#include "storage/catalog.h"
#include "engine/engine.h"
#include "engine/query_modification.h"

namespace quelkit::harness {

class UndoLog;  // storage/undo.h

// Table: the terminal table; Csv, Json (JSON Lines): machine-readable, the
// output stream holds results alone; None: a checksum line per retrieve.
enum class OutFormat : uint8_t { Table, Csv, Json, None };

struct SessionOptions {
  std::vector<std::pair<std::string, std::string>> backends;  // (name, mode)
  OutFormat format = OutFormat::Table;  // None: a checksum line per retrieve
  // csv: a blank line between two results of the session, so that a stream
  // of several is read apart (the quelkit command's); off, each statement's
  // output stands alone, as tests and the corpus compare it.
  bool separate_results = false;
  bool stats = false, stats_json = false;
  int repeat = 1;
  std::set<std::string> dumps;  // ast ir folded + back-end forms
  RunnerOptions runner;
  PrepareOptions prepare;
  uint32_t page_size = kDefaultPageSize;
  size_t plan_cache_capacity = 1024;
  // --no-statement-cache (and --no-plan-cache, which means no reuse from one
  // statement to the next): every text lexed, parsed and bound afresh.
  bool statement_cache = true;
  // The phases' stopwatch (measure.h, phase_ns): off, every phase of --stats
  // and --repeat reads 0 (quelkit short's timed runs, whose whole time counts).
  bool phase_timing = true;
  // The constant usercode: this, else $QUELKIT_USER, else $USER, else "ingres".
  std::string user;
  // Permits (engine/query_modification.h): the relations' owner (INGRES's
  // DBA; empty: the session's user, who then owns them all and no permit
  // restricts him), the terminal (session_terminal) and the clock (unset:
  // the local time): tests set them to try permits by user, terminal, time
  // and day.
  std::string dba;
  std::string terminal;
  std::function<WallClock()> clock;
};

// One statement's outcome on one runner, for --stats and the report.
struct StmtReport {
  int stmt = 0;
  uint32_t line = 0;
  std::string statement;      // its keyword: retrieve, append, ...
  std::string backend, mode;  // empty: a statement no back end evaluates
  ExecStats stats;
  uint64_t run_ns_min = 0, run_ns_max = 0;
  int runs = 1;  // runs made: --repeat's K for a retrieve that succeeded, else 1
  std::string error;
};

class Session {
 public:
  Session(SessionOptions opt, std::ostream& out, std::ostream& err);
  ~Session();

  Catalog& catalog() { return cat_; }
  frontend::RangeTable& ranges() { return ranges_; }
  std::vector<std::unique_ptr<Runner>>& runners() { return runners_; }
  // One more runner of a registered back end (a name parse_backend_list
  // gave), prepared with these options instead of the session's: `quelkit
  // sweep` runs every back end under every selection over one relation.
  Runner& add_runner(const std::string& name, const std::string& mode, const PrepareOptions& prepare);
  const SessionOptions& options() const { return opt_; }
  // A retrieve, append, replace or delete as query modification rewrites it
  // (views, integrity constraints, permits), for a caller that binds it
  // itself (difftest's cache-off runs): `stmt` null where nothing applies;
  // the view variables are in force while `vars` lives. Throws QuelError
  // where the rewriting refuses the statement.
  struct Modified {
    frontend::ast::StmtPtr stmt;
    std::unique_ptr<ScopedVars> vars;
  };
  Modified modify(const frontend::ast::Stmt& s, const SourceRef& src);
  // The user from here on (usercode, and whom permits restrict): tests
  // define permits as the owner, then query as another user.
  void set_user(const std::string& user);

  // Parses and runs every statement that parses; errors (syntax errors
  // included, each at its place in the text) are printed and the next
  // statement runs. A cancel request (storage/budget.h) stops it. Returns
  // false if anything failed (parse, run, mismatch, cancel).
  bool run(const SourceRef& src);
  // Whether the last run() stopped at a lexical or syntax error (or a
  // refused monitor command), its own or an included file's: the text its
  // caller holds after that text is not run either (the monitor's input
  // piped in, the files \i is reading).
  bool stopped() const { return stopped_; }
  // Runs a script's `\i FILE` (the file at `pos` of `src`): the command
  // sets it (cli/, which reads scripts); without one, \i is an error.
  // Returns false if the file failed; throws QuelError for an error of the
  // \i itself (a file that cannot be read, a cycle).
  using Includer = std::function<bool(const std::string& path, SrcPos pos, const SourceRef& src)>;
  void set_includer(Includer f) { includer_ = std::move(f); }
  // Where messages such as "(2 rows replaced in parts)" go: the error stream
  // unless set (results alone go to the output stream).
  void set_messages(std::ostream& m) { msg_ = &m; }
  // Runs one parsed statement; false if it failed.
  bool run_statement(const frontend::ast::Stmt& s, const SourceRef& src);
  // Reports of the statements run so far (cleared by the caller if wanted).
  std::vector<StmtReport>& reports() { return reports_; }
  // Evaluates a bound query on runner r (no comparison, nothing applied);
  // verify false: no checksum of the rows (an aggregate's inner query). Every
  // statement error comes back in the Result (ok false), those raised outside
  // the scan's checks too (a back end that cannot prepare the statement).
  // `acc`: an aggregate's inner query, its rows accumulated there (Engine::evaluate).
  Result evaluate(const frontend::BoundQuery& q, Runner& r, const SourceRef& src, bool keep_rows, bool verify = true,
                  qk_accum* acc = nullptr);
  // Off: a statement's rows are not checksummed (its checksum reads 0).
  // For timed repetitions of a statement whose answer an earlier run
  // checked: the Wisconsin report's runs after the first (--repeat does
  // the same inside one statement, exec_query).
  void set_verify(bool on) { verify_ = on; }
  void set_phase_timing(bool on) { opt_.phase_timing = on; }
  // Drops cached plans over a relation on every runner.
  void invalidate(const std::string& relation);
  void print_error(const Error& e);
  // The statement running now (1-based; names its plans q<n>).
  int statement_number() const { return stmt_no_; }
  // --dump=ir and folded of a bound query, headed with `name`.
  void dump_ir(const frontend::BoundQuery& q, const std::string& name);
  // Whether a transaction is open (begun, not yet ended or aborted; one that
  // failed is open until its end or abort, its statements skipped).
  bool in_transaction() const { return txn_.has_value(); }
  // The input has ended (the command's scripts, the monitor's last line): a
  // transaction still open is aborted, an error at its begin; false then.
  bool end_input();

 private:
  bool exec(const frontend::ast::Stmt& s, const SourceRef& src);
  bool exec_query(const frontend::ast::Stmt& s, const SourceRef& src);
  bool apply(const frontend::ast::Stmt& s, const SourceRef& src, const frontend::BoundQuery& q, Result& res);
  // One timed repetition of a statement with aggregates on runner r: its
  // aggregates evaluated afresh, then the statement they rewrote; its time
  // is both (repeat_ns), nothing dumped.
  Result repeat_aggregates(const frontend::ast::Stmt& s, Runner& r, const SourceRef& src, uint64_t& repeat_ns);
  void exec_create(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_copy(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_modify(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_destroy(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_print(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_help(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_begin(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_end(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_abort(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_save(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_index(const frontend::ast::Stmt& s, const SourceRef& src);
  void exec_define(const frontend::ast::Stmt& s, const SourceRef& src);
  // Who runs the statement, for permits.
  Asker asker() const;
  // A relation of the session that a statement may change: a name error
  // for a system catalog (read-only) or a name that is none.
  Relation& user_relation(const std::string& name, SrcPos pos, const SourceRef& src);
  // The system catalogs `relation` and `attribute`, built for the statement
  // that reads them and dropped after it (engine/quel_statements.h).
  struct SystemCatalogs {
    Session& self;
    std::vector<std::string> added;
    SystemCatalogs(Session& s, const frontend::ast::Stmt& st, const SourceRef& src);
    ~SystemCatalogs();
  };
  // The log the changes of a statement go to: the open transaction's, none
  // outside one (a statement alone is atomic without it).
  UndoLog* undo_log() { return txn_ && !txn_->failed ? undo_.get() : nullptr; }
  // Takes back the open transaction's changes and drops the plans over the
  // relations they created, destroyed or modified.
  void undo_transaction();
  // A statement of the open transaction failed (its error said), or a
  // cancel or syntax error stopped its text: the transaction is undone and
  // its statements up to its end or abort are skipped.
  void fail_transaction();
  // "the transaction begun at t.quel:3:1"
  std::string transaction_text() const;
  void emit_stats(const StmtReport& r);
  // A statement no runner evaluated (range, create, copy, print, ..., or one
  // that failed before it ran): its one --stats=json object.
  void emit_statement_stats(const frontend::ast::Stmt& s, uint64_t run_ns, const std::string& error);
  // A result (a retrieve's rows, a print's relation) in the format asked;
  // under csv a blank line comes between two results.
  void show_result(const Schema& schema, const ResultRows& rows);
  // What is neither a result row nor a message (help, print's title under
  // table, dumps): the output stream, unless it is machine-readable (csv,
  // json, or --stats=json alone) and must hold nothing else.
  std::ostream& listing() { return json_only() || machine() ? err_ : out_; }
  // --stats, text or JSON: after the results on the output stream, but on
  // the error stream under csv and json, whose output holds results alone.
  std::ostream& stats_out() { return machine() ? err_ : out_; }
  bool json_only() const { return opt_.stats_json && opt_.format == OutFormat::None; }
  bool machine() const { return opt_.format == OutFormat::Csv || opt_.format == OutFormat::Json; }

  SessionOptions opt_;
  std::ostream& out_;
  std::ostream& err_;
  std::ostream* msg_;
  Catalog cat_;
  frontend::RangeTable ranges_;
  std::vector<std::unique_ptr<Runner>> runners_;
  std::vector<StmtReport> reports_;
  int stmt_no_ = 0;
  bool verify_ = true;
  bool dumps_quiet_ = false;  // a timed repetition: its plans' forms were dumped by the first run
  bool stopped_ = false;  // run() met a lexical or syntax error (stopped())
  Includer includer_;
  size_t results_shown_ = 0;  // results written under csv: the next is set apart by a blank line
  uint64_t stmt_rows_ = 0;    // a print's or copy's tuples, for its --stats=json rows_out
  uint64_t stmt_start_ns_ = 0;  // when the running statement's execution began (total_ns)
  // The transaction begun and not yet ended: where its begin is, the
  // statements run in it; failed: undone already after an error.
  struct Transaction {
    SrcPos pos;
    SourceRef src;
    size_t statements = 0;
    bool failed = false;
  };
  std::optional<Transaction> txn_;
  // The statement cache (statement_cache.h): entries are bound against a
  // catalog version, which every statement that changes what binding reads
  // (range, create, destroy, modify, retrieve into, an abort that undoes
  // one of them) moves on.
  StatementCache stmt_cache_;
  NormalisedText norm_;  // the literal scan's buffer (Session::run), its room kept
  uint64_t catalog_version_ = 0;
  CachedStatement* stmt_entry_ = nullptr;  // the running statement's entry, if its text has one
  StatementCacheUse stmt_use_ = StatementCacheUse::None;
  uint64_t stmt_patch_bind_ns_ = 0;  // a Bind hit: patching the binding (its bind_ns)
  bool statement_cache_on() const { return opt_.statement_cache && opt_.runner.plan_cache; }
  void catalog_changed() { ++catalog_version_; }
  std::unique_ptr<UndoLog> undo_;  // kept across transactions: its room is reused
  QueryModification qmod_;  // views, integrity constraints, permits
  // The definitions as the open transaction found them: its undo puts them
  // back (they are not in the undo log, which holds tuples and relations).
  std::optional<QueryModification> qmod_at_begin_;
  std::string owner_;       // the relations' owner (SessionOptions::dba)
};

// Builds runners for "name[:mode][,...]" or "all"; throws QuelError (Usage).
// measured: `all` leaves out modes that exist for tests (ModeSpec::for_tests),
// as the paper report, the sweep and the benchmarks ask.
std::vector<std::pair<std::string, std::string>> parse_backend_list(const std::string& spec, bool measured = false);

// A time of --stats' text form: nanoseconds as microseconds to the
// nanosecond ("4342970.123"), never in an exponent.
std::string stats_us_text(uint64_t ns);

// The session's user (the constant usercode): `given`, else $QUELKIT_USER,
// else $USER, else "ingres"; at most 255 bytes (a c255).
std::string session_user(const std::string& given);
// The session's terminal, for permits' `at ttyx`: `given`, else the name of
// the terminal on stdin (`tty3` of /dev/tty3, `pts/1` of /dev/pts/1), else
// "none" (no terminal: only permits `at all` apply).
std::string session_terminal(const std::string& given);

}  // namespace quelkit::harness
