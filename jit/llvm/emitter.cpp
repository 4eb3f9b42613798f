// LlvmEmitter (emitter.h): the walk's primitives as LLVM IR.
#include "jit/llvm/emitter.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Support/ModRef.h>

#pragma GCC diagnostic error "-Wswitch"

namespace quelkit::jit::llvmjit {

namespace {

llvm::Value* V(Value v) { return static_cast<llvm::Value*>(v.h); }
Value W(llvm::Value* v) { return Value{v}; }
llvm::BasicBlock* B(Block b) { return static_cast<llvm::BasicBlock*>(b.h); }
llvm::AllocaInst* L(Local l) { return static_cast<llvm::AllocaInst*>(l.h); }

bool is_int(Ty t) { return t == Ty::Bool || t == Ty::I8 || t == Ty::I16 || t == Ty::I32 || t == Ty::I64; }
bool is_float(Ty t) { return t == Ty::F32 || t == Ty::F64; }

}  // namespace

LlvmEmitter::LlvmEmitter(llvm::Module& m, std::string suffix)
    : m_(m), ctx_(m.getContext()), suffix_(std::move(suffix)), b_(m.getContext()) {}

llvm::Type* LlvmEmitter::type(Ty t) {
  switch (t) {
    case Ty::Void: return b_.getVoidTy();
    case Ty::Bool: return b_.getInt1Ty();
    case Ty::I8: return b_.getInt8Ty();
    case Ty::I16: return b_.getInt16Ty();
    case Ty::I32: return b_.getInt32Ty();
    case Ty::I64: return b_.getInt64Ty();
    case Ty::F32: return b_.getFloatTy();
    case Ty::F64: return b_.getDoubleTy();
    case Ty::Ptr: return b_.getPtrTy();
  }
  return nullptr;
}

// ---- functions

void LlvmEmitter::begin_function(FnKind kind, const std::string& name) {
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionType* ft = nullptr;
  switch (kind) {
    case FnKind::Qual: ft = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr}, false); break;
    case FnKind::Project: ft = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, ptr}, false); break;
    case FnKind::Kernel:
    case FnKind::Accumulate: ft = llvm::FunctionType::get(b_.getInt64Ty(), {ptr, ptr, ptr}, false); break;
  }
  std::string sym = name + suffix_;
  fn_ = llvm::Function::Create(ft, llvm::GlobalValue::ExternalLinkage, sym, m_);
  symbols_.push_back(sym);
  kinds_.push_back(kind);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  // A frame pointer costs one register and lets gdb and perf walk the stack
  // through generated code (it has no unwind tables).
  fn_->addFnAttr("frame-pointer", "all");
  // Every pointer argument is distinct memory, never kept; the tuple or page is only read.
  for (unsigned i = 0; i < ft->getNumParams(); ++i) {
    fn_->addParamAttr(i, llvm::Attribute::NoAlias);
    fn_->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
  static const char* const names[4][3] = {
      {"tuple", "ctx", ""}, {"tuple", "row", "ctx"}, {"page", "rows", "ctx"}, {"page", "acc", "ctx"}};
  for (unsigned i = 0; i < ft->getNumParams(); ++i) fn_->getArg(i)->setName(names[size_t(kind)][i]);
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry_);
}

Value LlvmEmitter::param(int i) { return W(fn_->getArg(unsigned(i))); }

void LlvmEmitter::end_function() {
  fn_ = nullptr;
  entry_ = nullptr;
}

// ---- control flow

Block LlvmEmitter::block(const std::string& name) { return Block{llvm::BasicBlock::Create(ctx_, name, fn_)}; }

void LlvmEmitter::place(Block b) { b_.SetInsertPoint(B(b)); }

void LlvmEmitter::jump(Block to) { b_.CreateBr(B(to)); }

void LlvmEmitter::branch(Value cond, Block if_true, Block if_false, Hint h) {
  llvm::MDNode* weights = nullptr;
  if (h != Hint::None) {
    llvm::MDBuilder md(ctx_);
    weights = h == Hint::Likely ? md.createLikelyBranchWeights() : md.createUnlikelyBranchWeights();
  }
  b_.CreateCondBr(V(cond), B(if_true), B(if_false), weights);
}

void LlvmEmitter::ret(Value v) { b_.CreateRet(V(v)); }

// ---- locals: allocas at the top of the entry block (mem2reg's form)

Local LlvmEmitter::local(Ty t, const std::string& name) {
  llvm::IRBuilder<> top(entry_, entry_->getFirstInsertionPt());
  return Local{top.CreateAlloca(type(t), nullptr, name)};
}

void LlvmEmitter::assign(Local l, Value v) { b_.CreateStore(V(v), L(l)); }

Value LlvmEmitter::read(Local l) { return W(b_.CreateLoad(L(l)->getAllocatedType(), L(l), L(l)->getName())); }

Value LlvmEmitter::address(Local l) { return W(L(l)); }

Value LlvmEmitter::buffer(uint32_t bytes, const std::string& name) {
  llvm::IRBuilder<> top(entry_, entry_->getFirstInsertionPt());
  llvm::AllocaInst* a = top.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), bytes), nullptr, name);
  a->setAlignment(llvm::Align(16));
  return W(a);
}

// ---- constants

Value LlvmEmitter::int_const(Ty t, int64_t v) {
  if (t == Ty::Ptr) return W(llvm::ConstantPointerNull::get(b_.getPtrTy()));
  return W(llvm::ConstantInt::get(type(t), uint64_t(v), /*isSigned=*/true));
}

// APFloat from the host value keeps every bit (-0.0, the exact f4 rounding).
Value LlvmEmitter::f4_const(float v) { return W(llvm::ConstantFP::get(ctx_, llvm::APFloat(v))); }
Value LlvmEmitter::f8_const(double v) { return W(llvm::ConstantFP::get(ctx_, llvm::APFloat(v))); }

Value LlvmEmitter::bytes(const std::string& b, const std::string& name) {
  llvm::Constant* init = llvm::ConstantDataArray::getString(ctx_, b, /*AddNull=*/false);
  auto* gv = new llvm::GlobalVariable(m_, init->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                      init, name);
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  gv->setAlignment(llvm::Align(1));
  return W(gv);
}

// ---- memory: byte offsets, alignment 1 (tuples and pages are packed)

Value LlvmEmitter::at(Value ptr, Value off) { return W(b_.CreateInBoundsGEP(b_.getInt8Ty(), V(ptr), V(off))); }

Value LlvmEmitter::load(Ty t, Value ptr) { return W(b_.CreateAlignedLoad(type(t), V(ptr), llvm::Align(1))); }

void LlvmEmitter::store(Ty t, Value ptr, Value v) {
  (void)t;
  b_.CreateAlignedStore(V(v), V(ptr), llvm::Align(1));
}

void LlvmEmitter::copy(Value dst, Value src, uint32_t n) {
  b_.CreateMemCpy(V(dst), llvm::Align(1), V(src), llvm::Align(1), uint64_t(n));
}

void LlvmEmitter::fill(Value dst, uint8_t byte, uint32_t n) {
  b_.CreateMemSet(V(dst), b_.getInt8(byte), uint64_t(n), llvm::Align(1));
}

// ---- operations (IRBuilder sets no fast-math flags: IEEE, no contraction)

Value LlvmEmitter::arith(Arith op, Ty t, Value a, Value b) {
  llvm::Value *x = V(a), *y = V(b);
  if (is_float(t)) {
    switch (op) {
      case Arith::Add: return W(b_.CreateFAdd(x, y));
      case Arith::Sub: return W(b_.CreateFSub(x, y));
      case Arith::Mul: return W(b_.CreateFMul(x, y));
      case Arith::Div: return W(b_.CreateFDiv(x, y));
      case Arith::Rem: return W(b_.CreateFRem(x, y));
    }
  }
  switch (op) {
    case Arith::Add: return W(b_.CreateAdd(x, y));
    case Arith::Sub: return W(b_.CreateSub(x, y));
    case Arith::Mul: return W(b_.CreateMul(x, y));
    case Arith::Div: return W(b_.CreateSDiv(x, y));
    case Arith::Rem: return W(b_.CreateSRem(x, y));
  }
  return {};
}

Value LlvmEmitter::bits(Bits op, Ty, Value a, Value b) {
  switch (op) {
    case Bits::And: return W(b_.CreateAnd(V(a), V(b)));
    case Bits::Xor: return W(b_.CreateXor(V(a), V(b)));
    case Bits::Shr: return W(b_.CreateAShr(V(a), V(b)));
    case Bits::Mul: return W(b_.CreateMul(V(a), V(b)));  // no nsw: it wraps
  }
  return {};
}

Value LlvmEmitter::overflows(Arith op, Value a, Value b, Value* result) {
  llvm::Intrinsic::ID id = op == Arith::Add   ? llvm::Intrinsic::sadd_with_overflow
                           : op == Arith::Sub ? llvm::Intrinsic::ssub_with_overflow
                                              : llvm::Intrinsic::smul_with_overflow;
  llvm::Value* r = b_.CreateBinaryIntrinsic(id, V(a), V(b));
  *result = W(b_.CreateExtractValue(r, 0));
  return W(b_.CreateExtractValue(r, 1));
}

Value LlvmEmitter::negate(Ty t, Value a) {
  if (is_float(t)) return W(b_.CreateFNeg(V(a)));
  return W(b_.CreateNeg(V(a)));
}

Value LlvmEmitter::abs(Ty t, Value a) {
  if (is_float(t)) return W(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V(a)));
  return W(b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, V(a), b_.getFalse()));
}

// isfinite(x) == |x| < inf (ordered: NaN is not finite).
Value LlvmEmitter::is_finite(Ty t, Value a) {
  llvm::Value* m = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V(a));
  return W(b_.CreateFCmpOLT(m, llvm::ConstantFP::getInfinity(type(t))));
}

Value LlvmEmitter::compare(Pred p, Ty t, Value a, Value b) {
  using P = llvm::CmpInst::Predicate;
  P pred = P::BAD_ICMP_PREDICATE;
  if (is_float(t)) {
    switch (p) {  // as C: ordered, except != (true for NaN)
      case Pred::Eq: pred = P::FCMP_OEQ; break;
      case Pred::Ne: pred = P::FCMP_UNE; break;
      case Pred::Lt: pred = P::FCMP_OLT; break;
      case Pred::Le: pred = P::FCMP_OLE; break;
      case Pred::Gt: pred = P::FCMP_OGT; break;
      case Pred::Ge: pred = P::FCMP_OGE; break;
    }
    return W(b_.CreateFCmp(pred, V(a), V(b)));
  }
  switch (p) {
    case Pred::Eq: pred = P::ICMP_EQ; break;
    case Pred::Ne: pred = P::ICMP_NE; break;
    case Pred::Lt: pred = P::ICMP_SLT; break;
    case Pred::Le: pred = P::ICMP_SLE; break;
    case Pred::Gt: pred = P::ICMP_SGT; break;
    case Pred::Ge: pred = P::ICMP_SGE; break;
  }
  return W(b_.CreateICmp(pred, V(a), V(b)));
}

Value LlvmEmitter::convert(Ty from, Ty to, Value a, bool zero_extend) {
  llvm::Value* x = V(a);
  llvm::Type* dt = type(to);
  if (from == to) return a;
  if (is_int(from) && is_int(to)) {
    unsigned fw = x->getType()->getIntegerBitWidth(), tw = dt->getIntegerBitWidth();
    if (tw > fw) return W(zero_extend ? b_.CreateZExt(x, dt) : b_.CreateSExt(x, dt));
    return W(b_.CreateTrunc(x, dt));
  }
  if (is_int(from) && is_float(to)) return W(b_.CreateSIToFP(x, dt));  // round to nearest
  if (from == Ty::F32 && to == Ty::F64) return W(b_.CreateFPExt(x, dt));
  if (from == Ty::F64 && to == Ty::F32) return W(b_.CreateFPTrunc(x, dt));  // round to nearest
  return {};
}

// llvm.prefetch(ptr, read, locality, data cache).
void LlvmEmitter::prefetch(Value ptr, int locality) {
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                     {V(ptr), b_.getInt32(0), b_.getInt32(locality), b_.getInt32(1)});
}

// ---- helpers: declared once per module, with what they may touch

llvm::FunctionCallee LlvmEmitter::helper(Helper h) {
  llvm::FunctionCallee& c = helpers_[size_t(h)];
  if (c) return c;
  const HelperInfo& info = helper_info(h);
  std::vector<llvm::Type*> args;
  for (int i = 0; i < info.nargs; ++i) args.push_back(type(info.args[i]));
  auto* ft = llvm::FunctionType::get(type(info.result), args, false);
  c = m_.getOrInsertFunction(info.name, ft);
  auto* f = llvm::cast<llvm::Function>(c.getCallee());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr(llvm::Attribute::WillReturn);
  f->addFnAttr(llvm::Attribute::NoSync);
  for (int i = 0; i < info.nargs; ++i)
    if (info.args[i] == Ty::Ptr) {
      f->addParamAttr(unsigned(i), llvm::Attribute::NoCapture);
      if (info.effect == Effect::Reads) f->addParamAttr(unsigned(i), llvm::Attribute::ReadOnly);
    }
  switch (info.effect) {
    case Effect::Reads: f->setMemoryEffects(llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::Ref)); break;
    case Effect::Writes: f->setMemoryEffects(llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::ModRef)); break;
    case Effect::Raise:
      f->setMemoryEffects(llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::ModRef));
      f->addFnAttr(llvm::Attribute::Cold);
      break;
  }
  return c;
}

Value LlvmEmitter::call(Helper h, std::initializer_list<Value> args) {
  std::vector<llvm::Value*> a;
  for (Value v : args) a.push_back(V(v));
  llvm::CallInst* c = b_.CreateCall(helper(h), a);
  if (helper_info(h).result == Ty::Void) return {};
  return W(c);
}

}  // namespace quelkit::jit::llvmjit
