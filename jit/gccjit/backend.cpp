// The "gccjit" back end (gccjit.h): prepare = record the plan's
// functions into a fresh libgccjit context through the shared walk (IR
// generation), compile it (GCC's passes, then assembler, linker and dlopen,
// timed apart) and keep the result and pointers to the functions. The
// context is released at once; the result is released when the prepared plan
// is destroyed — the harness's plan cache evicting it — which unloads the code.
#include "jit/gccjit/gccjit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

#include "jit/perfmap.h"
#include "jit/gccjit/emitter.h"
#include "jit/gccjit/jit.h"
#include "jit/prepared.h"
#include "engine/limits.h"
#include "engine/measure.h"

namespace quelkit::jit::gccjit {

namespace {

using harness::now_ns;

// The largest plan compiled (harness::plan_nodes): above the 10,000-term
// statements the tests compile (about 40,000 nodes).
constexpr size_t kMaxPlanNodes = 50000;

// Where debug locations point: the script, else the plan (hand-built plans).
std::string source_name(const harness::Plan& plan) { return plan.source.empty() ? base_name(plan) : plan.source; }

[[noreturn]] void fatal(const std::string& what) {
  std::fprintf(stderr, "quelkit: internal error: gccjit: %s\n", what.c_str());
  std::abort();
}

// Records `which` of `plan` into ctx; returns the emitter's function names and kinds.
void record(Context& ctx, const harness::Plan& plan, Functions which, const GenOptions& gen,
            std::vector<std::string>* symbols, std::vector<FnKind>* kinds) {
  GccjitEmitter em(ctx.get(), source_name(plan));
  generate(plan, which, kernel_base(base_name(plan), gen.nobranch), gen, em);
  if (const char* e = gcc_jit_context_get_first_error(ctx.get()))
    fatal("recording " + base_name(plan) + " failed: " + e);
  if (symbols) *symbols = em.symbols();
  if (kinds) *kinds = em.kinds();
}

class GccjitPlan final : public CompiledPlan {
 public:
  static constexpr bool kAccumulates = true;  // compile() makes Functions::accumulate
  explicit GccjitPlan(const harness::PrepareOptions& opt) : opt_(opt) {}

  // Generates and compiles `which` of `plan`, adding to times.
  // nobranch: the kernel's selection variant (GenOptions::nobranch).
  void compile(const harness::Plan& plan, Functions which, bool nobranch) override {
    // The accumulating kernel is asked for alone, after prepare: it leaves
    // the per-tuple functions as they are.
    if (!which.qual && !which.kernel && !which.accumulate) qual_ = always;
    if (!which.project && !which.kernel && !which.accumulate) project_ = nothing;
    if (!which.qual && !which.project && !which.kernel && !which.accumulate) return;
    // GCC's time on one function grows as the square of its blocks (an or of
    // 5,000 terms 4.7 s at -O1, 10,000 about 20 s, 70,000 would be hours):
    // a larger plan is refused before compiling, as a size limit.
    if (harness::plan_nodes(plan) > kMaxPlanNodes)
      harness::throw_too_large("the gccjit back end", "more than 50,000 IR nodes (GCC's compile time grows as their square)");
    const uint64_t t0 = now_ns();
    Context ctx(harness::jit_level(opt_, plan), opt_.jit_native_cpu);
    std::vector<std::string> symbols;
    std::vector<FnKind> kinds;
    record(ctx, plan, which, GenOptions{opt_.jit_checks, nobranch}, &symbols, &kinds);
    times.irgen_ns += now_ns() - t0;
    CompileTimes ct;
    std::string err;
    Result r = gccjit::compile(ctx, &ct, &err);
    if (!r) {
      // GCC's passes accept whatever record() built (a failure there is
      // ours, and fatal above); what fails here is the assembler, the linker
      // or the temporary directory libgccjit works in (seen: that directory
      // removed while it compiled). The machine's trouble, not the
      // statement's: an I/O error on the statement, and the session goes on.
      Error e;
      e.kind = ErrKind::IO;
      e.message = "gccjit could not compile the statement (" + base_name(plan) + "): " + err;
      throw QuelError(std::move(e));
    }
    times.opt_ns += ct.opt_ns;
    times.codegen_ns += ct.codegen_ns;
    for (size_t i = 0; i < kinds.size(); ++i) {
      void* a = r.code(symbols[i]);
      if (!a) fatal("no function " + symbols[i] + " in the compiled " + base_name(plan));
      // perf names it; the size is its symbol's (64 bytes if that is unknown).
      if (harness::perfmap_enabled()) {
        size_t size = function_size(a);
        harness::perfmap_register(a, size ? size : 64, symbols[i]);
      }
      switch (kinds[i]) {
        case FnKind::Qual: qual_ = reinterpret_cast<QualFn>(a); break;
        case FnKind::Project: project_ = reinterpret_cast<ProjectFn>(a); break;
        case FnKind::Kernel: add_kernel(reinterpret_cast<KernelFn>(a), nobranch); break;
        case FnKind::Accumulate: add_accumulate(reinterpret_cast<AccumulateFn>(a), nobranch); break;
      }
    }
    results_.push_back(std::move(r));
  }


 private:
  harness::PrepareOptions opt_;
  std::vector<Result> results_;  // released with the plan: the code is unloaded
};

class GccjitBackend final : public NativeBackend<GccjitPlan> {
 public:
  GccjitBackend(Mode mode, const harness::PrepareOptions& opt) : NativeBackend(mode, opt) {
    if (opt.jit_native_cpu) native_cpu_options();  // ask the driver now, not in the first prepare
    // Generated code binds the runtime helpers by name when it is loaded:
    // say so now rather than fail on the first compile.
    if (std::string h = unresolved_helper(); !h.empty())
      fatal("runtime helper " + h +
            " is not exported by this executable; link it with ENABLE_EXPORTS (-rdynamic), which every "
            "target linking quelkit_jit_gccjit gets from jit/gccjit/CMakeLists.txt");
    // As for LLVM, QUELKIT_JIT_PERF=map (or jitdump: the shared objects are
    // deleted once loaded, so perf can only name their code from the map)
    // writes /tmp/perf-PID.map.
    if (const char* v = std::getenv("QUELKIT_JIT_PERF"); v && *v && std::strcmp(v, "0") != 0)
      harness::perfmap_enable(true);
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)params;
    if (form != "gimple") return false;
    harness::PrepareOptions o = opt_;
    o.selection = variant;
    print_gimple(plan, mode_, o, os);
    return true;
  }
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

void print_gimple(const harness::Plan& plan, Mode mode, const harness::PrepareOptions& opt, std::ostream& os) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "quelkit-gimple-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    os << "// gccjit: cannot create a directory for the GIMPLE dump\n";
    return;
  }
  const fs::path dir = tmpl, initial = dir / "initial.gimple", optimized = dir / "optimized.gimple";
  {
    Context ctx(harness::jit_level(opt, plan), opt.jit_native_cpu);
    ctx.dump_gimple(optimized.string());
    // The kernel in the variant asked for (Backend::dump's).
    record(ctx, plan, functions_for(mode, plan), GenOptions{opt.jit_checks, opt.selection == harness::Selection::NoBranch},
           nullptr, nullptr);
    // libgccjit prints the initial GIMPLE to stderr: point stderr at a file
    // for the length of the compile (a dump is made on the main thread, with
    // nothing else running).
    std::fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    const int fd = open(initial.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved >= 0 && fd >= 0) dup2(fd, STDERR_FILENO);
    std::string err;
    Result r = compile(ctx, nullptr, &err);
    std::fflush(stderr);
    if (saved >= 0 && fd >= 0) dup2(saved, STDERR_FILENO);
    if (fd >= 0) close(fd);
    if (saved >= 0) close(saved);
    if (!r) os << "// gccjit: compiling " << base_name(plan) << " failed: " << err << "\n";
  }
  os << "// gccjit:" << mode_name(mode) << " " << base_name(plan) << ", GIMPLE before optimisation\n"
     << slurp(initial);
  os << "// gccjit:" << mode_name(mode) << " " << base_name(plan) << ", GIMPLE after --jit-opt " << harness::jit_level(opt, plan)
     << (plan.keyed_lookup && opt.jit_lookup_opt >= 0 ? " (a keyed lookup)" : "") << "\n"
     << slurp(optimized);
  fs::remove_all(dir, ec);
}

size_t loaded_results() { return Result::live(); }

std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt) {
  return std::make_unique<GccjitBackend>(mode, opt);
}

void register_backend() {
  harness::BackendSpec spec = backend_spec("gccjit", {"gimple"}, make_backend);
  spec.reads_options = harness::kJitOptions;
  spec.settings = harness::jit_settings;
  harness::register_backend(std::move(spec));
}

}  // namespace quelkit::jit::gccjit
