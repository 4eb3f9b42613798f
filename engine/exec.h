// One statement's execution on one runner, inside the engine (not part of
// its interface): the decomposition state (decompose.cpp), the scan that runs
// each one-variable plan (scan.cpp), and the failure they raise. Engine::
// evaluate (engine.cpp) makes one Exec per statement.
#pragma once

#include <algorithm>
#include <charconv>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/access_path.h"
#include "engine/engine.h"

namespace quelkit::harness {

// A runtime error of the statement, carried out of the scan to evaluate().
struct RuntimeFailure {
  Error err;
};

// Collects the variable indices an expression names.
void refs(const ir::Node& n, std::set<int>& out);
// The conjuncts of an AND tree, left to right.
void flatten_and(const ir::Node* n, std::vector<const ir::Node*>& out);
// Collects the attributes of variable `var` an expression reads.
void attr_refs(const ir::Node& n, int var, std::set<int>& out);

struct Level;
// Whether `v.a = e(s)` in lv's conjuncts would be a lookup of v's current
// relation keyed on its attribute `attr` in structure st, once s is
// substituted (decompose.cpp); keyed_join: v is so keyed already, on its key.
bool keyed_on(const Level& lv, int v, int s, int attr, Structure st);
bool keyed_join(const Level& lv, int v, int s);

struct VarState {
  Relation* rel = nullptr;
  std::unique_ptr<Relation> temp;  // owned temporary after detachment
  std::vector<int> attr_map;       // original attribute index -> index in rel's schema
  bool substituted = false;
  std::vector<int> param_slot;     // original attribute index -> parameter slot (when substituted)
};

struct Level {
  std::vector<VarState*> vars;           // by bound var index
  std::vector<const ir::Node*> conjuncts;  // remaining, text order
  Schema params;                         // accumulated parameter layout
};

class Exec {
 public:
  Exec(Catalog& cat, Runner& r, const frontend::BoundQuery& q, const SourceRef& src, int stmt_no,
       Result& res, bool count)
      : cat_(cat), runner_(r), q_(q), src_(src), stmt_no_(stmt_no), res_(res), count_(count) {
    lend(r.buffers());
  }
  ~Exec() { lend(runner_.buffers()); }
  Exec(const Exec&) = delete;
  Exec& operator=(const Exec&) = delete;

  void run_statement(Sink& out);
  // The statement cache's entry whose binding q is (statement_cache.h): its
  // one-variable plan is made once and reused, its literals written in.
  void set_entry(CachedStatement* e) { entry_ = e; }
  // What --stats says of the plans run (also after a failure), taken once,
  // at the statement's end: a single text is moved out, not copied.
  // "var:path; ..." of the plans.
  std::string take_access_path() { return take_joined(access_texts_, "; "); }
  // Where an aggregate's inner query was accumulated (ExecStats::accumulated):
  // the runner's label where its back end's kernel did it, "harness" where
  // the rows it projected were; "" for a query that accumulates nothing.
  std::string take_accumulated() { return take_joined(accumulated_texts_, ", "); }
  // The selections the page kernels ran (selection.h), "; "-joined, each once:
  // "branch", "nobranch", or under auto "auto:branch" / "auto:nobranch".
  std::string take_selections() { return take_joined(selection_texts_, "; "); }

 private:
  // The plan cache's shortest path: a cached statement's one-variable plan,
  // its literals written in (statement_cache.h), while its relation is the
  // one it was made over; no level is made for it. False: not such a plan.
  bool run_memo(Sink& out);
  void run_level(Level& lv, std::vector<uint8_t>& params, Sink& out, int depth);
  Plan make_plan(const Level& lv, int scan_var, const std::vector<const ir::Node*>& conj,
                 const std::vector<const ir::Node*>& targets, const std::vector<std::string>& names,
                 const std::string& name);
  ir::NodePtr rewrite(const ir::Node& n, const Level& lv, int scan_var);
  // The attributes of v (its bound schema's indices) that conjuncts `rest` and
  // `targets` read, or one column of bytes where they read none.
  std::set<int> needed(const Level& lv, int v, const std::vector<const ir::Node*>& rest,
                       const std::vector<const ir::Node*>& targets) const;
  // Runs v's conjuncts `mine` into a heap temporary of the attributes `need`;
  // v then ranges over it (its attr_map renumbered). Returns the access
  // path's text. `reformat`: the temporary is the reformat step's.
  std::string project(Level& lv, int v, const std::vector<const ir::Node*>& mine, const std::set<int>& need,
                      std::vector<uint8_t>& params, bool reformat);
  // The reformat step (reformat.cpp): before s is substituted, each variable
  // joined to it by equality on a domain it is not keyed on is projected and
  // hashed on that domain where the cost estimate says it pays.
  void reformat(Level& lv, int s, const std::vector<int>& live, const std::vector<const ir::Node*>& targets,
                std::vector<uint8_t>& params);
  // The access path of a plan over rel: its key, or one of its indexes.
  AccessSpec access(const Plan& plan, const Relation* rel);
  void execute(const Plan& plan, Relation* rel, const std::string& cache_key, const AccessSpec& acc,
               std::vector<uint8_t>& params, Sink& out, bool want_tids);
  // One scan of a plan over a relation's pages (scan.cpp).
  class Scan;
  // The base tuples an index's entries within b name, sorted (scan.cpp).
  void fetch_through(const Relation& base, const Relation& idx, const KeyBounds& b, std::vector<Tid>& tids,
                     ExecStats& st);
  // The runtime error ctx holds, raised at scan ordinal `ordinal` of rel (null:
  // the plan has no variable) with the positions of this plan's source.
  [[noreturn]] void failed(const Plan& plan, const std::vector<uint64_t>* prepared_at, const Relation* rel,
                           const qk_ctx& ctx, int64_t ordinal) const;
  [[noreturn]] void cancelled() const;
  // The tuples of a page before line `slot` that a kernel qualified (and
  // projected): what the tuple-at-a-time loop counts before a failing tuple.
  // `acc`: the kernel is e.accumulate, accumulating into acc (a failing
  // statement's block, whose values nobody reads) instead of writing rows.
  static uint64_t qualified_before(const Entries& e, const uint8_t* pg, uint32_t page_size, int64_t slot,
                                   uint8_t* rows, const qk_ctx& ctx, qk_accum* acc = nullptr);
  // Cache identity of a variable's relation: temporaries are shaped alike
  // per statement, so they share one identity; real relations carry their version.
  static std::string rel_id(const VarState& vs) {
    return vs.temp ? "temp" : vs.rel->name() + "#" + std::to_string(vs.rel->version());
  }
  static std::string take_joined(std::vector<std::string>& texts, const char* sep) {
    if (texts.size() == 1) return std::move(texts[0]);
    std::string text;
    for (const auto& t : texts) text += (text.empty() ? "" : sep) + t;
    return text;
  }
  // Swaps the runner's buffers with this Exec's, each emptied (its room
  // kept) but the tids, which a scan writes before it reads them.
  void lend(ExecBuffers& b) {
    params_.clear();
    scratch_.clear();
    pagebuf_.clear();
    access_texts_.clear();
    selection_texts_.clear();
    params_.swap(b.params);
    scratch_.swap(b.scratch);
    tidbuf_.swap(b.tids);
    pagebuf_.swap(b.pages);
    access_texts_.swap(b.access_texts);
    selection_texts_.swap(b.selection_texts);
  }
  // A decision of the reformat step, printed once under --dump=decomp; one
  // `taken` is an access path too (--stats): one not taken leaves the plans
  // as substitution alone makes them, and says so only in the dump.
  void note_decision(const std::string& text, bool taken);
  void note_access(const std::string& t) {
    if (std::find(access_texts_.begin(), access_texts_.end(), t) == access_texts_.end())
      access_texts_.push_back(t);
  }
  // The name its plans start with (BoundQuery::plan_name).
  std::string plan_base() const {
    std::string name;
    put_plan_base(name);
    return name;
  }
  // The same, written over `to` (its room kept: a cached plan's name, each statement).
  void put_plan_base(std::string& to) const {
    if (!q_.plan_name.empty()) {
      to = q_.plan_name;
      return;
    }
    char b[16] = {'q'};
    to.assign(b, size_t(std::to_chars(b + 1, b + sizeof b, stmt_no_).ptr - b));
  }
  void note_accumulated(const std::string& t) {
    if (std::find(accumulated_texts_.begin(), accumulated_texts_.end(), t) == accumulated_texts_.end())
      accumulated_texts_.push_back(t);
  }
  void note_selection(const std::string& t) {
    if (std::find(selection_texts_.begin(), selection_texts_.end(), t) == selection_texts_.end())
      selection_texts_.push_back(t);
  }

  Catalog& cat_;
  Runner& runner_;
  const frontend::BoundQuery& q_;
  SourceRef src_;
  int stmt_no_;
  Result& res_;
  const bool count_;  // --sink count (RunnerOptions::count_sink)
  CachedStatement* entry_ = nullptr;
  int ndetach_ = 0;
  std::vector<uint8_t> params_;  // the statement's parameter block (run_statement), its room kept
  std::vector<uint8_t> scratch_;
  std::vector<Tid> tidbuf_;
  std::vector<Tid> fetchbuf_;  // tids an index scan fetched (reused across executions)
  std::vector<uint32_t> fetchkeys_, fetchspare_;  // their tidps, sorted
  std::vector<const uint8_t*> pagebuf_;  // pages of one call of a kernel whose batches span pages
  TierReport tierbuf_;  // what an adapting back end reports at a scan's end: kept, so a scan allocates nothing
  std::vector<std::string> access_texts_;
  std::vector<std::string> decisions_;  // the reformat step's, each once
  std::vector<std::string> selection_texts_;
  std::vector<std::string> accumulated_texts_;
  // The tuple-substitution loops around the scan running now, outermost
  // first: (index of the substituted tuple, tuples substituted). They give a
  // scan's ScanOutlook::runs_after.
  std::vector<std::pair<uint64_t, uint64_t>> loops_;
  uint64_t runs_after() const {
    uint64_t n = 0;
    for (const auto& [i, count] : loops_) n = n * count + (count - i - 1);
    return n;
  }
};

}  // namespace quelkit::harness
