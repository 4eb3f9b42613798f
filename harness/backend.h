// The back-end interface (docs/adding-a-backend.md). A back end turns a Plan
// into a Prepared object; the harness owns scans, storage, sinks and the plan
// cache and drives a Prepared either tuple by tuple (qualify, then project the
// qualifying tuples) or, when the back end offers one, through a fused
// page-at-a-time kernel. The harness knows no back end by name: each registers
// a BackendSpec, and cli/ links them all.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/plan.h"
#include "harness/runtime/runtime.h"

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
  // a batch holds at most one page's live tuples.
  uint32_t vector_batch = 0;
};

// Compile cost split the way JITs report it (zero where it does not apply).
struct PrepareTimes {
  uint64_t irgen_ns = 0, opt_ns = 0, codegen_ns = 0;
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
  // A plan prepared as a fused kernel only may still have per-tuple functions
  // to generate before qualify/project run (replace/delete and plans with no
  // variable drive them tuple by tuple). The harness asks first and has them
  // made under its prepare timer, so that compile is prepare time, not run time.
  virtual bool tuple_functions_pending() const { return false; }
  virtual void make_tuple_functions() {}
  PrepareTimes times;
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
  // Prints a form this back end owns (--dump=postfix, threaded, llvm, ...).
  virtual bool dump(const Plan& plan, std::string_view form, const uint8_t* params, std::ostream& os) {
    (void)plan, (void)form, (void)params, (void)os;
    return false;
  }
};

struct BackendSpec {
  std::string name;                     // "interp"
  std::vector<std::string> modes;       // first is the default: {"switch", "goto"}
  std::vector<std::string> dump_forms;  // forms dump() understands
  std::function<std::unique_ptr<Backend>(const std::string& mode, const PrepareOptions&)> make;
};

void register_backend(BackendSpec spec);
const std::vector<BackendSpec>& registered_backends();
const BackendSpec* find_backend(std::string_view name);

}  // namespace quelkit::harness
