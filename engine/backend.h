// The back-end interface (docs/adding-a-backend.md). A back end turns a Plan
// into a Prepared object, which hands the harness entry points (Entries); the
// harness owns scans, storage, sinks and the plan cache and calls them either
// tuple by tuple (qualify, then project the qualifying tuples) or, when the
// back end offers one, through a fused page-at-a-time kernel. The harness knows no back end by name: each registers
// a BackendSpec (backends/backends.cpp lists them; its library links them all).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "engine/selection.h"
#include "runtime/accumulate.h"
#include "runtime/runtime.h"

namespace quelkit::harness {

struct PrepareOptions {
  int jit_opt = 1;          // --jit-opt: 0..3 (JIT back ends)
  // --jit-lookup-opt: the level of a plan whose scan is a keyed lookup run
  // once (Plan::keyed_lookup): 0 by default, its compile the cheapest for the
  // few tuples it reads; -1 (`same`): --jit-opt's. See jit_level.
  int jit_lookup_opt = 0;
  bool jit_checks = false;  // --jit-checks: bounds assertions in generated code
  // --jit-cpu native: JIT code may use every instruction of this machine's CPU.
  // By default both JITs target the generic CPU the ahead-of-time build targets
  // (x86-64), so native code is compared with the interpreters, threaded code
  // and the reference loops on the same instruction set.
  bool jit_native_cpu = false;
  // --vector-batch: tuples per batch of the vector back end (0: its default);
  // batches span pages (Entries::pages).
  uint32_t vector_batch = 0;
  // --selection: how fused page kernels select (selection.h). Branch or
  // NoBranch: the kernel is prepared in that variant. Auto: prepared with
  // branch; the scan may switch it to nobranch after its first pages.
  Selection selection = Selection::Auto;
};

// The optimisation level a JIT compiles plan at: --jit-opt, or
// --jit-lookup-opt for a keyed lookup (Plan::keyed_lookup) where it is set.
inline int jit_level(const PrepareOptions& o, const Plan& plan) {
  return plan.keyed_lookup && o.jit_lookup_opt >= 0 ? o.jit_lookup_opt : o.jit_opt;
}

// The command-line options every JIT back end reads (llvm, gccjit, and
// adaptive for its LLVM tier): its registration's reads_options.
inline const std::vector<std::string> kJitOptions = {"--jit-opt", "--jit-lookup-opt", "--jit-checks", "--jit-cpu"};

// What a scan knows of its work when it starts (AdaptHooks::scan_begins), for
// back ends that adapt while they run (adaptive/): estimates, not promises.
struct ScanOutlook {
  uint64_t pages = 0;       // primary pages this scan visits (a key lookup: 1; an ISAM range: its pages)
  uint64_t tuples = 0;      // live tuples of the scanned relation
  uint32_t tuples_per_page = 0;  // the relation's page capacity in tuples
  // Scans of this same prepared plan still to come in the statement after
  // this one (tuple substitution: substitutions left, times the inner loops'
  // sizes); 0 when the plan runs once in the statement or the back end does
  // not reuse plans.
  uint64_t runs_after = 0;
};

// What a back end that changes tiers mid-scan ran (AdaptHooks); the harness
// adds it to --stats (docs/stats.md).
struct TierReport {
  // Tier label, tuples it ran, in order of first use. The labels are views:
  // the back end's names outlive the report, which the harness adds to the
  // statement's ExecStats (copying a label the first time it appears) at
  // once, so that the thousands of one-page scans of a substituted statement
  // copy and look up no string each.
  std::vector<std::pair<std::string_view, uint64_t>> tuples;
  int64_t switch_page = -1;  // page of the scan (0-based) on which a faster tier first ran; -1 none
  uint64_t bg_compiles = 0;  // background compiles that ended (installed or abandoned) here
  uint64_t bg_abandoned = 0; // of them, abandoned: no longer needed, joined and their code freed
  uint64_t bg_wall_ns = 0;   // their wall time on the compiling thread
  uint64_t bg_cpu_ns = 0;    // their CPU time (CLOCK_THREAD_CPUTIME_ID of the compiling thread)
  // Empty again, keeping the list's room (the harness reuses one per scan).
  void clear() {
    tuples.clear();
    switch_page = -1;
    bg_compiles = bg_abandoned = bg_wall_ns = bg_cpu_ns = 0;
  }
};

// A prepared plan's entry points, in the runtime's C ABI: the harness calls
// them as it calls generated code, which is what the JITs hand it. Before any
// call the harness sets ctx->plan = state (a back end's own object, for entries
// that are C++; generated code ignores it). Which are set depends on what was
// asked (Prepared::entries):
//   Use::Tuple  qualify   1 qualifies, 0 does not, -1 error (raised into ctx with qk_raise)
//               project   writes plan.out.tuple_len bytes of the row; 0 ok, -1 error
//   Use::Page   page      every live tuple of the page (line order) qualified and,
//                         if it qualifies, projected into rows (consecutive rows of
//                         plan.out.tuple_len bytes); rows written, or -1 with
//                         ctx->err_slot = the failing line index. nullptr: the plan
//                         has no page kernel (it runs tuple at a time).
//               pages     where the kernel's batches span pages (vector): pages of
//                         about batch_tuples tuples per call (at most
//                         kMaxPagesPerCall), in scan order, rows for all of them
//                         consecutive; -1 when a tuple failed (the scan then runs
//                         those pages again through `page`, one at a time, to find it).
//               selection the variant `page` runs (Branch or NoBranch)
//   Use::Aggregate (asked only where Backend::accumulates(plan) is true)
//               accumulate  every live tuple of the page (line order) qualified
//                         and, if it qualifies, its targets (the by values, then
//                         each aggregate's argument: plan.out) accumulated into
//                         acc (runtime/accumulate.h: qk_accum_row, or the
//                         qk_agg_add_* and qk_group_probe it is made of); tuples
//                         qualified, or -1 with ctx->err_slot = the failing line
//                         index, as `page`. Accumulation errors are acc's, not
//                         the kernel's: it goes on to the page's end.
//               selection the variant `accumulate` runs
// New uses are new members and a new Use, asked for the same way.
using QualifyFn = int32_t (*)(const uint8_t* tuple, qk_ctx* ctx);
using ProjectFn = int32_t (*)(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx);
using PageFn = int64_t (*)(const uint8_t* page, uint8_t* rows, qk_ctx* ctx);
using PagesFn = int64_t (*)(const uint8_t* const* pages, uint32_t n, uint8_t* rows, qk_ctx* ctx);
using AccumulateFn = int64_t (*)(const uint8_t* page, qk_accum* acc, qk_ctx* ctx);

constexpr uint32_t kMaxPagesPerCall = 64;

enum class Use : uint8_t { Tuple, Page, Aggregate };

struct Entries {
  void* state = nullptr;
  QualifyFn qualify = nullptr;
  ProjectFn project = nullptr;
  PageFn page = nullptr;
  PagesFn pages = nullptr;
  AccumulateFn accumulate = nullptr;
  uint32_t batch_tuples = 0;
  Selection selection = Selection::Branch;
};

// A plan's Use::Tuple entries.
inline Entries tuple_entries(void* state, QualifyFn qualify, ProjectFn project) {
  Entries e;
  e.state = state;
  e.qualify = qualify;
  e.project = project;
  return e;
}

// Compile cost split the way JITs report it (zero where it does not apply).
// `lazy_ns`: wall time of code generated after prepare() returned (a fused
// plan's per-tuple functions, a kernel's other selection), which the back end
// times itself, as PostgreSQL's JIT counts its generation time; the harness
// charges its growth across an entries() call to prepare, not to run time.
struct PrepareTimes {
  uint64_t irgen_ns = 0, opt_ns = 0, codegen_ns = 0, lazy_ns = 0;
};

class Prepared {
 public:
  virtual ~Prepared() = default;
  // The entry points for `use`; for Use::Page in selection `s` (Branch or
  // NoBranch; a kernel of one variant returns it for both). Code not generated
  // yet is generated now, its time added to `times` (lazy_ns and the phases).
  // Entries stay valid until the next entries() call on this plan.
  virtual Entries entries(Use use, Selection s) = 0;
  PrepareTimes times;
};

// For back ends that adapt while they run (adaptive/), offered through
// Backend::hooks: what lies ahead of a scan of one of its plans, what ran when
// it is over, and the statement's end. Every call is on the statement's clock.
class AdaptHooks {
 public:
  // Before the scan's first page.
  virtual void scan_begins(Prepared& p, const ScanOutlook& o) = 0;
  // After its last page or its failure (`last` then true: no further scan of
  // this plan is expected in the statement, so background work for it is no
  // longer needed). A page entry called after this and before the next
  // scan_begins (a failed page recounted) is not a page of a scan.
  virtual void scan_ends(Prepared& p, bool last, TierReport* r) = 0;
  // The statement's scans are over: background work it started and no longer
  // needs is abandoned (and joined) here, so none runs into the next one's clock.
  virtual void statement_ends(TierReport* r) = 0;

 protected:
  ~AdaptHooks() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // True if one Prepared may run with any parameter block (plan reuse); the
  // harness then caches it by plan key. The 1976 interpreter returns false and
  // is prepared afresh per substitution with `params` inlined as constants.
  virtual bool reuses_plans() const = 0;
  // `params` is the block the plan will first run with (never null when the
  // plan has parameters); back ends that reuse plans must not depend on it.
  virtual std::unique_ptr<Prepared> prepare(const Plan& plan, const uint8_t* params) = 0;
  // Prints a form this back end owns (--dump=postfix, threaded, llvm, ...),
  // its page kernel in the selection `variant` (Branch or NoBranch; the
  // harness prints both under --selection auto, for forms that differ by it).
  virtual bool dump(const Plan& plan, std::string_view form, const uint8_t* params, Selection variant,
                    std::ostream& os) {
    (void)plan, (void)form, (void)params, (void)variant, (void)os;
    return false;
  }
  // True if plan's Prepared offers Use::Aggregate: an aggregate's inner
  // query (its rows accumulated, not kept) then runs through its accumulate
  // entry. Back ends that do not override it are never asked for
  // Use::Aggregate; the harness accumulates their rows (engine/aggregate.cpp).
  virtual bool accumulates(const Plan& plan) const {
    (void)plan;
    return false;
  }
  AdaptHooks* hooks = nullptr;  // set by back ends that adapt mid-scan
};

// A mode of a back end and what it is.
struct ModeSpec {
  std::string name;  // "switch"
  // False for modes that evaluate tuple at a time (interp's, the JITs' qual):
  // they build no page kernel, so --selection does not reach them, --stats
  // reports no selection for them and the sweep has no axis to draw. The
  // corpus and difftest run every other mode again under branch and nobranch
  // (test/engine/support.h); Selections.WhatRanIsWhatWasAsked checks this
  // against what every mode reports.
  bool page_kernel = true;
  // Modes that exist for tests (adaptive:switch-every-page): `all`, the corpus
  // and difftest run them; the paper report and the benchmarks leave them out.
  bool for_tests = false;
};

// A --dump form a back end prints, and whether its text differs by the
// kernel's selection (the JITs' code, vector's program): under --selection
// auto the harness prints both variants, branch (a scan starts with it) and
// nobranch (it may switch). Threaded code is one program for both.
struct DumpForm {
  std::string name;  // "llvm"
  bool by_selection = false;
};

struct BackendSpec {
  std::string name;              // "interp"
  std::vector<ModeSpec> modes;   // first is the default
  std::vector<DumpForm> dump_forms;
  std::function<std::unique_ptr<Backend>(const std::string& mode, const PrepareOptions&)> make;
  // The back-end options of the command line it reads ("--jit-opt",
  // "--jit-checks", "--jit-cpu", "--vector-batch"): one given where no
  // selected back end reads it would do nothing, and is a usage error.
  std::vector<std::string> reads_options = {};  // kJitOptions for each JIT
  // The options in force that shaped its code, as --stats names them beside
  // the mode ("-O1, generic CPU", "batch 128"), so that a figure says what
  // to give to reproduce it; none where no option does (interp, stencil).
  std::function<std::string(const PrepareOptions&)> settings = {};

  const ModeSpec* mode(std::string_view m) const;  // "" the default; null if unknown
  bool dumps(std::string_view form) const;          // one of dump_forms
  bool dumps_by_selection(std::string_view form) const;
};

void register_backend(BackendSpec spec);
const std::vector<BackendSpec>& registered_backends();
const BackendSpec* find_backend(std::string_view name);
// The JIT options as a JIT back end's settings name them: "-O1, generic CPU"
// (", checks" with --jit-checks).
std::string jit_settings(const PrepareOptions& opt);
// The options in force that shaped `backend`'s code, as its registration
// names them (BackendSpec::settings: "-O1, generic CPU", "batch 128"); ""
// where no option does (interp, threaded, stencil) or for an unknown name.
// --stats and profile print it beside the mode.
std::string backend_settings(std::string_view backend, const PrepareOptions& opt);
// Whether `mode` of that back end runs a page kernel (ModeSpec::page_kernel;
// "" is its default mode). False for an unknown back end or mode.
bool has_page_kernel(std::string_view backend, std::string_view mode);

}  // namespace quelkit::harness
