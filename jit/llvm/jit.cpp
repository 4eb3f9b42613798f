// The process's LLJIT (jit.h): RuntimeDyld object linking (one
// SectionMemoryManager per object, freed with its tracker, and the
// JITEventListener interface GDB and perf registration use), a compile
// function that picks the TargetMachine of the module's level, and the IR
// transform that runs the level's new-pass-manager pipeline.
#include "jit/llvm/jit.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Object/SymbolSize.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "jit/child.h"
#include "jit/perfmap.h"
#include "jit/codegen.h"
#include "engine/measure.h"

namespace quelkit::jit::llvmjit {

namespace {

using harness::now_ns;

constexpr const char* kLevelFlag = "quelkit.jit_opt";

// Compiles each module with the TargetMachine of its level, through one
// codegen pass pipeline per level that is built once and rerun for every
// module: the pipeline keeps no state from one module to the next (LLVM's own
// `llc -compile-twice` reruns a pipeline the same way to check exactly that),
// and building it is a sizeable part of compiling a plan's small module.
class LevelCompiler final : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  LevelCompiler(Jit& jit, llvm::orc::IRSymbolMapper::ManglingOptions mo) : IRCompiler(std::move(mo)), jit_(jit) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    const int level = std::clamp(Jit::level_of(m), 0, kMaxOptLevel);
    std::unique_ptr<Pipeline>& p = pipelines_[level];
    if (!p) {
      auto made = std::make_unique<Pipeline>();
      made->os = std::make_unique<llvm::raw_svector_ostream>(made->object);
      llvm::MCContext* mc = nullptr;
      if (jit_.target_machine(level).addPassesToEmitMC(made->pm, mc, *made->os))
        return llvm::make_error<llvm::StringError>("the target cannot emit machine code",
                                                   llvm::inconvertibleErrorCode());
      p = std::move(made);
    }
    std::unique_ptr<llvm::Module> check;
    if (self_check()) check = llvm::CloneModule(m);
    p->object.clear();
    p->pm.run(m);
    if (p->object.empty()) return llvm::make_error<llvm::StringError>("no object emitted", llvm::inconvertibleErrorCode());
    if (check) {
      llvm::orc::SimpleCompiler fresh(jit_.target_machine(level));
      auto obj = fresh(*check);
      if (!obj) return obj.takeError();
      if ((*obj)->getBuffer() != llvm::StringRef(p->object.data(), p->object.size())) {
        std::fprintf(stderr, "quelkit: llvm: the reused codegen pipeline emitted a different object\n");
        std::abort();
      }
    }
    auto buf = std::make_unique<llvm::SmallVectorMemoryBuffer>(
        std::move(p->object), m.getModuleIdentifier() + "-jitted-objectbuffer", /*RequiresNullTerminator=*/false);
    p->object.clear();  // moved from: empty and reusable, the stream still writes into it
    return buf;
  }

 private:
  struct Pipeline {
    llvm::legacy::PassManager pm;
    llvm::SmallVector<char, 0> object;
    std::unique_ptr<llvm::raw_svector_ostream> os;
  };
  static bool self_check() {
    static const bool on = std::getenv("QUELKIT_JIT_SELF_CHECK") != nullptr;
    return on;
  }
  Jit& jit_;
  std::unique_ptr<Pipeline> pipelines_[kMaxOptLevel + 1];
};

// perf's JIT symbol map: one "START SIZE name" line per generated function, in
// /tmp/perf-PID.map, through the kit's writer (jit/perfmap.h), which the
// gccjit back end shares and `quelkit profile` switches on. Always registered;
// does nothing until the writer is enabled.
class PerfMapListener final : public llvm::JITEventListener {
 public:
  void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile& obj,
                          const llvm::RuntimeDyld::LoadedObjectInfo& info) override {
    if (!harness::perfmap_enabled()) return;
    llvm::object::OwningBinary<llvm::object::ObjectFile> loaded = info.getObjectForDebug(obj);
    const llvm::object::ObjectFile* o = loaded.getBinary();
    if (!o) return;
    for (const auto& [sym, size] : llvm::object::computeSymbolSizes(*o)) {
      auto type = sym.getType();
      if (!type) {
        llvm::consumeError(type.takeError());
        continue;
      }
      if (*type != llvm::object::SymbolRef::ST_Function) continue;
      auto name = sym.getName();
      auto addr = sym.getAddress();
      if (!name || !addr) {
        if (!name) llvm::consumeError(name.takeError());
        if (!addr) llvm::consumeError(addr.takeError());
        continue;
      }
      harness::perfmap_register(reinterpret_cast<const void*>(uintptr_t(*addr)), size_t(size), *name);
    }
  }
};

}  // namespace

llvm::Expected<std::unique_ptr<Jit>> Jit::Create(bool native) {
  std::unique_ptr<Jit> j(new Jit());
  if (llvm::Error e = j->init(native)) return e;
  return j;
}

namespace {
std::mutex jits_mu;
Jit* jits[2] = {};  // [native]
}  // namespace

std::vector<Jit*> Jit::created() {
  std::lock_guard<std::mutex> lock(jits_mu);
  std::vector<Jit*> v;
  for (Jit* j : jits)
    if (j) v.push_back(j);
  return v;
}

Jit& Jit::get(bool native) {
  std::lock_guard<std::mutex> lock(jits_mu);
  Jit*& jit = jits[native ? 1 : 0];
  if (!jit) {
    auto j = Create(native);
    if (!j) {
      std::fprintf(stderr, "quelkit: llvm: cannot create the JIT: %s\n", llvm::toString(j.takeError()).c_str());
      std::abort();
    }
    jit = j->release();
  }
  return *jit;
}

Jit::~Jit() = default;

llvm::Error Jit::init(bool native) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Generic: the process's triple with no CPU name and no features, which for
  // x86-64 is what GCC's default -march=x86-64 gives the compiled-in evaluators.
  auto jtmb = native ? llvm::orc::JITTargetMachineBuilder::detectHost()
                     : llvm::Expected<llvm::orc::JITTargetMachineBuilder>(
                           llvm::orc::JITTargetMachineBuilder(llvm::Triple(llvm::sys::getProcessTriple())));
  if (!jtmb) return jtmb.takeError();
  // Same answers everywhere: never fuse a multiply and an add.
  jtmb->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  // Every loop at a 64-byte boundary (LLVM's x86 default is 16). A page
  // kernel's tuple loop is a few dozen bytes run in a few cycles a tuple, so
  // where it falls against the 32- and 64-byte fetch blocks decides its
  // speed, and with 16 that varied from one compile of the same kernel to the
  // next: the same kernel ran in one of two modes from process to process,
  // and a comparison of two kernels read which modes they had drawn. At 64
  // they read alike (docs/DESIGN.md, "Measuring" and "Measurements").
  jtmb->getOptions().LoopAlignment = 64;
  jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(*jtmb);
  // Generic code is tuned as GCC's -mtune=generic tunes the compiled-in
  // evaluators and as clang tunes by default: with no CPU and no "tune-cpu",
  // LLVM's x86 back end tunes for the i586, which among other things takes
  // unaligned 16-byte moves as slow, so (c)'s 20-byte pname copy became three
  // 8- and 4-byte moves where GCC's reference loop makes one 16-byte move and
  // a 4-byte one. The instruction set stays x86-64's.
  if (!native) tune_cpu_ = "generic";

  auto lljit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*jtmb)
          .setLinkProcessSymbolsByDefault(false)  // generated code sees only what we define
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .setObjectLinkingLayerCreator([this](llvm::orc::ExecutionSession& es, const llvm::Triple&)
                                            -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
            auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                es, []() { return std::make_unique<llvm::SectionMemoryManager>(); });
            layer->registerJITEventListener(*llvm::JITEventListener::createGDBRegistrationListener());
            perf_map_ = std::make_unique<PerfMapListener>();
            layer->registerJITEventListener(*perf_map_);
            objects_ = layer.get();
            return layer;
          })
          .setCompileFunctionCreator([this](llvm::orc::JITTargetMachineBuilder)
                                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
            return std::make_unique<LevelCompiler>(
                *this, llvm::orc::irManglingOptionsFromTargetOptions(target_machine(1).Options));
          })
          .create();
  if (!lljit) return lljit.takeError();
  lljit_ = std::move(*lljit);

  // The runtime helpers and the C library functions code generation may call,
  // by address: no -rdynamic, no dlsym.
  llvm::orc::SymbolMap syms;
  const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  for (int h = 0; h < kNumHelpers; ++h) {
    const HelperInfo& info = helper_info(Helper(h));
    if (!info.address) continue;  // a rule with characters: not callable, never called
    syms[lljit_->mangleAndIntern(info.name)] = {llvm::orc::ExecutorAddr::fromPtr(info.address), flags};
  }
  size_t nlib = 0;
  const LibSymbol* lib = lib_symbols(&nlib);
  for (size_t i = 0; i < nlib; ++i)
    syms[lljit_->mangleAndIntern(lib[i].name)] = {llvm::orc::ExecutorAddr::fromPtr(lib[i].address), flags};
  if (llvm::Error e = lljit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(syms)))) return e;

  lljit_->getIRTransformLayer().setTransform(
      [this](llvm::orc::ThreadSafeModule tsm,
             llvm::orc::MaterializationResponsibility&) -> llvm::Expected<llvm::orc::ThreadSafeModule> {
        uint64_t t0 = now_ns();
        tsm.withModuleDo([&](llvm::Module& m) { optimize(m, level_of(m)); });
        if (current_) current_->opt_ns += now_ns() - t0;
        return tsm;
      });

  if (const char* p = std::getenv("QUELKIT_JIT_PERF"); p && *p && std::strcmp(p, "0") != 0)
    set_perf(std::strcmp(p, "jitdump") == 0 ? Perf::JitDump : Perf::Map);
  return llvm::Error::success();
}

void Jit::set_perf(Perf p) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto* layer = static_cast<llvm::orc::RTDyldObjectLinkingLayer*>(objects_);
  if (p == Perf::Map) {
    harness::perfmap_enable(true);
  } else if (p == Perf::JitDump && !perf_listener_) {
    perf_listener_ = llvm::JITEventListener::createPerfJITEventListener();  // null if LLVM lacks it
    if (perf_listener_) layer->registerJITEventListener(*perf_listener_);
  }
}

llvm::TargetMachine& Jit::target_machine(int level) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (level < 0) level = 0;
  if (level > kMaxOptLevel) level = kMaxOptLevel;
  std::unique_ptr<llvm::TargetMachine>& tm = tms_[level];
  if (!tm) {
    static const llvm::CodeGenOptLevel kLevels[] = {llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
                                                    llvm::CodeGenOptLevel::Default,
                                                    llvm::CodeGenOptLevel::Aggressive};
    llvm::orc::JITTargetMachineBuilder b = *jtmb_;
    b.setCodeGenOptLevel(kLevels[level]);
    auto made = b.createTargetMachine();
    if (!made) {
      std::fprintf(stderr, "quelkit: llvm: no target machine: %s\n", llvm::toString(made.takeError()).c_str());
      std::abort();
    }
    tm = std::move(*made);
    // Level 1 keeps SelectionDAG: FastISel saved little of the compile and
    // made the kernels slower (docs/DESIGN.md, "Measurements").
  }
  return *tm;
}

int Jit::level_of(const llvm::Module& m) {
  if (auto* c = llvm::mdconst::extract_or_null<llvm::ConstantInt>(m.getModuleFlag(kLevelFlag)))
    return int(c->getZExtValue());
  return 1;
}

size_t Jit::loaded() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return loaded_;
}

std::string Jit::unique_suffix() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return "." + std::to_string(++serial_);
}

Jit::NewModule Jit::new_module(const std::string& name, int level) {
  NewModule nm;
  nm.ctx = std::make_unique<llvm::LLVMContext>();
  nm.mod = std::make_unique<llvm::Module>(name, *nm.ctx);
  nm.mod->setDataLayout(lljit_->getDataLayout());
  nm.mod->setTargetTriple(lljit_->getTargetTriple().str());
  nm.mod->addModuleFlag(llvm::Module::Warning, kLevelFlag, uint32_t(level));
  return nm;
}

void Jit::optimize(llvm::Module& m, int level) {
  // The passes read the level's TargetMachine, shared with a compile that may
  // run on another thread (--dump=llvm beside a background compile).
  std::lock_guard<std::recursive_mutex> lock(mu_);
  optimize_with(m, level, target_machine(level));
}

void Jit::optimize_with(llvm::Module& m, int level, llvm::TargetMachine& tm) {
  // The tuning first, at every level: the passes and code generation both
  // read it, and --dump=llvm's optimised form (which calls this directly)
  // then shows the module as it is compiled.
  if (!tune_cpu_.empty())
    for (llvm::Function& f : m)
      if (!f.isDeclaration() && !f.hasFnAttribute("tune-cpu")) f.addFnAttr("tune-cpu", tune_cpu_);
  if (level <= 0) return;  // level 0: no IR passes at all
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  if (level == 1) {
    // Light: locals to registers, then one round of the cheap cleanups.
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::PromotePass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    fpm.addPass(llvm::EarlyCSEPass());
    for (llvm::Function& f : m)
      if (!f.isDeclaration()) fpm.run(f, fam);
    return;
  }
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(level == 2 ? llvm::OptimizationLevel::O2 : llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

llvm::Expected<Jit::Loaded> Jit::load(NewModule nm, const std::vector<std::string>& symbols, CompileTimes* times,
                                      bool apart) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (apart) return load_apart(std::move(nm), symbols, times);
  CompileTimes t;
  current_ = &t;
  Loaded out;
  out.tracker = lljit_->getMainJITDylib().createResourceTracker();
  const uint64_t t0 = now_ns();
  // The first lookup optimises, compiles and links the module.
  llvm::Error err =
      lljit_->addIRModule(out.tracker, llvm::orc::ThreadSafeModule(std::move(nm.mod), std::move(nm.ctx)));
  auto loaded = link(std::move(out), std::move(err), symbols, t, t0, times);
  current_ = nullptr;
  return loaded;
}

llvm::Expected<Jit::Loaded> Jit::link(Loaded out, llvm::Error err, const std::vector<std::string>& symbols,
                                      CompileTimes& t, uint64_t t0, CompileTimes* times) {
  for (size_t i = 0; !err && i < symbols.size(); ++i) {
    auto addr = lljit_->lookup(symbols[i]);
    if (!addr) err = addr.takeError();
    else out.addresses.push_back(addr->toPtr<void*>());
  }
  if (err) {
    llvm::consumeError(out.tracker->remove());
    return err;
  }
  const uint64_t total = now_ns() - t0;
  t.codegen_ns = total > t.opt_ns ? total - t.opt_ns : 0;
  if (times) *times = t;
  ++loaded_;
  return out;
}

namespace {
bool write_all(int fd, const char* p, size_t n) {
  while (n) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}
}  // namespace

// The child optimises and compiles the module as the transform and the
// LevelCompiler would (a fresh codegen pipeline: the cached ones are the
// parent's small modules'), and writes its optimisation time and the
// object; the parent links the object under the tracker as any other. The
// child takes no lock: the TargetMachine is made before the fork, and the
// parent's mutex, held across it, would never be free in the child.
llvm::Expected<Jit::Loaded> Jit::load_apart(NewModule nm, const std::vector<std::string>& symbols,
                                            CompileTimes* times) {
  const int level = std::clamp(level_of(*nm.mod), 0, kMaxOptLevel);
  llvm::TargetMachine& tm = target_machine(level);
  const uint64_t t0 = now_ns();
  HeldSignals held;
  ChildOutcome child = run_in_child(held, [&](int fd) {
    const uint64_t o0 = now_ns();
    optimize_with(*nm.mod, level, tm);
    const uint64_t opt = now_ns() - o0;
    auto obj = llvm::orc::SimpleCompiler(tm)(*nm.mod);
    if (!obj) return 2;
    return write_all(fd, reinterpret_cast<const char*>(&opt), sizeof opt) &&
                   write_all(fd, (*obj)->getBufferStart(), (*obj)->getBufferSize())
               ? 0
               : 1;
  });
  if (!child.finished) held.end_abandoned(child.signal);
  if (!child.not_started.empty()) return load(std::move(nm), symbols, times, false);  // no child: compile here
  if (std::string why = child.failure(); !why.empty() || child.out.size() <= sizeof(uint64_t))
    return llvm::make_error<llvm::StringError>("the compile's child process stopped (" + (why.empty() ? "no object" : why) + ")",
                                               llvm::inconvertibleErrorCode());
  CompileTimes t;
  std::memcpy(&t.opt_ns, child.out.data(), sizeof t.opt_ns);
  Loaded out;
  out.tracker = lljit_->getMainJITDylib().createResourceTracker();
  llvm::Error err = lljit_->addObjectFile(
      out.tracker, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(child.out).drop_front(sizeof(uint64_t)),
                                                         nm.mod->getModuleIdentifier() + "-jitted-objectbuffer"));
  return link(std::move(out), std::move(err), symbols, t, t0, times);
}

void Jit::warm(int level) {
  NewModule nm = new_module("quelkit.warm" + unique_suffix(), level);
  const std::string name = nm.mod->getName().str() + ".fn";
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(*nm.ctx), false),
                                    llvm::Function::ExternalLinkage, name, *nm.mod);
  llvm::ReturnInst::Create(*nm.ctx, llvm::BasicBlock::Create(*nm.ctx, "entry", fn));
  auto loaded = load(std::move(nm), {name}, nullptr, false);
  if (!loaded) {  // nothing stays loaded; the first real compile reports what is wrong
    llvm::consumeError(loaded.takeError());
    return;
  }
  unload(loaded->tracker);
}

void Jit::unload(const llvm::orc::ResourceTrackerSP& tracker) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (llvm::Error e = tracker->remove())
    std::fprintf(stderr, "quelkit: llvm: freeing a plan's code failed: %s\n", llvm::toString(std::move(e)).c_str());
  --loaded_;
  // Removed symbols leave their interned names behind until swept.
  if (++removed_since_sweep_ >= 256) {
    removed_since_sweep_ = 0;
    lljit_->getExecutionSession().getSymbolStringPool()->clearDeadEntries();
  }
}

}  // namespace quelkit::jit::llvmjit
