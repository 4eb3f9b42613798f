// The process's LLJIT (jit.h): RuntimeDyld object linking (one
// SectionMemoryManager per object, freed with its tracker, and the
// JITEventListener interface GDB and perf registration use), a compile
// function that picks the TargetMachine of the module's level, and the IR
// transform that runs the level's new-pass-manager pipeline.
#include "jit/llvm/jit.h"

#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Object/SymbolSize.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "jit/codegen.h"

namespace quelkit::jit::llvmjit {

namespace {

uint64_t now_ns() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

constexpr const char* kLevelFlag = "quelkit.jit_opt";

// Compiles each module with the TargetMachine of its level.
class LevelCompiler final : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  LevelCompiler(Jit& jit, llvm::orc::IRSymbolMapper::ManglingOptions mo) : IRCompiler(std::move(mo)), jit_(jit) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    llvm::orc::SimpleCompiler compile(jit_.target_machine(Jit::level_of(m)));
    return compile(m);
  }

 private:
  Jit& jit_;
};

// perf's JIT symbol map: one "START SIZE name" line per generated function, in
// /tmp/perf-PID.map, which `perf report` reads by itself. Entries are never
// removed (perf has no way to), so a long session's map lists evicted plans too.
class PerfMapListener final : public llvm::JITEventListener {
 public:
  PerfMapListener() {
    std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    f_ = std::fopen(path.c_str(), "a");
  }
  ~PerfMapListener() override {
    if (f_) std::fclose(f_);
  }
  void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile& obj,
                          const llvm::RuntimeDyld::LoadedObjectInfo& info) override {
    if (!f_) return;
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
      std::fprintf(f_, "%" PRIx64 " %" PRIx64 " %s\n", uint64_t(*addr), uint64_t(size), name->str().c_str());
    }
    std::fflush(f_);
  }

 private:
  std::FILE* f_ = nullptr;
};

}  // namespace

llvm::Expected<std::unique_ptr<Jit>> Jit::Create() {
  std::unique_ptr<Jit> j(new Jit());
  if (llvm::Error e = j->init()) return std::move(e);
  return j;
}

Jit& Jit::get() {
  static Jit* jit = [] {
    auto j = Create();
    if (!j) {
      std::fprintf(stderr, "quelkit: llvm: cannot create the JIT: %s\n", llvm::toString(j.takeError()).c_str());
      std::abort();
    }
    return j->release();
  }();
  return *jit;
}

Jit::~Jit() = default;

llvm::Error Jit::init() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return jtmb.takeError();
  // Same answers everywhere: never fuse a multiply and an add.
  jtmb->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  jtmb_ = std::make_unique<llvm::orc::JITTargetMachineBuilder>(*jtmb);

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
        return std::move(tsm);
      });

  if (const char* p = std::getenv("QUELKIT_JIT_PERF"); p && *p && std::strcmp(p, "0") != 0)
    set_perf(std::strcmp(p, "jitdump") == 0 ? Perf::JitDump : Perf::Map);
  return llvm::Error::success();
}

void Jit::set_perf(Perf p) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto* layer = static_cast<llvm::orc::RTDyldObjectLinkingLayer*>(objects_);
  if (p == Perf::Map && !perf_map_) {
    perf_map_ = std::make_unique<PerfMapListener>();
    layer->registerJITEventListener(*perf_map_);
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
  }
  return *tm;
}

int Jit::level_of(const llvm::Module& m) {
  if (auto* c = llvm::mdconst::extract_or_null<llvm::ConstantInt>(m.getModuleFlag(kLevelFlag)))
    return int(c->getZExtValue());
  return 1;
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
  if (level <= 0) return;  // level 0: no IR passes at all
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&target_machine(level));
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

llvm::Expected<Jit::Loaded> Jit::load(NewModule nm, const std::vector<std::string>& symbols, CompileTimes* times) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CompileTimes t;
  current_ = &t;
  Loaded out;
  out.tracker = lljit_->getMainJITDylib().createResourceTracker();
  uint64_t t0 = now_ns();
  llvm::Error err =
      lljit_->addIRModule(out.tracker, llvm::orc::ThreadSafeModule(std::move(nm.mod), std::move(nm.ctx)));
  for (size_t i = 0; !err && i < symbols.size(); ++i) {
    auto addr = lljit_->lookup(symbols[i]);  // the first lookup optimises, compiles and links the module
    if (!addr) err = addr.takeError();
    else out.addresses.push_back(addr->toPtr<void*>());
  }
  uint64_t total = now_ns() - t0;
  current_ = nullptr;
  if (err) {
    llvm::consumeError(out.tracker->remove());
    return std::move(err);
  }
  t.codegen_ns = total > t.opt_ns ? total - t.opt_ns : 0;
  if (times) *times = t;
  return out;
}

void Jit::unload(const llvm::orc::ResourceTrackerSP& tracker) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (llvm::Error e = tracker->remove())
    std::fprintf(stderr, "quelkit: llvm: freeing a plan's code failed: %s\n", llvm::toString(std::move(e)).c_str());
  // Removed symbols leave their interned names behind until swept.
  if (++removed_since_sweep_ >= 256) {
    removed_since_sweep_ = 0;
    lljit_->getExecutionSession().getSymbolStringPool()->clearDeadEntries();
  }
}

}  // namespace quelkit::jit::llvmjit
