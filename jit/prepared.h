// The prepared plan the native-code back ends (llvm, gccjit, stencil) hand the
// harness: pointers into generated code of the calling convention in
// jit/codegen.h, and their one prepare(). Fused plans generate their per-tuple
// functions on first use (replace/delete drive plans tuple by tuple to collect
// tids), and the kernel's other selection variant when the scan first asks for
// it (engine/selection.h), timing that generation into `times.lazy_ns`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "engine/backend.h"
#include "engine/measure.h"
#include "jit/codegen.h"

namespace quelkit::jit {

class CompiledPlan : public harness::Prepared {
 public:
  // Whether compile() generates Functions::accumulate (NativeBackend::accumulates).
  static constexpr bool kAccumulates = false;
  harness::Entries entries(harness::Use use, harness::Selection s) override {
    harness::Entries e;
    if (use == harness::Use::Aggregate) {
      // Generated when an aggregate's scan first asks for it in a selection
      // (prepare made the page kernel); Auto: branch.
      const bool nb = s == harness::Selection::NoBranch;
      if (!accumulates_[nb]) later([&] {
        Functions f;
        f.accumulate = true;
        compile(kept(), f, nb);
      });
      e.accumulate = accumulates_[nb];
      e.selection = nb ? harness::Selection::NoBranch : harness::Selection::Branch;
    } else if (use == harness::Use::Tuple) {
      if (!qual_ || !project_) later([&] { compile(kept(), tuple_functions(kept()), false); });
      e.qualify = qual_;
      e.project = project_;
    } else if (kernel_) {
      const bool nb = s == harness::Selection::NoBranch;
      if (s != harness::Selection::Auto && s != selection_) {
        if (!kernels_[nb]) later([&] { compile_kernel(nb); });
        selection_ = s;
        kernel_ = kernels_[nb];
      }
      e.page = kernel_;
      e.selection = selection_;
    }
    ready();
    return e;
  }

  // Prepares `plan` as `mode` asks (its kernel in the variant --selection
  // asks for), keeping the plan where code may be generated later.
  void prepare(Mode mode, const harness::Plan& plan, const harness::PrepareOptions& opt) {
    Functions which = functions_for(mode, plan);
    compile(plan, which, which.kernel && opt.selection == harness::Selection::NoBranch);
    if (which.kernel) later_ = std::make_unique<harness::Plan>(harness::clone_plan(plan));
  }

 protected:
  // Generates `which` of plan (the kernel in selection variant `nobranch`),
  // setting qual_ and project_ and calling add_kernel for a kernel.
  virtual void compile(const harness::Plan& plan, Functions which, bool nobranch) = 0;
  // Makes generated code runnable before its entries are handed out (the
  // stencils' arena seals what was written).
  virtual void ready() {}
  // A generated kernel of variant `nobranch`; the first one is the one that runs.
  void add_kernel(KernelFn fn, bool nobranch) {
    kernels_[nobranch] = fn;
    if (!kernel_) {
      kernel_ = fn;
      selection_ = nobranch ? harness::Selection::NoBranch : harness::Selection::Branch;
    }
  }

  // A plan without a qualification qualifies every tuple without generated code.
  static int32_t always(const uint8_t*, qk_ctx*) { return 1; }
  // A plan without targets (delete) projects nothing.
  static int32_t nothing(const uint8_t*, uint8_t*, qk_ctx*) { return 0; }

  QualFn qual_ = nullptr;
  ProjectFn project_ = nullptr;
  KernelFn kernel_ = nullptr;  // the variant that runs: kernels_[selection_ == NoBranch]
  // The accumulating kernel of each selection (branch, nobranch), compiled
  // when first asked for: compile() sets them through add_accumulate.
  void add_accumulate(AccumulateFn fn, bool nobranch) { accumulates_[nobranch] = fn; }

 private:
  // Code generated after prepare: its wall time is this plan's lazy_ns.
  template <class F>
  void later(F&& f) {
    const uint64_t t0 = harness::now_ns();
    f();
    times.lazy_ns += harness::now_ns() - t0;
  }
  void compile_kernel(bool nobranch) {
    Functions k;
    k.kernel = true;
    compile(kept(), k, nobranch);
  }
  const harness::Plan& kept() const {
    if (!later_) {  // only fused plans defer code, and prepare keeps their plan
      std::fprintf(stderr, "quelkit: internal error: jit: code requested later without a plan kept for it\n");
      std::abort();
    }
    return *later_;
  }
  std::unique_ptr<harness::Plan> later_;
  KernelFn kernels_[2] = {};  // branch, nobranch
  AccumulateFn accumulates_[2] = {};
  harness::Selection selection_ = harness::Selection::Branch;
};

// A native-code back end: prepare makes a PlanT (a CompiledPlan) in `mode_`;
// dump is each one's own.
template <class PlanT>
class NativeBackend : public harness::Backend {
 public:
  NativeBackend(Mode mode, const harness::PrepareOptions& opt) : mode_(mode), opt_(opt) {}
  bool reuses_plans() const override { return true; }
  // A fused plan over a relation accumulates in generated code where the
  // back end's compile() makes Functions::accumulate (PlanT::kAccumulates).
  bool accumulates(const harness::Plan& plan) const override {
    return PlanT::kAccumulates && functions_for(mode_, plan).kernel;
  }
  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    (void)params;  // parameters are read through qk_ctx at run time: one plan serves every block
    auto p = std::make_unique<PlanT>(opt_);
    p->prepare(mode_, plan, opt_);
    return p;
  }

 protected:
  Mode mode_;
  harness::PrepareOptions opt_;
};

}  // namespace quelkit::jit
