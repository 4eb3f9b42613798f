// The prepared plan the JIT back ends (llvm, gccjit, stencil) hand the harness: pointers into generated code
// of the calling convention in jit/codegen.h. Fused plans may generate their
// per-tuple functions on first use (replace/delete drive plans tuple by tuple
// to collect tids), and the kernel's other selection variant when the scan
// switches to it (engine/selection.h); each back end says how in compile().
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "engine/backend.h"
#include "jit/codegen.h"

namespace quelkit::jit {

class CompiledPlan : public harness::Prepared {
 public:
  int qualify(const uint8_t* tuple, qk_ctx* ctx) override {
    if (!qual_) compile_tuple_functions();
    return qual_(tuple, ctx);
  }
  int project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) override {
    if (!project_) compile_tuple_functions();
    return project_(tuple, row, ctx);
  }
  bool has_kernel() const override { return kernel_ != nullptr; }
  bool tuple_functions_pending() const override { return !qual_ || !project_; }
  void make_tuple_functions() override {
    if (tuple_functions_pending()) compile_tuple_functions();
  }
  int64_t run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) override { return kernel_(page, rows, ctx); }
  PageKernel page_kernel() override { return kernel_; }

  // The kernel's two selection variants (engine/selection.h): the one the
  // plan was prepared in, and the other generated when the harness first
  // switches to it.
  harness::Selection kernel_selection() const override { return selection_; }
  bool kernel_selection_pending(harness::Selection s) const override {
    return kernel_ && !kernels_[s == harness::Selection::NoBranch];
  }
  void select_kernel(harness::Selection s) override {
    if (!kernel_ || s == harness::Selection::Auto) return;
    const bool nb = s == harness::Selection::NoBranch;
    if (!kernels_[nb]) compile_kernel(nb);
    selection_ = s;
    kernel_ = kernels_[nb];
  }

  // Fused plans keep what they need to generate their per-tuple functions and
  // the kernel's other selection variant later.
  void keep_for_later(const harness::Plan& plan) { later_ = std::make_unique<harness::Plan>(harness::clone_plan(plan)); }

 protected:
  // Generates `which` of plan (the kernel in selection variant `nobranch`),
  // setting qual_ and project_ and calling add_kernel for a kernel.
  virtual void compile(const harness::Plan& plan, Functions which, bool nobranch) = 0;
  // What a fused plan generates on first use, from the plan kept for later.
  void compile_tuple_functions() { compile(kept(), tuple_functions(kept()), false); }
  void compile_kernel(bool nobranch) {
    Functions k;
    k.kernel = true;
    compile(kept(), k, nobranch);
  }
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

 private:
  const harness::Plan& kept() const {
    if (!later_) {  // only fused plans defer code, and prepare keeps their plan
      std::fprintf(stderr, "quelkit: internal error: jit: code requested later without a plan kept for it\n");
      std::abort();
    }
    return *later_;
  }
  std::unique_ptr<harness::Plan> later_;
  KernelFn kernels_[2] = {};  // branch, nobranch
  harness::Selection selection_ = harness::Selection::Branch;
};

}  // namespace quelkit::jit
