// The "threaded" back end: prepare = lower the folded plan into a threaded
// program (no parameter values are read: one Prepared serves every
// parameter block), run = the program's dispatch method over a tuple or a
// page. One Prepared type per dispatch method, so the per-tuple path carries
// no mode test.
#include <ostream>

#include "threaded/threaded.h"

namespace quelkit::threaded {

namespace {

template <Dispatch D>
class PreparedProgram final : public harness::Prepared {
 public:
  explicit PreparedProgram(Program p) : p_(std::move(p)) {}

  // Both selections run the same program (Program::nobranch).
  harness::Entries entries(harness::Use use, harness::Selection s) override {
    if (use == harness::Use::Tuple) return harness::tuple_entries(this, &qualify, &project);
    harness::Entries e;
    e.state = this;
    if (s != harness::Selection::Auto) p_.nobranch = s == harness::Selection::NoBranch;
    if (use == harness::Use::Aggregate) e.accumulate = &accumulate;
    else e.page = &page;
    e.selection = p_.nobranch ? harness::Selection::NoBranch : harness::Selection::Branch;
    return e;
  }

 private:
  static Program& of(qk_ctx* ctx) { return static_cast<PreparedProgram*>(ctx->plan)->p_; }
  static int32_t qualify(const uint8_t* tuple, qk_ctx* ctx) { return run_qual(D, of(ctx), tuple, ctx); }
  static int32_t project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) {
    return run_proj(D, of(ctx), tuple, row, ctx);
  }
  static int64_t page(const uint8_t* pg, uint8_t* rows, qk_ctx* ctx) {
    return threaded::run_page(D, of(ctx), pg, rows, ctx);
  }
  static int64_t accumulate(const uint8_t* pg, qk_accum* acc, qk_ctx* ctx) {
    return threaded::run_accumulate(D, of(ctx), pg, acc, ctx);
  }

  // The registers are this plan's: the harness runs one Prepared on one
  // thread, one evaluation at a time, and every temporary is written before
  // it is read, so nothing of one execution leaks into the next.
  Program p_;
};

class ThreadedBackend final : public harness::Backend {
 public:
  explicit ThreadedBackend(Dispatch d) : d_(d) {}

  bool reuses_plans() const override { return true; }
  // Every plan's kernel accumulates: its projection's end adds the row to the
  // aggregates' block (run.cpp) rather than keeping it.
  bool accumulates(const harness::Plan&) const override { return true; }

  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    (void)params;  // parameters are read from qk_ctx.params by PARAM nodes, never inlined
    Program p = lower(plan, d_);
    if (d_ == Dispatch::Goto) return std::make_unique<PreparedProgram<Dispatch::Goto>>(std::move(p));
    return std::make_unique<PreparedProgram<Dispatch::Call>>(std::move(p));
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)params, (void)variant;  // both selections run this one program
    if (form != "threaded") return false;
    lower(plan, d_, &os);
    if (plan.accumulates)
      os << "accumulate: each qualifying tuple's row, at PROJ_END, added to the aggregates' block (qk_accum_row), "
            "not kept\n";
    return true;
  }

 private:
  Dispatch d_;
};

}  // namespace

std::unique_ptr<harness::Backend> make_backend(Dispatch d) { return std::make_unique<ThreadedBackend>(d); }

void register_backend() {
  harness::register_backend(harness::BackendSpec{
      "threaded",
      // goto first, so a bare "threaded" means it: measured faster than call on
      // every paper query (threaded/README.md has the figures)
      {{"goto"}, {"call"}},
      {{"threaded"}},
      [](const std::string& mode, const harness::PrepareOptions&) -> std::unique_ptr<harness::Backend> {
        if (mode == "goto" || mode.empty()) return make_backend(Dispatch::Goto);
        if (mode == "call") return make_backend(Dispatch::Call);
        return nullptr;
      }});
}

}  // namespace quelkit::threaded
