// The query engine every back end shares: decomposition of a bound statement
// into one-variable plans (one-variable detachment, then tuple substitution,
// DESIGN.md), access-path choice, the scan loop (tuple by tuple, or a back
// end's fused page kernel), the plan cache, and the statement's result.
// One Runner per back end and mode; the engine never names a back end.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <list>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/bound.h"
#include "engine/backend.h"
#include "storage/budget.h"
#include "storage/catalog.h"
#include "storage/checksum.h"
#include "engine/plan.h"
#include "engine/result_rows.h"
#include "engine/statement_cache.h"

namespace quelkit::harness {

// A prepared plan as the harness holds it: the back end's object, and what
// the harness keeps of it beside that.
struct HeldPlan {
  std::unique_ptr<Prepared> prepared;
  // plan_positions() of the plan it was prepared from, so errors it raises can
  // be mapped to the positions of the statement that reuses it (plans share a
  // key across statements, not their positions); empty for a plan not cached.
  std::vector<uint64_t> positions;
  bool cached = false;
  // What --selection auto remembers of this plan's scans (selection.h).
  AutoMemory auto_memory;
};

// Prepared plans of one back end, keyed by relation identity + plan key,
// least recently used evicted beyond `capacity` (evicted plans free their code).
class PlanCache {
 public:
  explicit PlanCache(size_t capacity = 1024) : capacity_(capacity) {}
  HeldPlan* find(const std::string& key);
  HeldPlan* insert(const std::string& key, std::unique_ptr<Prepared> p, std::vector<uint64_t> positions = {});
  // Drops every plan over `relation` (modify, destroy, delete of the relation).
  void invalidate(const std::string& relation);
  void clear();
  size_t size() const { return map_.size(); }
  size_t evictions() const { return evictions_; }
  void set_capacity(size_t c);

 private:
  struct Entry {
    HeldPlan held;
    std::list<std::string>::iterator lru;
  };
  size_t capacity_;
  size_t evictions_ = 0;
  std::unordered_map<std::string, Entry> map_;
  std::list<std::string> lru_;  // front = most recent
};

// Counters and timings of one statement on one back end (--stats).
struct ExecStats {
  std::string access_path;     // per plan, e.g. "p:temp heap full scan; q:isam key ="
  std::string selection;       // what the page kernels ran (selection.h); "" tuple at a time
  // Where each aggregate was accumulated (docs/stats.md): "; "-joined, one
  // per aggregate in text order, "<aggregate> <plan>: <back end:mode>" where
  // its back end's kernel accumulated it (Use::Aggregate), ": harness" where
  // the harness accumulated the rows its back end projected.
  std::string accumulated;
  uint64_t rows_scanned = 0;   // tuples fetched by every scan, detachment included
  uint64_t rows_qualified = 0; // tuples that satisfied a one-variable qualification
  uint64_t rows_out = 0;       // result rows
  // Scans through a secondary index: its pages walked, the base tuples fetched.
  uint64_t index_pages = 0, index_fetched = 0;
  uint64_t prepares = 0, cache_hits = 0;
  uint64_t prepare_ns = 0, irgen_ns = 0, opt_ns = 0, codegen_ns = 0;
  uint64_t run_ns = 0;         // wall time of the statement minus prepare time
  // The statement's fixed costs (docs/stats.md): its lexing and parsing, its
  // binding, the plans made (decomposition, access paths, cache keys) and
  // the plan-cache lookups (both within run_ns), applying or printing its
  // result, and its whole wall time from its first token to its result.
  uint64_t parse_ns = 0, bind_ns = 0, plan_ns = 0, lookup_ns = 0, result_ns = 0, total_ns = 0;
  uint64_t verify_ns = 0;      // checksum over the stored result, after run_ns stopped
  // Whether the statement's text was found in the session's statement cache
  // (statement_cache.h): its parse_ns is then the literal scan and patch
  // (of the binding and plan too, on a Bind or Plan: bind_ns 0, and on a
  // Plan plan_ns only the cached plan's naming).
  StatementCacheUse statement_cache = StatementCacheUse::None;
  // --dump's printing of a back end's forms (Runner::get): off both clocks,
  // so a run that dumps times as one that does not. Not reported.
  uint64_t dump_ns = 0;
  uint64_t checksum = 0;
  // Back ends that change tiers mid-scan (adaptive/; docs/stats.md): tuples
  // per tier ("stencil:fused 2240, llvm:fused/1 97760"), the statement's page
  // (0-based, over all its scans in order) on which a faster tier first ran
  // (-1: none), and its background compiles, their wall and CPU time.
  std::vector<std::pair<std::string, uint64_t>> tier_tuples;
  int64_t tier_switch_page = -1;
  uint64_t pages_walked = 0;  // pages the statement's scans visited (places tier_switch_page)
  uint64_t bg_compiles = 0, bg_abandoned = 0, bg_compile_wall_ns = 0, bg_compile_cpu_ns = 0;
  std::string tiers() const;  // tier_tuples as text
  // Adds a tier report of a scan that began after `pages_before` pages.
  void add_tiers(const TierReport& r, uint64_t pages_before);
  void add_scan(const ExecStats& o);
};

// "a; b": the access paths of scans that ran one after the other (either may be empty).
std::string join_access_paths(const std::string& first, const std::string& then);

// The selections of scans that ran one after the other (ExecStats::selection):
// "; "-joined, each once, in the order they first ran.
std::string join_selections(const std::string& first, const std::string& then);

// Where result rows go, written in place: the scan asks for room, has the
// rows written there (by a back end's page kernel, or tuple by tuple), then
// says how many it wrote, so a row is projected straight into its final place.
// Rows arrive in execution order, in the statement's result layout; tids are
// given for replace/delete (the updated variable's tuple). A scan asks for
// room for a page's rows and hands rows over when the next page may not fit,
// not per page: a sink costs two calls per chunk of rows.
class Sink {
 public:
  virtual ~Sink() = default;
  // Room for at least min_rows rows; *room is set to how many fit.
  virtual uint8_t* room(size_t min_rows, size_t* room) = 0;
  // The first n rows at the last room() are written (tids: n, or null).
  virtual void wrote(size_t n, const Tid* tids) = 0;
  // An aggregate's rows are accumulated into this block (runtime/accumulate.h),
  // not kept: a scan whose back end accumulates (Backend::accumulates) hands
  // it the block instead of rows. nullptr: rows are kept.
  virtual qk_accum* accumulator() { return nullptr; }
};

// Result of evaluating one statement on one back end (nothing applied yet:
// statements are atomic, the session applies a result only if it succeeded).
struct Result {
  bool ok = true;
  Error error;
  Schema layout;               // result row layout
  bool keep_rows = true;       // false: the rows were dropped once the checksum was taken
  ResultRows rows;             // layout.tuple_len each, in result order (sorted for sort by / unique)
  std::vector<Tid> tids;       // replace/delete
  MemCharge tids_charge;       // tids in the memory budget (rows charge their own chunks)
  Checksum checksum;
  ExecStats stats;
  uint64_t nrows() const { return checksum.rows; }
};

// The first difference between two results of one statement ("" if none):
// success or the same error exactly, row count, rows byte for byte in order
// (when both kept them), updated tuples, checksum. `quelkit -b a,b` and
// difftest both judge back ends by it.
std::string result_difference(const Result& a, const Result& b);

struct RunnerOptions {
  bool plan_cache = true;       // --no-plan-cache: no reuse from one statement to the next
  bool use_kernel = true;       // use a fused kernel when the back end offers one
  // --sink count: a measurement mode. A retrieve (without into) is run with no
  // target list: each fused kernel's count variant qualifies every tuple and
  // projects nothing, so targets are not evaluated (nor their errors raised);
  // the result is the count alone (rows_out), with checksum 0.
  bool count_sink = false;
  // --no-reformat: decomposition substitutes into relations as they are
  // (engine/reformat.cpp), the plans of the 1981 figures.
  bool reformat = true;
  bool dump_decomp = false;  // --dump=decomp: the reformat step's decisions on dump_out
  std::set<std::string> dumps;  // back-end forms to print when a plan is first prepared
  std::ostream* dump_out = nullptr;
};

// The buffers an evaluation (exec.h's Exec) fills and lets go, kept by its
// runner between statements so that a short statement allocates none of
// them: an Exec takes them, emptied, and gives them back when it goes (one
// made while another holds them starts with its own).
struct ExecBuffers {
  std::vector<uint8_t> params, scratch;
  std::vector<Tid> tids;
  std::vector<const uint8_t*> pages;
  std::vector<std::string> access_texts, selection_texts;
};

// One back end in one mode, with its plan cache.
class Runner {
 public:
  Runner(std::string name, std::string mode, std::unique_ptr<Backend> be, RunnerOptions opt,
         PrepareOptions popt);
  const std::string& name() const { return name_; }
  const std::string& mode() const { return mode_; }
  std::string label() const { return name_ + ":" + mode_; }
  Backend& backend() { return *backend_; }
  PlanCache& cache() { return cache_; }
  const RunnerOptions& options() const { return opt_; }
  const PrepareOptions& prepare_options() const { return popt_; }
  // The selection later scans ask for (--selection). Every scan selects its
  // plan's kernel anew (Prepared::entries), so one runner's plans serve any
  // selection: quelkit sweep runs a back end's selections on one runner, and
  // so on the same generated kernels.
  void set_selection(Selection s) { popt_.selection = s; }
  // Where --dump's forms and decisions go (null: nowhere); returns the old.
  // A timed repetition sets null: its plans were dumped by the first run.
  std::ostream* set_dump_out(std::ostream* os) {
    std::swap(os, opt_.dump_out);
    return os;
  }
  // One prepared plan serves every execution of its key in a statement (and,
  // with the cache on, in later statements): the back end reuses plans.
  bool reuses() const { return backend_->reuses_plans(); }

  // Returns a prepared plan for `plan` with parameter block `params`:
  // from the cache if the back end reuses plans, else prepared afresh (held
  // by `scratch`). Counts prepares, cache hits and compile time into st.
  // Under --no-plan-cache the cache is the statement's own: a substituted
  // query's executions share one prepared plan, as an engine runs a
  // parameterised plan (prepared once, executed per outer tuple), and the
  // next statement prepares afresh (drop_statement_plans).
  // `cache_key` is the relation's identity, "|", plan.key: built once by the
  // caller, so a substitution loop does not rebuild it per tuple.
  HeldPlan* get(const Plan& plan, const std::string& cache_key, const uint8_t* params, HeldPlan& scratch,
                ExecStats& st);
  // p's entries for `use` (Prepared::entries), counting code it generated
  // for them (PrepareTimes::lazy_ns and the phases) as prepare in st.
  static Entries entries(Prepared& p, Use use, Selection s, ExecStats& st);
  AdaptHooks* hooks() const { return backend_->hooks; }
  ExecBuffers& buffers() { return buffers_; }
  // Under --no-plan-cache, the statement's plans go: when it ends (its clock
  // stopped), and before the next begins (one that threw ends elsewhere); so
  // does the list of plans a back end without plan reuse has lowered.
  void drop_statement_plans() {
    statement_plans_.clear();
    lowered_.clear();
  }

 private:
  std::string name_, mode_;
  std::unique_ptr<Backend> backend_;
  RunnerOptions opt_;
  PrepareOptions popt_;
  PlanCache cache_;
  PlanCache statement_plans_;     // --no-plan-cache: the running statement's plans
  // A back end without plan reuse (interp): the plans it has lowered in the
  // running statement. Lowering one again (a substitution's) is run time.
  std::set<std::string> lowered_;
  std::set<std::string> dumped_;  // plan keys already dumped
  ExecBuffers buffers_;
  // Prints --dump's back-end forms of a plan just prepared as p (null: its
  // prepare failed), once per plan key.
  void dump(const Plan& plan, Prepared* p, const uint8_t* params);
};

// Evaluates bound statements against a catalog on one runner.
class Engine {
 public:
  Engine(Catalog& cat, const SourceRef& src, int stmt_no) : cat_(cat), src_(src), stmt_no_(stmt_no) {}
  // Evaluates q; for retrieve/append the rows are the target list, for replace
  // the assigned values plus tids, for delete only tids. verify false: the
  // checksum is not taken (checksum.rows still counts the rows): for rows
  // that only the harness reads, an aggregate's inner query.
  // `acc`: the statement is an aggregate's inner query whose rows are
  // accumulated into acc (by its back end where it accumulates, else by the
  // harness as the rows arrive), none kept.
  Result evaluate(const frontend::BoundQuery& q, Runner& runner, bool keep_rows, bool verify = true,
                  qk_accum* acc = nullptr);
  // q is this statement-cache entry's binding: its plan is kept there (Exec::set_entry).
  void set_entry(CachedStatement* e) { entry_ = e; }

 private:
  CachedStatement* entry_ = nullptr;
  Catalog& cat_;
  SourceRef src_;
  int stmt_no_;
};

}  // namespace quelkit::harness
