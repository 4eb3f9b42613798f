// The MC disassembler behind disasm.h: one target, one subtarget (generic
// x86-64, what the stencils are compiled for), AT&T printing.
#include "jit/stencil/disasm.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

namespace quelkit::jit::stencil {

struct Disassembler::Impl {
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> dis;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  std::unique_ptr<llvm::MCInstrAnalysis> mia;
};

std::unique_ptr<Disassembler> Disassembler::create(std::string* error) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  const std::string triple = "x86_64-unknown-linux-gnu";
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) {
    *error = "no x86-64 target in LLVM: " + err;
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  llvm::MCTargetOptions opts;
  impl->mri.reset(target->createMCRegInfo(triple));
  if (impl->mri) impl->mai.reset(target->createMCAsmInfo(*impl->mri, triple, opts));
  impl->sti.reset(target->createMCSubtargetInfo(triple, "x86-64", ""));
  impl->mii.reset(target->createMCInstrInfo());
  if (!impl->mri || !impl->mai || !impl->sti || !impl->mii) {
    *error = "LLVM's x86-64 MC layer is incomplete";
    return nullptr;
  }
  llvm::Triple t(triple);
  impl->ctx = std::make_unique<llvm::MCContext>(t, impl->mai.get(), impl->mri.get(), impl->sti.get());
  impl->dis.reset(target->createMCDisassembler(*impl->sti, *impl->ctx));
  impl->printer.reset(target->createMCInstPrinter(t, 0, *impl->mai, *impl->mii, *impl->mri));
  impl->mia.reset(target->createMCInstrAnalysis(impl->mii.get()));
  if (!impl->dis || !impl->printer) {
    *error = "LLVM has no x86-64 disassembler";
    return nullptr;
  }
  return std::unique_ptr<Disassembler>(new Disassembler(std::move(impl)));
}

Disassembler::Disassembler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Disassembler::~Disassembler() = default;

Disassembler::Insn Disassembler::decode(const uint8_t* bytes, size_t n, uint64_t address, bool text) const {
  Insn r;
  llvm::MCInst inst;
  uint64_t size = 0;
  auto status = impl_->dis->getInstruction(inst, size, llvm::ArrayRef<uint8_t>(bytes, n), address, llvm::nulls());
  if (status != llvm::MCDisassembler::Success || size == 0) return r;
  r.size = size;
  r.jmp_rel32 = size == 5 && bytes[0] == 0xe9;
  if (impl_->mia && impl_->mia->isBranch(inst)) {
    uint64_t to = 0;
    if (impl_->mia->evaluateBranch(inst, address, size, to)) {
      r.branch = true;
      r.target = to;
    }
  }
  if (text) {
    std::string s;
    llvm::raw_string_ostream os(s);
    impl_->printer->setPrintBranchImmAsAddress(true);
    impl_->printer->printInst(&inst, address + size, "", *impl_->sti, os);  // x86 branch immediates count from the next instruction
    os.flush();
    size_t b = s.find_first_not_of(" \t");
    r.text = b == std::string::npos ? s : s.substr(b);
    for (char& c : r.text)
      if (c == '\t') c = ' ';
  }
  return r;
}

}  // namespace quelkit::jit::stencil
