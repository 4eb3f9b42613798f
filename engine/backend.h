// The back-end interface (docs/adding-a-backend.md). A back end turns a Plan
// into a Prepared object; the harness owns scans, storage, sinks and the plan
// cache and drives a Prepared either tuple by tuple (qualify, then project the
// qualifying tuples) or, when the back end offers one, through a fused
// page-at-a-time kernel. The harness knows no back end by name: each registers
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
#include "runtime/runtime.h"

namespace quelkit::harness {

struct PrepareOptions {
  int jit_opt = 1;          // --jit-opt: 0..3 (JIT back ends)
  bool jit_checks = false;  // --jit-checks: bounds assertions in generated code
  // --jit-cpu native: JIT code may use every instruction of this machine's CPU.
  // By default both JITs target the generic CPU the ahead-of-time build targets
  // (x86-64), so native code is compared with the interpreters, threaded code
  // and the reference loops on the same instruction set.
  bool jit_native_cpu = false;
  // --vector-batch: tuples per batch of the vector back end (0: its default);
  // batches span pages (Prepared::run_pages).
  uint32_t vector_batch = 0;
  // --selection: how fused page kernels select (selection.h). Branch or
  // NoBranch: the kernel is prepared in that variant. Auto: prepared with
  // branch; the scan may switch it to nobranch after its first pages.
  Selection selection = Selection::Auto;
};

// The command-line options every JIT back end reads (llvm, gccjit, and
// adaptive for its LLVM tier): its registration's reads_options.
inline const std::vector<std::string> kJitOptions = {"--jit-opt", "--jit-checks", "--jit-cpu"};

// Compile cost split the way JITs report it (zero where it does not apply).
struct PrepareTimes {
  uint64_t irgen_ns = 0, opt_ns = 0, codegen_ns = 0;
};

constexpr uint32_t kMaxPagesPerCall = 64;

// What a scan knows of its work when it starts (Prepared::scan_begins), for
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

// What a back end that changes tiers mid-scan ran (Prepared::scan_ends,
// Backend::statement_ends); the harness adds it to --stats (docs/stats.md).
struct TierReport {
  // Tier label, tuples it ran, in order of first use. The labels are views:
  // the back end's names outlive the report, which the harness adds to the
  // statement's ExecStats (copying a label the first time it appears) at
  // once. A substituted statement ends thousands of one-page scans, and a
  // label copied per scan and looked up by string was most of what
  // reporting a scan cost.
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

class Prepared {
 public:
  virtual ~Prepared() = default;
  // 1 qualifies, 0 does not, -1 runtime error (raised into ctx with qk_raise).
  virtual int qualify(const uint8_t* tuple, qk_ctx* ctx) = 0;
  // Writes plan.out.tuple_len bytes of the projected row; 0 ok, -1 error.
  virtual int project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) = 0;
  // Optional fused kernel: every live tuple of the page (line order) is
  // qualified and, if it qualifies, projected into rows (consecutive rows of
  // plan.out.tuple_len bytes). Returns rows written, or -1 on error with
  // ctx->err_slot = the line index of the failing tuple.
  virtual bool has_kernel() const { return false; }
  virtual int64_t run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) {
    (void)page, (void)rows, (void)ctx;
    return -1;
  }
  // run_page as one plain function, where it is no more than a call of one
  // (generated code): the scan's steady loop calls it straight, without a
  // virtual call per page. Valid until the next select_kernel; nullptr where
  // run_page does more (the scan then calls run_page).
  // run_page again on a page that failed, cut short before its failing line,
  // only to count what qualified before it: not a page of the scan, so a
  // back end that counts the tuples each tier ran (adaptive) leaves it out.
  virtual int64_t recount_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) { return run_page(page, rows, ctx); }
  using PageKernel = int64_t (*)(const uint8_t* page, uint8_t* rows, qk_ctx* ctx);
  virtual PageKernel page_kernel() { return nullptr; }
  // Optional: a kernel whose batches span pages. batch_tuples() > 0 is how
  // many tuples it evaluates at once; the scan then hands it the pages of
  // about one batch per run_pages call (at most kMaxPagesPerCall), in scan
  // order, rows for all of them consecutive. Returns rows written, or -1 when
  // a tuple failed: the scan then runs those pages again through run_page,
  // one at a time, to find the failing tuple and count what came before it.
  virtual uint32_t batch_tuples() const { return 0; }
  virtual int64_t run_pages(const uint8_t* const* pages, uint32_t n, uint8_t* rows, qk_ctx* ctx) {
    (void)pages, (void)n, (void)rows, (void)ctx;
    return -1;
  }
  // A plan prepared as a fused kernel only may still have per-tuple functions
  // to generate before qualify/project run (replace/delete and plans with no
  // variable drive them tuple by tuple). The harness asks first and has them
  // made under its prepare timer, so that compile is prepare time, not run time.
  virtual bool tuple_functions_pending() const { return false; }
  virtual void make_tuple_functions() {}
  // The page kernel's selection (selection.h): the variant run_page runs now
  // (Branch or NoBranch), and a switch to the other. A variant not prepared yet
  // is generated by select_kernel, which the harness times as prepare.
  // Back ends whose kernel has one variant keep these defaults.
  virtual Selection kernel_selection() const { return Selection::Branch; }
  virtual bool kernel_selection_pending(Selection s) const { (void)s; return false; }
  virtual void select_kernel(Selection s) { (void)s; }
  // Optional, for back ends that adapt while a scan runs (adaptive/): the
  // scan's outlook before its first page, and after its last page (or its
  // failure, `last` then true) what ran. `last`: no further scan of this plan
  // is expected in the statement, so background work for it is no longer
  // needed. Both run on the statement's clock.
  virtual void scan_begins(const ScanOutlook& o) { (void)o; }
  virtual void scan_ends(bool last, TierReport* r) { (void)last, (void)r; }
  PrepareTimes times;
  // What --selection auto remembers of this plan's scans: its last choice,
  // which the next scan's probe waits in before timing the two, and the
  // verdict of its last timed short scan (selection.h, AutoMemory).
  AutoMemory auto_memory;
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
  // harness prints both under --selection auto, for the forms the spec's
  // variant_dump_forms names).
  virtual bool dump(const Plan& plan, std::string_view form, const uint8_t* params, Selection variant,
                    std::ostream& os) {
    (void)plan, (void)form, (void)params, (void)variant, (void)os;
    return false;
  }
  // Called when a statement's scans are over, on its clock: background work
  // the statement started and no longer needs is abandoned (and joined) here,
  // so none runs into the next statement's clock.
  virtual void statement_ends(TierReport* r) { (void)r; }
};

struct BackendSpec {
  std::string name;                     // "interp"
  std::vector<std::string> modes;       // first is the default: {"switch", "goto"}
  std::vector<std::string> dump_forms;  // forms dump() understands
  std::function<std::unique_ptr<Backend>(const std::string& mode, const PrepareOptions&)> make;
  // Modes that evaluate tuple at a time (interp's, the JITs' qual): they build
  // no page kernel, so --selection does not reach them, --stats reports no
  // selection for them and the sweep has no axis to draw. The corpus and
  // difftest run every other mode again under branch and nobranch (test/engine/
  // support.h); Selections.WhatRanIsWhatWasAsked checks this list against
  // what every mode reports.
  std::vector<std::string> tuple_modes = {};
  // Modes that exist for tests (adaptive:switch-every-page): `all`, the corpus
  // and difftest run them; the paper report and the benchmarks leave them out.
  std::vector<std::string> test_modes = {};
  // Dump forms whose text differs by the kernel's selection (the JITs' code,
  // vector's program): under --selection auto the harness prints both
  // variants, branch (a scan starts with it) and nobranch (it may switch).
  // Threaded code is one program for both and prints once.
  std::vector<std::string> variant_dump_forms = {};
  // The back-end options of the command line it reads ("--jit-opt",
  // "--jit-checks", "--jit-cpu", "--vector-batch"): one given where no
  // selected back end reads it would do nothing, and is a usage error.
  std::vector<std::string> reads_options = {};  // kJitOptions for each JIT
  // The options in force that shaped its code, as --stats names them beside
  // the mode ("-O1, generic CPU", "batch 128"), so that a figure says what
  // to give to reproduce it; none where no option does (interp, stencil).
  std::function<std::string(const PrepareOptions&)> settings = {};
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
// Whether `mode` of that back end runs a page kernel (not one of its
// tuple_modes; "" is its default mode). False for an unknown back end.
bool has_page_kernel(std::string_view backend, std::string_view mode);

}  // namespace quelkit::harness
