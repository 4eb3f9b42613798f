// The "llvm" back end (llvm.h): prepare = generate the plan's module
// through the shared walk (IR generation), add it to the process's LLJIT under
// a tracker of its own (optimisation, then code generation, timed apart), and
// keep pointers to the functions. Destroying the prepared plan — the harness's
// plan cache evicting it — removes the tracker and frees the code.
#include "jit/llvm/llvm.h"

#include <cstdio>
#include <cstdlib>
#include <ostream>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_os_ostream.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include "jit/llvm/emitter.h"
#include "jit/llvm/jit.h"
#include "jit/prepared.h"
#include "engine/limits.h"
#include "engine/measure.h"

namespace quelkit::jit::llvmjit {

namespace {

using harness::now_ns;


[[noreturn]] void fatal(const std::string& what) {
  std::fprintf(stderr, "quelkit: internal error: llvm: %s\n", what.c_str());
  std::abort();
}

class LlvmPlan final : public CompiledPlan {
 public:
  static constexpr bool kAccumulates = true;  // compile() makes Functions::accumulate
  // The largest plan compiled (harness::plan_nodes): the 10,000-term
  // statements the tests compile are about 40,000 nodes.
  static constexpr size_t kMaxPlanNodes = 50000;
  // Past this size a plan compiles in a child process a cancel abandons
  // (Jit::load's apart): below it a compile is short (docs/DESIGN.md); the
  // paper's and Wisconsin's plans are under 100 nodes.
  static constexpr size_t kApartPlanNodes = 1000;

  explicit LlvmPlan(const harness::PrepareOptions& opt) : opt_(opt) {}
  ~LlvmPlan() override {
    for (auto& t : trackers_) Jit::get(opt_.jit_native_cpu).unload(t);
  }

  // Generates, optimises and compiles `which` of `plan`, adding to times.
  // nobranch: the kernel's selection variant (GenOptions::nobranch).
  void compile(const harness::Plan& plan, Functions which, bool nobranch) override {
    // The accumulating kernel is asked for alone, after prepare: it leaves
    // the per-tuple functions as they are.
    if (!which.qual && !which.kernel && !which.accumulate) qual_ = always;
    if (!which.project && !which.kernel && !which.accumulate) project_ = nothing;
    if (!which.qual && !which.project && !which.kernel && !which.accumulate) return;
    // LLVM's optimiser, as GCC's, takes minutes past this size (the
    // 21,846-term or 288 s at -O1): a larger plan is refused before
    // compiling, as a size limit, above the 10,000-term statements the tests
    // compile; below it a large plan's compile can be abandoned (apart).
    const size_t nodes = harness::plan_nodes(plan);
    if (nodes > kMaxPlanNodes)
      harness::throw_too_large("the llvm back end", "more than 50,000 IR nodes (its compile takes minutes past them)");
    Jit& jit = Jit::get(opt_.jit_native_cpu);
    uint64_t t0 = now_ns();
    std::string suffix = jit.unique_suffix();
    Jit::NewModule nm = jit.new_module(base_name(plan) + suffix, harness::jit_level(opt_, plan));
    LlvmEmitter em(*nm.mod, suffix);
    generate(plan, which, kernel_base(base_name(plan), nobranch), GenOptions{opt_.jit_checks, nobranch}, em);
    if (opt_.jit_checks) {  // the differential tests run with checks: verify what we generate too
      std::string msg;
      llvm::raw_string_ostream os(msg);
      if (llvm::verifyModule(*nm.mod, &os)) fatal("generated module is broken: " + os.str());
    }
    times.irgen_ns += now_ns() - t0;
    CompileTimes ct;
    std::vector<std::string> symbols = em.symbols();
    std::vector<FnKind> kinds = em.kinds();
    auto loaded = jit.load(std::move(nm), symbols, &ct, nodes > kApartPlanNodes);
    if (!loaded) fatal("compiling " + base_name(plan) + ": " + llvm::toString(loaded.takeError()));
    times.opt_ns += ct.opt_ns;
    times.codegen_ns += ct.codegen_ns;
    trackers_.push_back(loaded->tracker);
    for (size_t i = 0; i < kinds.size(); ++i) {
      void* a = loaded->addresses[i];
      switch (kinds[i]) {
        case FnKind::Qual: qual_ = reinterpret_cast<QualFn>(a); break;
        case FnKind::Project: project_ = reinterpret_cast<ProjectFn>(a); break;
        case FnKind::Kernel: add_kernel(reinterpret_cast<KernelFn>(a), nobranch); break;
        case FnKind::Accumulate: add_accumulate(reinterpret_cast<AccumulateFn>(a), nobranch); break;
      }
    }
  }


 private:
  harness::PrepareOptions opt_;
  std::vector<llvm::orc::ResourceTrackerSP> trackers_;
};

class LlvmBackend final : public NativeBackend<LlvmPlan> {
 public:
  LlvmBackend(Mode mode, const harness::PrepareOptions& opt) : NativeBackend(mode, opt) {
    Jit& jit = Jit::get(opt.jit_native_cpu);  // create the JIT now, not inside the first statement's prepare time
    // A lookup level of its own is set up now too: its one compile in a run of
    // short statements would otherwise pay for building its codegen pipeline.
    // (--jit-opt's level is set up by its first compile, which the paper's
    // first-in-process prepare measures.)
    if (opt.jit_lookup_opt >= 0 && opt.jit_lookup_opt != opt.jit_opt) jit.warm(opt.jit_lookup_opt);
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)params;
    if (form != "llvm") return false;
    harness::PrepareOptions o = opt_;
    o.selection = variant;
    os << "; llvm:" << mode_name(mode_) << " " << base_name(plan) << ", before optimisation\n";
    print_module(plan, mode_, o, false, os);
    os << "; llvm:" << mode_name(mode_) << " " << base_name(plan) << ", after --jit-opt "
       << harness::jit_level(opt_, plan) << (plan.keyed_lookup && opt_.jit_lookup_opt >= 0 ? " (a keyed lookup)" : "")
       << "\n";
    print_module(plan, mode_, o, true, os);
    return true;
  }
};

}  // namespace

void print_module(const harness::Plan& plan, Mode mode, const harness::PrepareOptions& opt, bool optimized,
                  std::ostream& os) {
  Jit& jit = Jit::get(opt.jit_native_cpu);
  Jit::NewModule nm = jit.new_module(base_name(plan), harness::jit_level(opt, plan));
  LlvmEmitter em(*nm.mod, "");
  // The kernel in the variant asked for (Backend::dump's).
  const bool nobranch = opt.selection == harness::Selection::NoBranch;
  generate(plan, functions_for(mode, plan), kernel_base(base_name(plan), nobranch), GenOptions{opt.jit_checks, nobranch},
           em);
  if (optimized) jit.optimize(*nm.mod, harness::jit_level(opt, plan));
  llvm::raw_os_ostream out(os);
  nm.mod->print(out, nullptr);
}

size_t loaded_modules() {
  size_t n = 0;
  for (Jit* j : Jit::created()) n += j->loaded();
  return n;
}

std::string target_cpu(bool native_cpu) {
  std::string cpu = Jit::get(native_cpu).target_machine(1).getTargetCPU().str();
  return cpu.empty() ? "generic" : cpu;
}

std::string host_cpu() { return llvm::sys::getHostCPUName().str(); }

bool enable_perf(const std::string& how) {
  Perf p;
  if (how == "map") p = Perf::Map;
  else if (how == "jitdump") p = Perf::JitDump;
  else return false;
  for (bool native : {false, true}) Jit::get(native).set_perf(p);
  return true;
}

std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt) {
  return std::make_unique<LlvmBackend>(mode, opt);
}

void register_backend() {
  harness::BackendSpec spec = backend_spec("llvm", {"llvm"}, make_backend);
  spec.reads_options = harness::kJitOptions;
  spec.settings = harness::jit_settings;
  harness::register_backend(std::move(spec));
}

}  // namespace quelkit::jit::llvmjit
