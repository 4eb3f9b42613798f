// The "adaptive" back end (adaptive.h): a prepared plan holding tiers of
// other back ends, found in the registry by name. threaded:goto is prepared at
// once (well under a microsecond); when a scan's outlook says enough tuples
// are coming, stencil:fused is prepared too (microseconds) and runs the scan
// from its first page; llvm:fused, at the level the cost model picks
// (model.h), is prepared on one background thread when the model says it
// pays, and takes over at the next page boundary once ready. All tiers are
// prepared from the same plan, so they raise the same errors at the same
// positions, whichever tier a page runs on. An aggregate's inner query runs
// through the tiers' accumulating kernels the same way.
#include "adaptive/adaptive.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <thread>
#include <vector>

#include "adaptive/model.h"
#include "engine/limits.h"
#include "engine/measure.h"
#include "storage/page.h"

namespace quelkit::adaptive {

namespace {

using harness::Backend;
using harness::Prepared;
using harness::Selection;
using harness::TierReport;

std::atomic<int> g_in_flight{0};

// The clocks and threads every runner's adaptive back end uses.
class RealWorld final : public World {
 public:
  uint64_t now_ns() override { return harness::now_ns(); }
  uint64_t thread_cpu_ns() override {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  }
  std::thread start(std::function<void()> compile) override { return std::thread(std::move(compile)); }
};

// The plan's size as the compile model measures it: nodes of its folded trees.
double ir_size(const harness::Plan& plan) { return double(harness::plan_nodes(plan)); }

// The measurement window: pages of the first tier timed before deciding
// (at least kWindowTuples tuples or kWindowPages pages, over the scans of one
// plan in a statement), and pages of the compiled tier timed to learn its ratio.
constexpr uint64_t kWindowTuples = 256;
constexpr uint32_t kWindowPages = 8;
constexpr uint32_t kRatioPages = 8;

// One background compile: the inputs the thread reads, the outputs it writes
// before `done`, and what only the statement's thread touches.
struct Job {
  World* world = nullptr;           // its clocks
  Backend* be = nullptr;            // the compiled tier's back end at `level`
  harness::Plan plan;               // its own copy: the thread reads nothing shared
  std::vector<uint8_t> params;
  Selection sel = Selection::Branch;
  harness::Use use = harness::Use::Page;  // the kernel generated: a page's or an accumulating one
  std::unique_ptr<Prepared> in;     // set: only generate `sel`'s kernel variant for it
  bool variant_only = false;
  int level = 1;
  double size = 0;

  std::unique_ptr<Prepared> out;  // null where the compile failed
  uint64_t wall_ns = 0, cpu_ns = 0;
  std::atomic<bool> done{false};

  std::thread th;
  bool settled = false;  // joined, accounted, output taken or freed

  void run() {
    const uint64_t c0 = world->thread_cpu_ns(), t0 = world->now_ns();
    std::unique_ptr<Prepared> p = std::move(in);
    // A compile that throws (std::bad_alloc, say) leaves no code: the plan
    // stays on the tier it runs, whose answers are the same. Thrown out of
    // this thread, it would end the process.
    try {
      if (!p) p = be->prepare(plan, params.empty() ? nullptr : params.data());
      p->entries(use, sel);  // its kernel in `sel`, where it has one
    } catch (...) {
      p.reset();
    }
    wall_ns = world->now_ns() - t0;
    cpu_ns = world->thread_cpu_ns() - c0;
    out = std::move(p);
    g_in_flight.fetch_sub(1, std::memory_order_relaxed);
    done.store(true, std::memory_order_release);
  }
  void join() {
    if (th.joinable()) th.join();
  }
  ~Job() { join(); }
};

class AdaptivePlan;

class AdaptiveBackend final : public Backend, public harness::AdaptHooks {
 public:
  AdaptiveBackend(Policy policy, const harness::PrepareOptions& opt, World& world)
      : policy_(policy), opt_(opt), world_(world) {
    hooks = this;
    // By name, through the registry: the tiers' headers are not ours to include.
    const harness::BackendSpec* t = harness::find_backend("threaded");
    if (!t) {
      std::fprintf(stderr, "quelkit: internal error: adaptive: threaded is not registered\n");
      std::abort();
    }
    base_ = t->make("goto", opt_);
    if (const harness::BackendSpec* s = harness::find_backend("stencil")) mid_ = s->make("fused", opt_);
    reuses_ = base_->reuses_plans() && (!mid_ || mid_->reuses_plans());  // asked at every scan
    fast_spec_ = harness::find_backend("llvm");
    // Made now, so the JIT is created here and not inside a statement's scan.
    if (fast_spec_) {
      for (int l = 0; l < kLevels; ++l) fast(l);
      fast(opt_.jit_opt);
    }
  }
  ~AdaptiveBackend() override {
    if (active_ && !active_->settled) settle(*active_, true, nullptr);
  }

  bool reuses_plans() const override { return reuses_; }
  // An aggregate's inner query accumulates in its tiers' own kernels (threaded
  // code's accumulate nodes, stencil's and LLVM's accumulating kernels),
  // switched at a page boundary as page kernels are: the block they add to
  // (runtime/accumulate.h) is the runtime's, so a tier goes on from what the
  // one before it left there.
  bool accumulates(const harness::Plan& plan) const override { return base_->accumulates(plan); }
  std::unique_ptr<Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override;
  // Each tier's own form: threaded code, the stencils, and LLVM's at --jit-opt
  // (the level the model starts from; it may compile at another).
  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    if (form == "llvm" && fast_spec_) return fast(opt_.jit_opt)->dump(plan, form, params, variant, os);
    return (mid_ && mid_->dump(plan, form, params, variant, os)) || base_->dump(plan, form, params, variant, os);
  }
  void scan_begins(Prepared& p, const harness::ScanOutlook& o) override;
  void scan_ends(Prepared& p, bool last, TierReport* r) override;
  // The statement is over: a compile still running is no longer needed.
  void statement_ends(TierReport* r) override {
    if (!active_ || active_->settled) return;
    if (active_->done.load(std::memory_order_acquire)) active_->join();  // its plan takes the code later
    else settle(*active_, true, r);
    active_.reset();
  }

  // Joins j and accounts it into r (if given); abandoned: its code is freed.
  void settle(Job& j, bool abandon, TierReport* r) {
    j.join();
    // Every compile teaches the model, an abandoned one too (joined, it ran
    // to its end). Wall time, not CPU: it is when the code is ready, and what
    // a statement waits for when it abandons one; on a loaded machine the larger.
    if (!j.settled && !j.variant_only) model_.compiled(j.level, j.size, double(j.wall_ns));
    if (abandon) j.out.reset();
    if (!j.settled && r) {
      ++r->bg_compiles;
      r->bg_abandoned += abandon;
      r->bg_wall_ns += j.wall_ns;
      r->bg_cpu_ns += j.cpu_ns;
    }
    j.settled = true;
  }
  // Starts j on the background thread if no other compile of this back end runs.
  bool start(const std::shared_ptr<Job>& j) {
    if (active_ && !active_->settled && !active_->done.load(std::memory_order_acquire)) return false;
    if (active_) active_->join();
    g_in_flight.fetch_add(1, std::memory_order_relaxed);
    Job* raw = j.get();  // joined by its plan or by this back end before it goes
    j->th = world_.start([raw] { raw->run(); });
    active_ = j;
    return true;
  }
  // Tuples below which no compile can pay (model.h): a compiled tier saves at
  // most the first tier's whole per-tuple cost, taken as kCostlyPlans times
  // threaded code's running average (plans differ: (i)'s log() per tuple).
  // A fixed bound made short scans of cheap plans copy their plan and time
  // their pages for a compile that could never pay (docs/DESIGN.md, Measurements).
  double repay_tuples() const { return model_.tuples_to_repay_any_compile(kCostlyPlans * first_.threaded_ns()); }
  static constexpr double kCostlyPlans = 3;

  Backend* fast(int level) {
    level = std::clamp(level, 0, 3);
    if (!fast_[level]) {
      harness::PrepareOptions o = opt_;
      o.jit_opt = level;
      o.jit_lookup_opt = -1;  // the tier's level is this back end's choice, a lookup's too
      fast_[level] = fast_spec_->make("fused", o);
    }
    return fast_[level].get();
  }

  Policy policy_;
  harness::PrepareOptions opt_;
  World& world_;  // the clocks the policy measures by, the compile's thread
  std::unique_ptr<Backend> base_;  // threaded:goto: every plan's first tier, and its tuple functions
  std::unique_ptr<Backend> mid_;   // stencil:fused, when built
  bool reuses_ = false;            // plans serve every execution (both tiers say so)
  const std::string base_label_ = "threaded:goto", mid_label_ = "stencil:fused";
  FirstTier first_;
  const harness::BackendSpec* fast_spec_ = nullptr;
  std::unique_ptr<Backend> fast_[4];
  CostModel model_;
  std::shared_ptr<Job> active_;  // the one background compile, at most
};

class AdaptivePlan final : public Prepared {
 public:
  AdaptivePlan(AdaptiveBackend& be, std::unique_ptr<Prepared> base, const harness::Plan& plan, const uint8_t* params)
      : be_(be),
        base_(std::move(base)),
        cur_(base_.get()),
        use_(plan.accumulates && be.accumulates(plan) ? harness::Use::Aggregate : harness::Use::Page) {
    cur_e_ = base_->entries(use_, Selection::Auto);
    sel_ = cur_e_.selection;
    times = base_->times;
    // The plan is copied for the background compile only when the first
    // scan's outlook shows one could pay (scan_begins): a scan of a few
    // pages that no later scan of the plan follows never copies.
    // The harness scans a plan it prepared before that execution ends, so the
    // plan is still there then.
    if ((be_.fast_spec_ || be_.mid_) && offers(cur_e_, use_)) {
      plan_ = &plan;
      first_params_ = params;
    }
  }
  ~AdaptivePlan() override {
    if (job_ && !job_->settled) be_.settle(*job_, true, nullptr);
  }

  // Tuple at a time (replace, delete, no page kernel) is the first tier's:
  // its per-tuple functions are cheap to make, the compiled tier's would be
  // an LLVM compile on the statement's thread. The page and accumulate
  // entries are this plan's own (before_page, then the running tier's).
  // Code a tier generates here is this plan's lazy time.
  harness::Entries entries(harness::Use use, Selection s) override {
    const harness::PrepareTimes before = tier_times();
    harness::Entries e;
    e.state = this;
    if (use == harness::Use::Tuple) {
      base_tuple_ = base_->entries(harness::Use::Tuple, s);
      e.qualify = &qualify_entry;
      e.project = &project_entry;
    } else {
      if (use != use_) {  // a page kernel's entry asked of an accumulating plan (--dump), or back
        use_ = use;
        cur_e_ = cur_->entries(use_, sel_);
      }
      if (offers(cur_e_, use_)) {
        if (s != Selection::Auto) select(s);
        if (use_ == harness::Use::Aggregate) e.accumulate = &tier_entry<&harness::Entries::accumulate, qk_accum>;
        else e.page = &tier_entry<&harness::Entries::page, uint8_t>;
        e.selection = sel_;
      }
    }
    const harness::PrepareTimes after = tier_times();
    times.irgen_ns += after.irgen_ns - before.irgen_ns;
    times.opt_ns += after.opt_ns - before.opt_ns;
    times.codegen_ns += after.codegen_ns - before.codegen_ns;
    times.lazy_ns += after.lazy_ns - before.lazy_ns;
    return e;
  }

  // Every tier runs the selection the harness chose. Only the running tier
  // follows each choice at once (under --selection auto the harness
  // alternates selections page by page while it probes, and generating or
  // switching three tiers' variants each time cost more than the probe); a
  // tier that takes over later is brought to it then (use()).
  void select(Selection s) {
    if (s != sel_ && page_ > 0) {
      // Under --selection auto the harness alternates the selections over
      // some of a scan's pages, generating the other variant and entering it
      // fresh: those pages measure far slower than the scan then runs, and
      // made later statements start on threaded code. And a window that
      // mixes the two selections measures neither: the compiled tier timed
      // half in branch on a coin-toss conjunct against a first tier timed in
      // nobranch taught the model that compiling never pays, and the first
      // tier so measured stopped stencil being adopted (docs/DESIGN.md,
      // Measurements). So a window being measured starts again once the
      // selection settles, and each tier's cost is kept per selection
      // (pick_tier). (A scan's first selection, set before its first page,
      // perturbs nothing: one-page substituted scans would otherwise never
      // close a window.)
      restart_window(0);
      restart_window(1);
      last_t_ = 0;
    }
    sel_ = s;
    cur_e_ = cur_->entries(use_, s);
    if (fast_ && be_.policy_ == Policy::Tiered) {
      pick_tier();
      update_watch();
    }
  }

  void scan_begins(const harness::ScanOutlook& o) {
    in_scan_ = true;
    // The tuples coming for this plan: this scan's, and the later scans'.
    // (Computed only where a choice needs them: (f)-(i) begin thousands of
    // one-page scans of a plan whose choices are made.)
    auto coming = [&o] {
      return double(std::min<uint64_t>(o.tuples, o.pages * std::max<uint32_t>(o.tuples_per_page, 1))) *
             double(1 + o.runs_after);
    };
    if (!mid_ && !no_stencil_ && be_.mid_ && (plan_ || kept_)) {
      // The first tier of this scan: stencil when they repay its preparation.
      if (be_.policy_ != Policy::Tiered || be_.first_.stencil_pays(coming()))
        adopt_stencil(plan_ ? *plan_ : *kept_, plan_ ? first_params_ : (params_.empty() ? nullptr : params_.data()));
    }
    if (plan_) {
      // The plan is copied for a background compile only when they could repay one.
      if (be_.fast_spec_ && (be_.policy_ != Policy::Tiered || coming() >= be_.repay_tuples())) {
        kept_ = std::make_unique<harness::Plan>(harness::clone_plan(*plan_));
        if (first_params_) params_.assign(first_params_, first_params_ + plan_->params.tuple_len);
        size_ = ir_size(*plan_);
      }
      plan_ = nullptr;
      first_params_ = nullptr;
    }
    // Field by field: the harness wrote `o` just now, field by field, and a
    // copy of the whole struct reads it in wider loads that wait for those
    // stores to retire, once per scan of thousands of one-page scans.
    outlook_.pages = o.pages;
    outlook_.tuples_per_page = o.tuples_per_page;
    outlook_.runs_after = o.runs_after;
    page_ = 0;
    switch_page_ = -1;
    scan_tuples_[0] = scan_tuples_[1] = 0;
    if (job_ && job_->settled) job_.reset();  // abandoned when a statement ended
    // Code compiled for an earlier scan of this plan runs from the first page
    // where it measured faster than the first tier in this selection.
    use(0);
    if (fast_ && be_.policy_ == Policy::Tiered) pick_tier();
    update_watch();
  }

  void scan_ends(bool last, TierReport* r) {
    in_scan_ = false;
    if (last_t_) {  // the scan's last page, timed to its end
      timed(be_.world_.now_ns());
    }
    if (scan_tuples_[0]) r->tuples.emplace_back(mid_ ? be_.mid_label_ : be_.base_label_, scan_tuples_[0]);
    if (scan_tuples_[1]) r->tuples.emplace_back(fast_label_, scan_tuples_[1]);
    r->switch_page = switch_page_;
    ++runs_;
    run_tuples_ += scan_tuples_[0] + scan_tuples_[1];
    if (last) {
      // Nothing more of this plan in the statement: a compile that finished
      // is kept for the next statement, one still running is abandoned.
      if (job_ && job_->done.load(std::memory_order_acquire)) take(false);
      else if (job_) {
        be_.settle(*job_, true, &pending_);
        job_.reset();
      }
      decided_ = started_ = false;
      runs_ = run_tuples_ = 0;
    }
    r->bg_compiles += pending_.bg_compiles;
    r->bg_abandoned += pending_.bg_abandoned;
    r->bg_wall_ns += pending_.bg_wall_ns;
    r->bg_cpu_ns += pending_.bg_cpu_ns;
    pending_.clear();
    timing_ = false;
    last_t_ = 0;  // a page's time ends at the next page of the same scan
  }

  // A page's bookkeeping before the running tier runs it: the page timed,
  // and at the boundary a compile started, code taken or a tier switched.
  void before_page(const uint8_t* page) {
    // A failed page recounted after the scan ended (AdaptHooks::scan_ends)
    // is not a page of the scan: its tuples were counted, whole, when it ran.
    if (!in_scan_) return;
    // The page's lines, deleted ones included: what the tier is handed.
    const uint32_t lines = harness::page_nlines(page);
    if (watch_) {
      // One clock read a page while measuring: a page's time runs from its
      // start to the next page's, the scan's own cost between pages included
      // (it is part of what a tier saves or not).
      if (timing_ || last_t_) {
        const uint64_t t = be_.world_.now_ns();
        if (last_t_) {
          timed(t);
        }
        last_t_ = 0;
        boundary();
        if (timing_) {
          last_t_ = t;
          last_tier_ = tier_;
          last_lines_ = lines;
        }
      } else {
        boundary();
      }
    }
    scan_tuples_[tier_] += lines;
    ++page_;
  }


 private:
  // The entry points the harness calls: ctx->plan is this plan; a tier's
  // entry is called with its own state there.
  static int32_t qualify_entry(const uint8_t* tuple, qk_ctx* ctx) {
    auto* me = static_cast<AdaptivePlan*>(ctx->plan);
    ++me->scan_tuples_[0];
    ctx->plan = me->base_tuple_.state;
    const int32_t r = me->base_tuple_.qualify(tuple, ctx);
    ctx->plan = me;
    return r;
  }
  static int32_t project_entry(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) {
    auto* me = static_cast<AdaptivePlan*>(ctx->plan);
    ctx->plan = me->base_tuple_.state;
    const int32_t r = me->base_tuple_.project(tuple, row, ctx);
    ctx->plan = me;
    return r;
  }
  // A page through the running tier's entry `Fn` (Entries::page, whose
  // `out` is the rows, or Entries::accumulate, the aggregates' block).
  template <auto Fn, class Out>
  static int64_t tier_entry(const uint8_t* page, Out* out, qk_ctx* ctx) {
    auto* me = static_cast<AdaptivePlan*>(ctx->plan);
    me->before_page(page);
    ctx->plan = me->cur_e_.state;
    const int64_t n = (me->cur_e_.*Fn)(page, out, ctx);
    ctx->plan = me;
    return n;
  }
  // Whether e holds the entry `use` runs through.
  static bool offers(const harness::Entries& e, harness::Use use) {
    return use == harness::Use::Aggregate ? e.accumulate != nullptr : e.page != nullptr;
  }
  // What the tiers have generated so far (their prepare and lazy times).
  harness::PrepareTimes tier_times() const {
    harness::PrepareTimes t;
    for (const Prepared* p : {base_.get(), mid_.get(), fast_.get()}) {
      if (!p) continue;
      t.irgen_ns += p->times.irgen_ns;
      t.opt_ns += p->times.opt_ns;
      t.codegen_ns += p->times.codegen_ns;
      t.lazy_ns += p->times.lazy_ns;
    }
    return t;
  }

  void use(int tier) {
    tier_ = tier;
    cur_ = tier ? fast_.get() : mid_ ? mid_.get() : base_.get();
    cur_e_ = cur_->entries(use_, sel_);
  }
  // stencil:fused becomes the first tier, in the selection running now; its
  // preparation is timed for the model and charged to the scan that asked.
  void adopt_stencil(const harness::Plan& plan, const uint8_t* params) {
    const uint64_t t0 = be_.world_.now_ns();
    std::unique_ptr<Prepared> p = be_.mid_->prepare(plan, params);
    if (!offers(p->entries(use_, sel_), use_)) {
      no_stencil_ = true;  // not again at every later scan of this plan
      return;
    }
    be_.first_.prepared(double(be_.world_.now_ns() - t0));
    mid_ = std::move(p);
    restart_window();  // the per-tuple cost measured so far was threaded's
    for (double& c : base_cost_) c = 0;
    decided_ = false;
  }
  void switch_to(int tier) {
    if (tier != tier_ && tier == 1 && switch_page_ < 0) switch_page_ = int64_t(page_);
    use(tier);
  }

  // A page boundary while something may change: a compile to start, code to
  // install, a tier to measure.
  void boundary() {
    if (job_ && (job_->done.load(std::memory_order_acquire) || (be_.policy_ == Policy::EveryPage && !fast_)))
      take(true);
    switch (be_.policy_) {
      case Policy::EveryPage:
        if (!fast_ && !job_ && kept_ && !started_) started_ = launch(be_.opt_.jit_opt);
        if (fast_) switch_to(page_ == 0 ? 0 : 1 - tier_);
        break;
      case Policy::AtStart:
        if (!fast_ && !job_ && kept_ && !started_) started_ = launch(be_.opt_.jit_opt);
        break;
      case Policy::Tiered:
        if (!fast_ && !job_ && kept_ && !decided_) {
          timing_ = true;
          if (timed_tuples_[0] >= kWindowTuples || timed_pages_[0] >= kWindowPages) {
            timing_ = false;
            be_.first_.ran(mid_ != nullptr, base_ns());
            base_cost_[int(sel_)] = base_ns();
            Decision d = be_.model_.decide(base_ns(), remaining(), size_, base_kind());
            if (!d.compile) decided_ = true;
            else decided_ = launch(d.level);  // busy elsewhere: try again at the next page
          }
        }
        if (fast_) measure_tiers();
        break;
    }
    update_watch();
  }

  void update_watch() {
    switch (be_.policy_) {
      case Policy::EveryPage: watch_ = kept_ != nullptr; break;
      case Policy::AtStart: watch_ = job_ || (!fast_ && kept_ && !started_); break;
      case Policy::Tiered:
        watch_ = job_ || (!fast_ && kept_ && !decided_) ||
                 (fast_ && (!base_cost_[int(sel_)] || !fast_cost_[int(sel_)]));
        break;
    }
    watch_ = watch_ || timing_;
  }

  // The page that began at last_t_ ended at t.
  void timed(uint64_t t) {
    const int k = last_tier_;
    timed_tuples_[k] += last_lines_;
    if (last_lines_ && samples_[k].size() < kWindowPages * 4)
      samples_[k].push_back(double(t - last_t_) / double(last_lines_));
    ++timed_pages_[k];
  }
  // With a compiled tier (Tiered): which tier runs in the selection running
  // now. Each tier's per-tuple cost is measured once per selection (the
  // first tier's, then the compiled tier's over kRatioPages pages), and the
  // cheaper one runs from then on. A compiled tier is not trusted across
  // selections: -O0 code that matched the first tier with a branch on a
  // coin-toss conjunct stayed as slow in nobranch, where the stencils it
  // replaced run far faster, scan after scan.
  void pick_tier() {
    const int s = int(sel_);
    if (!base_cost_[s]) {
      if (tier_ != 0) use(0);
    } else if (!fast_cost_[s]) {
      switch_to(1);
    } else {
      fast_cost_[s] < base_cost_[s] ? switch_to(1) : use(0);
    }
  }
  // A page boundary with a compiled tier whose costs in this selection are
  // not both known yet: the tier being measured runs, timed.
  void measure_tiers() {
    const int s = int(sel_);
    if (!base_cost_[s]) {
      if (tier_ != 0) {
        use(0);
        restart_window(0);
      }
      timing_ = true;
      if (timed_tuples_[0] < kWindowTuples && timed_pages_[0] < kWindowPages) return;
      base_cost_[s] = base_ns();
      restart_window(1);
    }
    if (!fast_cost_[s]) {
      if (tier_ != 1) {
        switch_to(1);
        restart_window(1);
      }
      timing_ = true;
      if (timed_pages_[1] < kRatioPages) return;
      fast_cost_[s] = per_tuple(1);
      be_.model_.ran(fast_level_, fast_cost_[s] / base_cost_[s], base_kind());
    }
    timing_ = false;
    pick_tier();
  }

  // A tier's ns per tuple: the median of its timed pages, so that the first
  // pages' cold caches and the result's first page faults do not make the
  // first tier look slower than it is.
  double per_tuple(int k) {
    std::vector<double>& v = samples_[k];
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
  double base_ns() { return per_tuple(0); }
  // Tier k's window (0: the first tier's, 1: the compiled tier's ratio)
  // measures again from the next page.
  void restart_window(int k = 0) {
    samples_[k].clear();
    timed_tuples_[k] = timed_pages_[k] = 0;
  }
  // Which first tier base_ns() measured (the cost model keeps ratios per first tier).
  Base base_kind() const { return mid_ ? Base::Stencil : Base::Threaded; }
  // Tuples still to come for this plan in the statement: the pages left of
  // this scan, and the scans still to come at the tuples a scan has had.
  double remaining() const {
    const uint64_t seen_pages = timed_pages_[0] + timed_pages_[1];
    const double tpp = seen_pages ? double(timed_tuples_[0] + timed_tuples_[1]) / double(seen_pages) : 1.0;
    const double left = outlook_.pages > page_ ? double(outlook_.pages - page_) * tpp : 0.0;
    const double per_run = runs_ ? double(run_tuples_) / double(runs_) : double(outlook_.pages) * tpp;
    return left + double(outlook_.runs_after) * per_run;
  }

  // Starts a background compile of level `level` (or, `in` set, of the
  // selection variant of `in`'s kernel); false when another runs (then `in`
  // stays with the caller).
  bool launch(int level, std::unique_ptr<Prepared>& in) {
    auto j = std::make_shared<Job>();
    j->world = &be_.world_;
    j->be = be_.fast(level);
    j->plan = harness::clone_plan(*kept_);
    j->params = params_;
    j->sel = sel_;
    j->use = use_;
    j->variant_only = in != nullptr;
    j->in = std::move(in);
    j->level = level;
    j->size = size_;
    if (!be_.start(j)) {
      in = std::move(j->in);
      return false;
    }
    job_ = std::move(j);
    return true;
  }
  bool launch(int level) {
    std::unique_ptr<Prepared> none;
    return launch(level, none);
  }

  // The job is done (or, under switch-every-page, waited for): its code
  // becomes the compiled tier, unless its kernel variant is not the selection
  // running now, which is then generated in the background too.
  // switch_now: the compiled tier runs from this page.
  void take(bool switch_now) {
    std::shared_ptr<Job> j = std::move(job_);
    if (j->settled) return;  // abandoned by the statement's end: start afresh later
    be_.settle(*j, false, &pending_);
    std::unique_ptr<Prepared> p = std::move(j->out);
    if (!p || !offers(p->entries(j->use, j->sel), j->use)) {
      kept_.reset();  // no compiled kernel for this plan: stay on the first tier
      return;
    }
    // The selection changed while it compiled: its variant is generated in
    // the background too (where it exists already, that job only selects it).
    if (j->sel != sel_ && be_.policy_ != Policy::EveryPage && launch(j->level, p)) return;
    fast_ = std::move(p);
    fast_cost_[0] = fast_cost_[1] = fast_cost_[2] = 0;  // new code: measured afresh
    fast_level_ = j->level;
    fast_label_ = "llvm:fused:O" + std::to_string(fast_level_);
    if (switch_now && be_.policy_ == Policy::AtStart) switch_to(1);
    if (switch_now && be_.policy_ == Policy::Tiered) pick_tier();
  }

  AdaptiveBackend& be_;
  std::unique_ptr<Prepared> base_, mid_, fast_;  // threaded, stencil (when adopted), llvm
  Prepared* cur_;
  // What the harness runs this plan through: page kernels, or (an aggregate's
  // inner query) accumulating ones; every tier's entry is asked for it.
  harness::Use use_;
  harness::Entries cur_e_;       // cur_'s entry for use_, in sel_
  harness::Entries base_tuple_;  // base_'s tuple entries
  Selection sel_;  // the selection the harness chose last: every tier's, once it runs
  bool in_scan_ = false;  // between scan_begins and scan_ends
  int tier_ = 0;
  bool no_stencil_ = false;  // stencil gave this plan no page kernel: it stays on threaded
  const harness::Plan* plan_ = nullptr;  // until the first scan begins: the plan prepared
  const uint8_t* first_params_ = nullptr;
  std::unique_ptr<harness::Plan> kept_;  // what the background compile compiles; null: no second tier
  std::vector<uint8_t> params_;
  double size_ = 0;
  std::shared_ptr<Job> job_;
  int fast_level_ = 1;
  std::string fast_label_;

  harness::ScanOutlook outlook_;
  uint64_t page_ = 0;
  int64_t switch_page_ = -1;
  uint64_t scan_tuples_[2] = {};
  uint64_t runs_ = 0, run_tuples_ = 0;
  bool watch_ = false, timing_ = false, decided_ = false, started_ = false;
  // Per selection (index: Selection), ns per tuple of the first tier and of
  // the compiled tier as measured for this plan; 0: not yet (pick_tier).
  double base_cost_[3] = {}, fast_cost_[3] = {};
  uint64_t timed_tuples_[2] = {}, timed_pages_[2] = {};
  std::vector<double> samples_[2];  // ns per tuple of timed pages, per tier
  uint64_t last_t_ = 0;  // while timing: when the page before began, its tier and lines
  int last_tier_ = 0;
  uint32_t last_lines_ = 0;
  TierReport pending_;  // background compiles settled since the last scan_ends
};

std::unique_ptr<Prepared> AdaptiveBackend::prepare(const harness::Plan& plan, const uint8_t* params) {
  return std::make_unique<AdaptivePlan>(*this, base_->prepare(plan, params), plan, params);
}

// Every plan of this back end is an AdaptivePlan.
void AdaptiveBackend::scan_begins(Prepared& p, const harness::ScanOutlook& o) {
  static_cast<AdaptivePlan&>(p).scan_begins(o);
}
void AdaptiveBackend::scan_ends(Prepared& p, bool last, TierReport* r) {
  static_cast<AdaptivePlan&>(p).scan_ends(last, r);
}

}  // namespace

int compiles_in_flight() { return g_in_flight.load(std::memory_order_relaxed); }

World& real_world() {
  static RealWorld w;
  return w;
}

std::unique_ptr<Backend> make_backend(Policy policy, const harness::PrepareOptions& opt, World& world) {
  return std::make_unique<AdaptiveBackend>(policy, opt, world);
}

void register_backend() {
  harness::BackendSpec spec;
  spec.name = "adaptive";
  spec.modes = {{"tiered"}, {"switch-every-page", true, true}, {"compile-at-start", true, true}};
  // Its LLVM tier's options, and its tiers' dump forms (registered before it:
  // backends/backends.cpp).
  spec.reads_options = harness::kJitOptions;
  spec.settings = [](const harness::PrepareOptions& opt) {
    harness::PrepareOptions tier = opt;
    tier.jit_lookup_opt = -1;  // the tier's level is its own choice, a lookup's too (fast())
    return "llvm tier " + harness::jit_settings(tier);
  };
  for (const char* tier : {"threaded", "stencil", "llvm"})
    if (const harness::BackendSpec* t = harness::find_backend(tier)) {
      spec.dump_forms.insert(spec.dump_forms.end(), t->dump_forms.begin(), t->dump_forms.end());
    }
  spec.make = [](const std::string& mode, const harness::PrepareOptions& opt) -> std::unique_ptr<Backend> {
    if (mode == "switch-every-page") return make_backend(Policy::EveryPage, opt);
    if (mode == "compile-at-start") return make_backend(Policy::AtStart, opt);
    if (mode == "tiered" || mode.empty()) return make_backend(Policy::Tiered, opt);
    return nullptr;
  };
  harness::register_backend(std::move(spec));
}

}  // namespace quelkit::adaptive
