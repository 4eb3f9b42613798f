// How the gccjit back end emits what the shared walk (jit/codegen.h) decides:
// one gcc_jit_function per generated function, one gcc_jit_block per block
// the walk asks for, locals as gcc_jit_lvalues, runtime helpers imported by
// name. Every IR node the walk visits leaves a comment naming it and sets the
// source location (the .quel script's line and column) of the statements
// that follow, so the GIMPLE dump and gdb read like the query.
//
// gccjit rvalues are expression trees evaluated where they are used; the
// walk's contract wants values computed once, where emitted. So loads, reads
// of locals, helper calls and the query's arithmetic are bound to a fresh
// temporary in the current block; comparisons, conversions and address
// arithmetic stay trees over those temporaries (pure, and used once).
#pragma once

#include <libgccjit.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jit/codegen.h"

namespace quelkit::jit::gccjit {

class GccjitEmitter final : public Emitter {
 public:
  // Functions are recorded into `ctx`; locations name `source` (the script).
  GccjitEmitter(gcc_jit_context* ctx, std::string source);

  // Names and kinds of the functions emitted, in order.
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

  void note(const ir::Node& n) override;

 private:
  gcc_jit_type* type(Ty t) const { return types_[size_t(t)]; }
  // Pointer to t at alignment 1: tuples and pages are packed.
  gcc_jit_type* unaligned_ptr(Ty t) const { return unaligned_ptrs_[size_t(t)]; }
  // v assigned to a new local of type t in the current block.
  gcc_jit_rvalue* bind(gcc_jit_rvalue* v, gcc_jit_type* t, const std::string& what);
  gcc_jit_function* helper(Helper h);
  gcc_jit_function* builtin(const char* name);
  gcc_jit_rvalue* call_builtin(const char* name, gcc_jit_rvalue** args, int n);
  gcc_jit_location* location(SrcPos p);
  std::string fresh(const std::string& what);

  gcc_jit_context* c_;
  std::string source_;
  gcc_jit_type* types_[9] = {};
  gcc_jit_type* unaligned_ptrs_[9] = {};
  gcc_jit_function* fn_ = nullptr;
  gcc_jit_block* cur_ = nullptr;
  gcc_jit_location* loc_ = nullptr;  // of the IR node being emitted
  std::vector<gcc_jit_param*> params_;
  std::map<gcc_jit_lvalue*, gcc_jit_type*> local_types_;
  gcc_jit_function* helpers_[kNumHelpers] = {};
  std::map<std::string, gcc_jit_function*> builtins_;
  std::map<std::pair<uint32_t, uint32_t>, gcc_jit_location*> locations_;
  uint64_t serial_ = 0;
  std::vector<std::string> symbols_;
  std::vector<FnKind> kinds_;
};

}  // namespace quelkit::jit::gccjit
