// The "stencil" back end (stencil_backend.h): prepare = build (the walk
// picking stencils) + stitch (copy and patch into the arena), timed apart as
// irgen and codegen; the prepared plan holds the C-ABI entries and its arena
// pages, returned when the plan cache evicts it.
#include "jit/stencil/stencil_backend.h"

#include <ostream>

#include "engine/measure.h"
#include "jit/stencil/arena.h"
#include "jit/prepared.h"
#include "jit/stencil/stitch.h"

namespace quelkit::jit::stencil {

namespace {

using harness::now_ns;

class StencilPlan final : public CompiledPlan {
 public:
  StencilPlan() : arena_(Arena::get()) {}
  ~StencilPlan() override {
    for (auto& s : spans_) arena_.release(s);
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
    times.irgen_ns += t1 - t0;
    times.codegen_ns += now_ns() - t1;
    spans_.push_back(s.span);
    if (s.entry[size_t(FnKind::Qual)]) qual_ = reinterpret_cast<QualFn>(s.entry[size_t(FnKind::Qual)]);
    if (s.entry[size_t(FnKind::Project)]) project_ = reinterpret_cast<ProjectFn>(s.entry[size_t(FnKind::Project)]);
    if (s.entry[size_t(FnKind::Kernel)]) add_kernel(reinterpret_cast<KernelFn>(s.entry[size_t(FnKind::Kernel)]), nobranch);
  }

  // Code prepared since the arena was last sealed is made executable before
  // it is entered (Arena::ready: a load and a compare when nothing is pending).
  int qualify(const uint8_t* tuple, qk_ctx* ctx) override {
    if (!qual_) compile_tuple_functions();
    arena_.ready();
    return qual_(tuple, ctx);
  }
  int project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) override {
    if (!project_) compile_tuple_functions();
    arena_.ready();
    return project_(tuple, row, ctx);
  }
  int64_t run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) override {
    arena_.ready();
    return kernel_(page, rows, ctx);
  }
  // Sealed once here: nothing is generated while the scan's steady loop runs.
  PageKernel page_kernel() override {
    arena_.ready();
    return kernel_;
  }

 private:
  Arena& arena_;
  std::vector<Arena::Span> spans_;
};

class StencilBackend final : public harness::Backend {
 public:
  StencilBackend(Mode mode, const harness::PrepareOptions& opt) : mode_(mode), opt_(opt) {
    Arena::get();  // reserve the arena now, not inside the first statement's prepare time
  }

  bool reuses_plans() const override { return true; }

  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    (void)params;  // parameters are read through qk_ctx at run time: one plan serves every block
    auto p = std::make_unique<StencilPlan>();
    Functions which = functions_for(mode_, plan);
    p->compile(plan, which, which.kernel && opt_.selection == harness::Selection::NoBranch);
    if (which.kernel) p->keep_for_later(plan);
    return p;
  }

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

 private:
  Mode mode_;
  harness::PrepareOptions opt_;
};

}  // namespace

size_t live_pages() { return Arena::get().live_pages(); }

std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt) {
  return std::make_unique<StencilBackend>(mode, opt);
}

void register_backend() { harness::register_backend(backend_spec("stencil", {"stencil"}, make_backend)); }

}  // namespace quelkit::jit::stencil
