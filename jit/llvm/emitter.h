// How the LLVM back end emits what the shared walk (jit/codegen.h) decides:
// one llvm::Function per generated function, one basic block per block the
// walk asks for (named after the IR node it belongs to), locals as allocas
// that mem2reg promotes, helpers declared with their memory effects. No
// fast-math or contraction flags are ever set, so results are bit-equal to
// the interpreter's C++.
#pragma once

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "jit/codegen.h"

namespace quelkit::jit::llvmjit {

class LlvmEmitter final : public Emitter {
 public:
  // Functions are named `name + suffix` (the JIT's suffix keeps symbols of
  // plans with the same statement name apart in the one process-wide JIT).
  LlvmEmitter(llvm::Module& m, std::string suffix);

  // Symbol names and kinds of the functions emitted, in order.
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::vector<FnKind>& kinds() const { return kinds_; }

  void begin_function(FnKind kind, const std::string& name) override;
  Value param(int i) override;
  void end_function() override;

  Block block(const std::string& name) override;
  void place(Block b) override;
  void jump(Block to) override;
  void branch(Value cond, Block if_true, Block if_false, Hint h) override;
  void ret(Value v) override;

  Local local(Ty t, const std::string& name) override;
  void assign(Local l, Value v) override;
  Value read(Local l) override;
  Value address(Local l) override;
  Value buffer(uint32_t bytes, const std::string& name) override;

  Value int_const(Ty t, int64_t v) override;
  Value f4_const(float v) override;
  Value f8_const(double v) override;
  Value bytes(const std::string& b, const std::string& name) override;

  Value at(Value ptr, Value byte_offset) override;
  Value load(Ty t, Value ptr) override;
  void store(Ty t, Value ptr, Value v) override;
  void copy(Value dst, Value src, uint32_t n) override;
  void fill(Value dst, uint8_t byte, uint32_t n) override;

  Value arith(Arith op, Ty t, Value a, Value b) override;
  Value bits(Bits op, Ty t, Value a, Value b) override;
  Value overflows(Arith op, Value a, Value b, Value* result) override;
  Value negate(Ty t, Value a) override;
  Value abs(Ty t, Value a) override;
  Value is_finite(Ty t, Value a) override;
  Value compare(Pred p, Ty t, Value a, Value b) override;
  Value convert(Ty from, Ty to, Value a, bool zero_extend) override;
  Value call(Helper h, std::initializer_list<Value> args) override;
  void prefetch(Value ptr, int locality) override;

 private:
  llvm::Type* type(Ty t);
  llvm::FunctionCallee helper(Helper h);

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  std::string suffix_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::FunctionCallee helpers_[kNumHelpers] = {};
  std::vector<std::string> symbols_;
  std::vector<FnKind> kinds_;
};

}  // namespace quelkit::jit::llvmjit
