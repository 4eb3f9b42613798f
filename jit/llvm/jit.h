// The process's one ORC LLJIT, shaped like LLVM's KaleidoscopeJIT: modules go
// in under their own ResourceTracker (removing it frees the plan's code), the
// optimisation pipeline of the module's --jit-opt level runs as an IR
// transform with the new pass manager, and machine code is generated at the
// matching CodeGenOptLevel through a codegen pipeline built once per level.
// The runtime helpers are defined as absolute symbols, so generated code
// links without the executable exporting anything.
// Generated code is registered with GDB (JIT interface) always, and with perf
// when QUELKIT_JIT_PERF is set ("map": /tmp/perf-PID.map, "jitdump": LLVM's
// jitdump for `perf inject --jit`; see set_perf()).
//
// Thread safety: prepare may run on any thread, and on several at once (the
// adaptive back end compiles on a background thread while the statement's
// thread runs other plans). Each compile builds its IR in an LLVMContext of
// its own (new_module), touching nothing shared; everything shared — adding
// and looking up modules in the LLJIT, the codegen pipelines, the IR passes
// (optimize, also from --dump=llvm), the TargetMachines (their subtarget
// caches are not thread-safe), the perf and GDB listeners, unloading — runs
// under mu_, so compiles are serialised, not concurrent. ORC's
// ExecutionSession is itself thread-safe; mu_ is for what LLJIT leaves to us.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

namespace quelkit::jit::llvmjit {

// --jit-opt levels: 0 no IR passes, fastest code generation
// (CodeGenOptLevel::None: FastISel, the fast register allocator); 1 mem2reg,
// instcombine, simplifycfg, early-cse, then the reduced machine pipeline of
// CodeGenOptLevel::Less; 2 and 3 LLVM's standard O2 / O3 pipelines at
// CodeGenOptLevel::Default / Aggressive.
constexpr int kMaxOptLevel = 3;

enum class Perf : uint8_t { Off, Map, JitDump };

// Compile cost of one module, split as --stats reports it.
struct CompileTimes {
  uint64_t opt_ns = 0;      // the IR transform (pass pipeline)
  uint64_t codegen_ns = 0;  // instruction selection to callable: codegen, link, lookup
};

class Jit {
 public:
  // `native`: code for this machine's CPU (its name and features); else for the
  // triple's generic CPU, as the ahead-of-time build (--jit-cpu).
  static llvm::Expected<std::unique_ptr<Jit>> Create(bool native);
  // The process's JIT for a target (generic or native), created on first use
  // and never destroyed (prepared plans in static objects may outlive static
  // destructors). Aborts with LLVM's message if the target cannot be had.
  static Jit& get(bool native);
  // The JITs created so far.
  static std::vector<Jit*> created();
  // Perf registration for code compiled from now on; QUELKIT_JIT_PERF=map|jitdump
  // sets it at creation. Call before the first compile to catch everything.
  void set_perf(Perf p);

  // A new LLVMContext + Module set up for this JIT (triple, data layout, level).
  struct NewModule {
    std::unique_ptr<llvm::LLVMContext> ctx;
    std::unique_ptr<llvm::Module> mod;
  };
  NewModule new_module(const std::string& name, int level);

  // Adds the module under a new tracker, optimises and compiles it, and looks
  // up `symbols` (in order). On failure nothing stays loaded.
  struct Loaded {
    llvm::orc::ResourceTrackerSP tracker;
    std::vector<void*> addresses;
  };
  // apart: optimise and compile in a child process (jit/child.h) that a
  // cancel abandons, and link its object here: for a plan large enough to
  // compile for seconds (a fork costs a millisecond or two).
  llvm::Expected<Loaded> load(NewModule m, const std::vector<std::string>& symbols, CompileTimes* times,
                              bool apart = false);
  // Frees a loaded module's code and data.
  void unload(const llvm::orc::ResourceTrackerSP& tracker);
  // Builds level's TargetMachine and codegen pipeline (as the first module of
  // that level would), by compiling and unloading an empty function: what a
  // back end calls when it is made, for a level its statements' first
  // compiles should not pay the setting up of.
  void warm(int level);
  // Modules loaded and not yet unloaded (tests check evicted plans free theirs).
  size_t loaded();

  // The IR pipeline of a level, after the generic tuning (tune_cpu_); the
  // transform runs it, --dump=llvm too.
  void optimize(llvm::Module& m, int level);
  static int level_of(const llvm::Module& m);
  llvm::TargetMachine& target_machine(int level);

  // Symbol suffix unique in this process (".17").
  std::string unique_suffix();

  ~Jit();

 private:
  Jit() = default;
  llvm::Error init(bool native);
  // optimize() without the lock, for the child, which may take none.
  void optimize_with(llvm::Module& m, int level, llvm::TargetMachine& tm);
  llvm::Expected<Loaded> load_apart(NewModule m, const std::vector<std::string>& symbols, CompileTimes* times);
  // Looks up `symbols` in the module just added under out.tracker (err: the
  // add's), accounts the compile's times from t0; on failure removes it.
  llvm::Expected<Loaded> link(Loaded out, llvm::Error err, const std::vector<std::string>& symbols, CompileTimes& t,
                              uint64_t t0, CompileTimes* times);

  std::unique_ptr<llvm::orc::LLJIT> lljit_;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb_;
  std::string tune_cpu_;  // "tune-cpu" of every generated function ("" for native: the host's)
  std::unique_ptr<llvm::TargetMachine> tms_[kMaxOptLevel + 1];
  std::recursive_mutex mu_;  // one compile at a time (see above); LLJIT compiles on the calling thread
  CompileTimes* current_ = nullptr;
  llvm::JITEventListener* perf_listener_ = nullptr;
  std::unique_ptr<llvm::JITEventListener> perf_map_;
  llvm::orc::ObjectLayer* objects_ = nullptr;
  uint64_t serial_ = 0;
  uint64_t removed_since_sweep_ = 0;
  size_t loaded_ = 0;
};

}  // namespace quelkit::jit::llvmjit
