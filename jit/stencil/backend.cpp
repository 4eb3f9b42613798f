// The "stencil" back end (stencil_backend.h): prepare = build (the walk
// picking stencils) + stitch (copy and patch into the arena), timed apart as
// irgen and codegen; the prepared plan holds the C-ABI entries and its arena
// pages, returned when the plan cache evicts it.
#include "jit/stencil/stencil_backend.h"

#include <ostream>
#include <vector>

#include "engine/measure.h"
#include "jit/stencil/arena.h"
#include "jit/prepared.h"
#include "jit/stencil/stitch.h"
#include "runtime/accumulate_inline.h"
#include "storage/page.h"

namespace quelkit::jit::stencil {

namespace {

using harness::now_ns;

class StencilPlan final : public CompiledPlan {
 public:
  explicit StencilPlan(const harness::PrepareOptions&) : arena_(Arena::get()) {}
  ~StencilPlan() override {
    for (auto& s : spans_) arena_.release(s);
  }

  // Use::Aggregate (a fused plan's, StencilBackend::accumulates): the
  // stitched page kernel in the selection asked for, its rows of the page
  // written into this plan's buffer and accumulated there, as they come.
  harness::Entries entries(harness::Use use, harness::Selection s) override {
    if (use != harness::Use::Aggregate) return CompiledPlan::entries(use, s);
    harness::Entries e = CompiledPlan::entries(harness::Use::Page, s);
    if (!e.page) return e;  // no kernel: the harness accumulates the tuple functions' rows
    kernel_page_ = e.page;
    e.page = nullptr;
    e.state = this;
    e.accumulate = &accumulate;
    return e;
  }

  // nobranch: the kernel's selection variant (engine/selection.h).
  void compile(const harness::Plan& plan, Functions which, bool nobranch) override {
    if (!which.qual && !which.kernel) qual_ = always;
    if (!which.project && !which.kernel) project_ = nothing;
    if (!which.qual && !which.project && !which.kernel) return;
    uint64_t t0 = now_ns();
    Program p = build(plan, which, kernel_base(base_name(plan), nobranch && which.kernel), nobranch);
    uint64_t t1 = now_ns();
    Stitched s = stitch(p);
    row_len_ = p.row_len;
    times.irgen_ns += t1 - t0;
    times.codegen_ns += now_ns() - t1;
    spans_.push_back(s.span);
    if (s.entry[size_t(FnKind::Qual)]) qual_ = reinterpret_cast<QualFn>(s.entry[size_t(FnKind::Qual)]);
    if (s.entry[size_t(FnKind::Project)]) project_ = reinterpret_cast<ProjectFn>(s.entry[size_t(FnKind::Project)]);
    if (s.entry[size_t(FnKind::Kernel)]) add_kernel(reinterpret_cast<KernelFn>(s.entry[size_t(FnKind::Kernel)]), nobranch);
  }

  // Code written since the arena was last sealed is made executable before
  // its entries are handed out (Arena::ready: a load and a compare when
  // nothing is pending); code written later lands on other pages.
  void ready() override { arena_.ready(); }

 private:
  // The page's rows (row_len_ apart, as the kernel writes them) added to acc
  // in line order, with the runtime's own code, so values and errors are
  // every back end's: a simple aggregate's column a page at a time
  // (rt::agg_add_rows: its function and type picked once a page), a grouped
  // block's rows probed into their groups, then each aggregate's column
  // added (rt::agg_add_grouped_rows). An evaluation error is the kernel's
  // -1, before anything of the page counts.
  static int64_t accumulate(const uint8_t* pg, qk_accum* acc, qk_ctx* ctx) {
    auto* self = static_cast<StencilPlan*>(ctx->plan);
    const size_t need = size_t(harness::page_nlines(pg)) * self->row_len_ + 1;
    if (self->rows_.size() < need) self->rows_.resize(need);
    uint8_t* rows = self->rows_.data();
    const int64_t n = self->kernel_page_(pg, rows, ctx);
    if (n <= 0) return n;
    if (acc->nby == 0) {
      for (uint32_t i = 0; i < acc->naggs; ++i) rt::agg_add_rows(&acc->aggs[i], rows, uint32_t(n), self->row_len_);
    } else {
      if (self->groups_.size() < size_t(n)) self->groups_.resize(size_t(n));
      rt::agg_add_grouped_rows(acc, rows, uint32_t(n), self->row_len_, self->groups_.data());
    }
    return n;
  }

  Arena& arena_;
  std::vector<Arena::Span> spans_;
  harness::PageFn kernel_page_ = nullptr;  // the kernel accumulate runs
  uint32_t row_len_ = 1;                  // the kernel's row stride (stitch.h's Program::row_len)
  std::vector<uint8_t> rows_;             // one page's rows
  std::vector<qk_agg*> groups_;           // their groups' accumulators (a grouped block's)
};

class StencilBackend final : public NativeBackend<StencilPlan> {
 public:
  StencilBackend(Mode mode, const harness::PrepareOptions& opt) : NativeBackend(mode, opt) {
    Arena::get();  // reserve the arena now, not inside the first statement's prepare time
  }

  // A fused plan's page kernel accumulates (StencilPlan::entries); the
  // per-tuple modes leave their rows to the harness.
  bool accumulates(const harness::Plan& plan) const override { return functions_for(mode_, plan).kernel; }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)params;
    if (form != "stencil") return false;
    Functions which = functions_for(mode_, plan);
    if (!which.qual && !which.project && !which.kernel) {
      os << "stencil:" << mode_name(mode_) << " " << base_name(plan) << ": no code (nothing to qualify or project)\n";
      return true;
    }
    // The kernel in the variant asked for.
    const bool nobranch = which.kernel && variant == harness::Selection::NoBranch;
    Program p = build(plan, which, kernel_base(base_name(plan), nobranch), nobranch);
    Stitched s = stitch(p);
    os << "; stencil:" << mode_name(mode_) << " " << base_name(plan) << "\n";
    stencil::dump(p, s, os);
    Arena::get().release(s.span);
    return true;
  }
};

}  // namespace

size_t live_pages() { return Arena::get().live_pages(); }

std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt) {
  return std::make_unique<StencilBackend>(mode, opt);
}

void register_backend() { harness::register_backend(backend_spec("stencil", {"stencil"}, make_backend)); }

}  // namespace quelkit::jit::stencil
