// The prepared plan both JITs hand the harness: pointers into generated code
// of the calling convention in jit/codegen.h. Fused plans may generate their
// per-tuple functions on first use (replace/delete drive plans tuple by tuple
// to collect tids); each back end says how in compile_tuple_functions().
#pragma once

#include "harness/backend.h"
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

 protected:
  // Sets qual_ and project_ (never returns with either null).
  virtual void compile_tuple_functions() = 0;

  // A plan without a qualification qualifies every tuple without generated code.
  static int32_t always(const uint8_t*, qk_ctx*) { return 1; }
  // A plan without targets (delete) projects nothing.
  static int32_t nothing(const uint8_t*, uint8_t*, qk_ctx*) { return 0; }

  QualFn qual_ = nullptr;
  ProjectFn project_ = nullptr;
  KernelFn kernel_ = nullptr;
};

}  // namespace quelkit::jit
