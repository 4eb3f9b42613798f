// The "vector" back end: prepare = lower the folded plan into a program of
// primitives (no parameter values are read: one Prepared serves every
// parameter block), run = the program over batches of tuples that span
// pages, or
// over a batch of one for the harness's tuple-at-a-time entry points.
#include <algorithm>
#include <ostream>
#include <string>

#include "engine/measure.h"
#include "vector/vector.h"

namespace quelkit::vector {

namespace {

class PreparedProgram final : public harness::Prepared {
 public:
  // The program in the selection `opt` asks for; under --selection auto the
  // plan is kept, so that the other selection can be lowered when the scan
  // switches to it (engine/selection.h).
  PreparedProgram(const harness::Plan& plan, const Options& opt, bool keep_plan) : opt_(opt) {
    const bool nb = opt.selection == Selection::NoBranch;
    runners_[nb] = std::make_unique<Runner>(lower(plan, opt));
    r_ = runners_[nb].get();
    if (keep_plan) plan_ = std::make_unique<harness::Plan>(harness::clone_plan(plan));
  }

  // Batches span pages: the scan hands over about a batch's worth of pages
  // (Entries::pages); the other selection is lowered when first asked for.
  harness::Entries entries(harness::Use use, harness::Selection s) override {
    if (use == harness::Use::Tuple) return harness::tuple_entries(this, &qualify, &project);
    harness::Entries e;
    e.state = this;
    if (s != harness::Selection::Auto) select(s == harness::Selection::NoBranch);
    if (use == harness::Use::Aggregate) {
      e.accumulate = &accumulate;  // a page at a time: the harness counts each page's tuples
    } else {
      e.page = &page;
      e.pages = &pages;
      e.batch_tuples = r_->batch();
    }
    e.selection = r_->program().opt.selection == Selection::NoBranch ? harness::Selection::NoBranch
                                                                     : harness::Selection::Branch;
    return e;
  }

 private:
  void select(bool nb) {
    if (!runners_[nb]) {
      if (!plan_) return;  // prepared for one selection only (--selection branch or nobranch)
      Options o = opt_;
      o.selection = nb ? Selection::NoBranch : Selection::Branch;
      const uint64_t t0 = harness::now_ns();
      runners_[nb] = std::make_unique<Runner>(lower(*plan_, o));
      times.lazy_ns += harness::now_ns() - t0;
    }
    r_ = runners_[nb].get();
  }
  static Runner& of(qk_ctx* ctx) { return *static_cast<PreparedProgram*>(ctx->plan)->r_; }
  static int32_t qualify(const uint8_t* tuple, qk_ctx* ctx) { return of(ctx).qualify(tuple, ctx); }
  static int32_t project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) { return of(ctx).project(tuple, row, ctx); }
  static int64_t page(const uint8_t* pg, uint8_t* rows, qk_ctx* ctx) { return of(ctx).run_page(pg, rows, ctx); }
  static int64_t pages(const uint8_t* const* pgs, uint32_t n, uint8_t* rows, qk_ctx* ctx) {
    return of(ctx).run_pages(pgs, n, rows, ctx);
  }
  static int64_t accumulate(const uint8_t* pg, qk_accum* acc, qk_ctx* ctx) {
    return of(ctx).run_accumulate(pg, acc, ctx);
  }

  // The batch's registers are this plan's: the harness runs one Prepared on
  // one thread, one evaluation at a time, and every register a primitive
  // reads was written earlier in the same batch.
  Options opt_;
  std::unique_ptr<Runner> runners_[2];  // branch, nobranch
  Runner* r_ = nullptr;                 // the one that runs
  std::unique_ptr<harness::Plan> plan_;
};

class VectorBackend final : public harness::Backend {
 public:
  VectorBackend(const Options& opt, bool keep_plans) : opt_(opt), keep_plans_(keep_plans) {}

  bool reuses_plans() const override { return true; }
  // Every plan's kernel accumulates: its batches' rows go to the aggregate
  // primitives (run.cpp, prims.cpp) rather than to the harness.
  bool accumulates(const harness::Plan&) const override { return true; }

  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    (void)params;  // parameters are read from qk_ctx.params by the prologue, never inlined
    return std::make_unique<PreparedProgram>(plan, opt_, keep_plans_);
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)params;
    if (form != "vector") return false;
    Options o = opt_;
    o.selection = variant == harness::Selection::NoBranch ? Selection::NoBranch : Selection::Branch;
    lower(plan, o, &os);
    return true;
  }

 private:
  Options opt_;
  bool keep_plans_;  // --selection auto: the other selection may be lowered later
};

}  // namespace

std::unique_ptr<harness::Backend> make_backend(const Options& opt, bool auto_selection) {
  return std::make_unique<VectorBackend>(opt, auto_selection);
}

namespace {

// --vector-batch's tuples per batch, or the measured default.
uint32_t batch_of(const harness::PrepareOptions& popt) {
  return std::min(popt.vector_batch ? popt.vector_batch : kDefaultBatch, kMaxBatch);
}

}  // namespace

bool parse_mode(const std::string& mode, const harness::PrepareOptions& popt, Options* out) {
  Options o;
  if (mode == "inplace" || mode.empty()) o.attrs = Attrs::InPlace;
  else if (mode == "gather") o.attrs = Attrs::Gather;
  else return false;
  // --selection: auto starts with branch, as every page kernel does.
  o.selection = popt.selection == harness::Selection::NoBranch ? Selection::NoBranch : Selection::Branch;
  o.batch = batch_of(popt);
  *out = o;
  return true;
}

void register_backend() {
  harness::BackendSpec spec{
      "vector",
      // in place first: measured the faster (vector/README.md); selection is --selection's
      {{"inplace"}, {"gather"}},
      {{"vector", true}},  // its program differs by selection
      [](const std::string& mode, const harness::PrepareOptions& popt) -> std::unique_ptr<harness::Backend> {
        Options o;
        if (!parse_mode(mode, popt, &o)) return nullptr;
        return make_backend(o, popt.selection == harness::Selection::Auto);
      },
      {"--vector-batch"}};
  spec.settings = [](const harness::PrepareOptions& popt) { return "batch " + std::to_string(batch_of(popt)); };
  harness::register_backend(std::move(spec));
}

}  // namespace quelkit::vector
