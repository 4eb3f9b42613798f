// GccjitEmitter (emitter.h): the walk's primitives as libgccjit calls.
#include "jit/gccjit/emitter.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#pragma GCC diagnostic error "-Wswitch"

namespace quelkit::jit::gccjit {

namespace {

static_assert(sizeof(long) == 8 && sizeof(int) == 4 && sizeof(short) == 2, "Ty maps onto C's types");

gcc_jit_rvalue* V(Value v) { return static_cast<gcc_jit_rvalue*>(v.h); }
Value W(gcc_jit_rvalue* v) { return Value{v}; }
gcc_jit_block* B(Block b) { return static_cast<gcc_jit_block*>(b.h); }
gcc_jit_lvalue* L(Local l) { return static_cast<gcc_jit_lvalue*>(l.h); }

bool is_float(Ty t) { return t == Ty::F32 || t == Ty::F64; }

[[noreturn]] void fatal(gcc_jit_context* c, const char* what) {
  const char* err = gcc_jit_context_get_first_error(c);
  std::fprintf(stderr, "quelkit: internal error: gccjit: %s: %s\n", what, err ? err : "(no message)");
  std::abort();
}

// Generated functions are C symbols: letters, digits and '_'.
std::string c_identifier(const std::string& s) {
  std::string out;
  for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return out;
}

}  // namespace

GccjitEmitter::GccjitEmitter(gcc_jit_context* ctx, std::string source) : c_(ctx), source_(std::move(source)) {
  auto get = [&](gcc_jit_types t) { return gcc_jit_context_get_type(c_, t); };
  types_[size_t(Ty::Void)] = get(GCC_JIT_TYPE_VOID);
  types_[size_t(Ty::Bool)] = get(GCC_JIT_TYPE_BOOL);
  types_[size_t(Ty::I8)] = get(GCC_JIT_TYPE_SIGNED_CHAR);
  types_[size_t(Ty::I16)] = get(GCC_JIT_TYPE_SHORT);
  types_[size_t(Ty::I32)] = get(GCC_JIT_TYPE_INT);
  types_[size_t(Ty::I64)] = get(GCC_JIT_TYPE_LONG);
  types_[size_t(Ty::F32)] = get(GCC_JIT_TYPE_FLOAT);
  types_[size_t(Ty::F64)] = get(GCC_JIT_TYPE_DOUBLE);
  types_[size_t(Ty::Ptr)] = gcc_jit_type_get_pointer(get(GCC_JIT_TYPE_UNSIGNED_CHAR));
  for (Ty t : {Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::F32, Ty::F64, Ty::Ptr})
    unaligned_ptrs_[size_t(t)] = gcc_jit_type_get_pointer(gcc_jit_type_get_aligned(type(t), 1));
}

std::string GccjitEmitter::fresh(const std::string& what) { return what + "." + std::to_string(++serial_); }

gcc_jit_rvalue* GccjitEmitter::bind(gcc_jit_rvalue* v, gcc_jit_type* t, const std::string& what) {
  gcc_jit_lvalue* tmp = gcc_jit_function_new_local(fn_, loc_, t, fresh(what).c_str());
  gcc_jit_block_add_assignment(cur_, loc_, tmp, v);
  return gcc_jit_lvalue_as_rvalue(tmp);
}

gcc_jit_location* GccjitEmitter::location(SrcPos p) {
  if (p.line == 0) return nullptr;
  gcc_jit_location*& l = locations_[{p.line, p.col}];
  if (!l) l = gcc_jit_context_new_location(c_, source_.c_str(), int(p.line), int(p.col));
  return l;
}

// ---- functions

void GccjitEmitter::begin_function(FnKind kind, const std::string& name) {
  static const char* const names[4][3] = {
      {"tuple", "ctx", ""}, {"tuple", "row", "ctx"}, {"page", "rows", "ctx"}, {"page", "acc", "ctx"}};
  const int n = kind == FnKind::Qual ? 2 : 3;
  params_.clear();
  for (int i = 0; i < n; ++i)
    params_.push_back(gcc_jit_context_new_param(c_, nullptr, type(Ty::Ptr), names[size_t(kind)][i]));
  std::string sym = c_identifier(name);
  fn_ = gcc_jit_context_new_function(c_, nullptr, GCC_JIT_FUNCTION_EXPORTED,
                                     type(kind == FnKind::Qual || kind == FnKind::Project ? Ty::I32 : Ty::I64),
                                     sym.c_str(), n, params_.data(), 0);
  if (!fn_) fatal(c_, "cannot create function");
  symbols_.push_back(sym);
  kinds_.push_back(kind);
  loc_ = nullptr;
  cur_ = gcc_jit_function_new_block(fn_, "entry");
}

Value GccjitEmitter::param(int i) { return W(gcc_jit_param_as_rvalue(params_.at(size_t(i)))); }

void GccjitEmitter::end_function() {
  fn_ = nullptr;
  cur_ = nullptr;
  loc_ = nullptr;
}

// ---- control flow

Block GccjitEmitter::block(const std::string& name) { return Block{gcc_jit_function_new_block(fn_, name.c_str())}; }

void GccjitEmitter::place(Block b) { cur_ = B(b); }

void GccjitEmitter::jump(Block to) { gcc_jit_block_end_with_jump(cur_, loc_, B(to)); }

// gccjit has no branch weights: a hint becomes __builtin_expect on the condition.
void GccjitEmitter::branch(Value cond, Block if_true, Block if_false, Hint h) {
  gcc_jit_rvalue* c = V(cond);
  if (h != Hint::None) {
    gcc_jit_type* lng = type(Ty::I64);
    gcc_jit_rvalue* args[2] = {gcc_jit_context_new_cast(c_, loc_, c, lng),
                               gcc_jit_context_new_rvalue_from_long(c_, lng, h == Hint::Likely ? 1 : 0)};
    gcc_jit_rvalue* e = gcc_jit_context_new_call(c_, loc_, builtin("__builtin_expect"), 2, args);
    c = gcc_jit_context_new_comparison(c_, loc_, GCC_JIT_COMPARISON_NE, e,
                                       gcc_jit_context_new_rvalue_from_long(c_, lng, 0));
  }
  gcc_jit_block_end_with_conditional(cur_, loc_, c, B(if_true), B(if_false));
}

void GccjitEmitter::ret(Value v) { gcc_jit_block_end_with_return(cur_, loc_, V(v)); }

// ---- locals

Local GccjitEmitter::local(Ty t, const std::string& name) {
  std::string n = fresh(name);
  gcc_jit_lvalue* l = gcc_jit_function_new_local(fn_, loc_, type(t), n.c_str());
  local_types_[l] = type(t);
  return Local{l};
}

void GccjitEmitter::assign(Local l, Value v) { gcc_jit_block_add_assignment(cur_, loc_, L(l), V(v)); }

// A snapshot: later assignments to the local do not change the value read.
Value GccjitEmitter::read(Local l) { return W(bind(gcc_jit_lvalue_as_rvalue(L(l)), local_types_.at(L(l)), "r")); }

Value GccjitEmitter::address(Local l) {
  return W(gcc_jit_context_new_cast(c_, loc_, gcc_jit_lvalue_get_address(L(l), loc_), type(Ty::Ptr)));
}

Value GccjitEmitter::buffer(uint32_t bytes, const std::string& name) {
  gcc_jit_type* arr = gcc_jit_context_new_array_type(c_, loc_, gcc_jit_context_get_type(c_, GCC_JIT_TYPE_UNSIGNED_CHAR),
                                                     int(bytes));
  gcc_jit_lvalue* l = gcc_jit_function_new_local(fn_, loc_, arr, fresh(name).c_str());
  gcc_jit_lvalue_set_alignment(l, 16);
  return W(gcc_jit_context_new_cast(c_, loc_, gcc_jit_lvalue_get_address(l, loc_), type(Ty::Ptr)));
}

// ---- constants

Value GccjitEmitter::int_const(Ty t, int64_t v) {
  switch (t) {
    case Ty::Ptr: return W(gcc_jit_context_null(c_, type(Ty::Ptr)));
    case Ty::Bool: return W(gcc_jit_context_new_rvalue_from_int(c_, type(Ty::Bool), v != 0));
    case Ty::I64: return W(gcc_jit_context_new_rvalue_from_long(c_, type(Ty::I64), long(v)));
    case Ty::I8: case Ty::I16: case Ty::I32:
      return W(gcc_jit_context_new_rvalue_from_int(c_, type(t), int(v)));
    case Ty::Void: case Ty::F32: case Ty::F64: break;
  }
  std::fprintf(stderr, "quelkit: internal error: gccjit: integer constant of a non-integer type\n");
  std::abort();
}

// A float widens to double exactly and GCC rounds the double back to the
// float type exactly: every bit survives (-0.0 included).
Value GccjitEmitter::f4_const(float v) {
  return W(gcc_jit_context_new_rvalue_from_double(c_, type(Ty::F32), double(v)));
}
Value GccjitEmitter::f8_const(double v) { return W(gcc_jit_context_new_rvalue_from_double(c_, type(Ty::F64), v)); }

// A read-only array of the bytes, internal to the generated object.
Value GccjitEmitter::bytes(const std::string& b, const std::string& name) {
  const size_t n = b.empty() ? 1 : b.size();
  gcc_jit_type* elem = gcc_jit_type_get_const(gcc_jit_context_get_type(c_, GCC_JIT_TYPE_UNSIGNED_CHAR));
  gcc_jit_type* arr = gcc_jit_context_new_array_type(c_, nullptr, elem, int(n));
  std::string sym = c_identifier(name) + "_" + std::to_string(++serial_);
  gcc_jit_lvalue* g = gcc_jit_context_new_global(c_, loc_, GCC_JIT_GLOBAL_INTERNAL, arr, sym.c_str());
  std::string init = b.empty() ? std::string(1, '\0') : b;
  gcc_jit_global_set_initializer(g, init.data(), init.size());
  return W(gcc_jit_context_new_cast(c_, loc_, gcc_jit_lvalue_get_address(g, loc_), type(Ty::Ptr)));
}

// ---- memory: byte offsets, alignment 1

Value GccjitEmitter::at(Value ptr, Value off) {
  return W(gcc_jit_lvalue_get_address(gcc_jit_context_new_array_access(c_, loc_, V(ptr), V(off)), loc_));
}

Value GccjitEmitter::load(Ty t, Value ptr) {
  gcc_jit_lvalue* m = gcc_jit_rvalue_dereference(gcc_jit_context_new_cast(c_, loc_, V(ptr), unaligned_ptr(t)), loc_);
  return W(bind(gcc_jit_lvalue_as_rvalue(m), type(t), "ld"));
}

void GccjitEmitter::store(Ty t, Value ptr, Value v) {
  gcc_jit_lvalue* m = gcc_jit_rvalue_dereference(gcc_jit_context_new_cast(c_, loc_, V(ptr), unaligned_ptr(t)), loc_);
  gcc_jit_block_add_assignment(cur_, loc_, m, V(v));
}

void GccjitEmitter::copy(Value dst, Value src, uint32_t n) {
  gcc_jit_rvalue* args[3] = {V(dst), V(src),
                             gcc_jit_context_new_rvalue_from_long(c_, type(Ty::I64), long(n))};
  gcc_jit_block_add_eval(cur_, loc_, call_builtin("__builtin_memcpy", args, 3));
}

void GccjitEmitter::fill(Value dst, uint8_t byte, uint32_t n) {
  gcc_jit_rvalue* args[3] = {V(dst), gcc_jit_context_new_rvalue_from_int(c_, type(Ty::I32), byte),
                             gcc_jit_context_new_rvalue_from_long(c_, type(Ty::I64), long(n))};
  gcc_jit_block_add_eval(cur_, loc_, call_builtin("__builtin_memset", args, 3));
}

// ---- operations: plain C operators on IEEE types; -ffp-contract=off and no
// fast-math on every context keep GCC from fusing or reassociating them.

Value GccjitEmitter::arith(Arith op, Ty t, Value a, Value b) {
  gcc_jit_binary_op o = GCC_JIT_BINARY_OP_PLUS;
  switch (op) {
    case Arith::Add: o = GCC_JIT_BINARY_OP_PLUS; break;
    case Arith::Sub: o = GCC_JIT_BINARY_OP_MINUS; break;
    case Arith::Mul: o = GCC_JIT_BINARY_OP_MULT; break;
    case Arith::Div: o = GCC_JIT_BINARY_OP_DIVIDE; break;  // integers: truncates toward zero, as C
    case Arith::Rem: o = GCC_JIT_BINARY_OP_MODULO; break;
  }
  gcc_jit_rvalue* r = gcc_jit_context_new_binary_op(c_, loc_, o, type(t), V(a), V(b));
  // Values of the query (checked, then used) are computed once, into a
  // temporary; address arithmetic (I64) stays inside the access it feeds.
  return W(t == Ty::I64 ? r : bind(r, type(t), "v"));
}

Value GccjitEmitter::bits(Bits op, Ty t, Value a, Value b) {
  if (op == Bits::Mul) {  // in the unsigned type of t's width: C's signed overflow is undefined
    gcc_jit_type* u = gcc_jit_context_get_int_type(c_, t == Ty::I64 ? 8 : 4, 0);
    gcc_jit_rvalue* p = gcc_jit_context_new_binary_op(c_, loc_, GCC_JIT_BINARY_OP_MULT, u,
                                                      gcc_jit_context_new_cast(c_, loc_, V(a), u),
                                                      gcc_jit_context_new_cast(c_, loc_, V(b), u));
    return W(bind(gcc_jit_context_new_cast(c_, loc_, p, type(t)), type(t), "v"));
  }
  const gcc_jit_binary_op o = op == Bits::And   ? GCC_JIT_BINARY_OP_BITWISE_AND
                              : op == Bits::Xor ? GCC_JIT_BINARY_OP_BITWISE_XOR
                                                : GCC_JIT_BINARY_OP_RSHIFT;  // of a signed type: arithmetic
  return W(bind(gcc_jit_context_new_binary_op(c_, loc_, o, type(t), V(a), V(b)), type(t), "v"));
}

// GCC's checked-arithmetic builtins: one add/sub/imul and the overflow flag.
Value GccjitEmitter::overflows(Arith op, Value a, Value b, Value* result) {
  const char* name = op == Arith::Add   ? "__builtin_sadd_overflow"
                     : op == Arith::Sub ? "__builtin_ssub_overflow"
                                        : "__builtin_smul_overflow";
  gcc_jit_lvalue* res = gcc_jit_function_new_local(fn_, loc_, type(Ty::I32), fresh("wrapped").c_str());
  gcc_jit_rvalue* args[3] = {V(a), V(b), gcc_jit_lvalue_get_address(res, loc_)};
  gcc_jit_rvalue* ov = bind(call_builtin(name, args, 3), type(Ty::Bool), "overflow");
  *result = W(gcc_jit_lvalue_as_rvalue(res));  // written once, by the call above
  return W(ov);
}

Value GccjitEmitter::negate(Ty t, Value a) {
  return W(bind(gcc_jit_context_new_unary_op(c_, loc_, GCC_JIT_UNARY_OP_MINUS, type(t), V(a)), type(t), "v"));
}

Value GccjitEmitter::abs(Ty t, Value a) {
  return W(bind(gcc_jit_context_new_unary_op(c_, loc_, GCC_JIT_UNARY_OP_ABS, type(t), V(a)), type(t), "v"));
}

// isfinite(x) == |x| < inf (NaN compares false).
Value GccjitEmitter::is_finite(Ty t, Value a) {
  gcc_jit_rvalue* inf = gcc_jit_context_new_rvalue_from_double(c_, type(t), std::numeric_limits<double>::infinity());
  gcc_jit_rvalue* m = gcc_jit_context_new_unary_op(c_, loc_, GCC_JIT_UNARY_OP_ABS, type(t), V(a));
  return W(gcc_jit_context_new_comparison(c_, loc_, GCC_JIT_COMPARISON_LT, m, inf));
}

Value GccjitEmitter::compare(Pred p, Ty t, Value a, Value b) {
  (void)t;
  gcc_jit_comparison op = GCC_JIT_COMPARISON_EQ;
  switch (p) {  // C's operators: signed integers; floats ordered except != (true for NaN)
    case Pred::Eq: op = GCC_JIT_COMPARISON_EQ; break;
    case Pred::Ne: op = GCC_JIT_COMPARISON_NE; break;
    case Pred::Lt: op = GCC_JIT_COMPARISON_LT; break;
    case Pred::Le: op = GCC_JIT_COMPARISON_LE; break;
    case Pred::Gt: op = GCC_JIT_COMPARISON_GT; break;
    case Pred::Ge: op = GCC_JIT_COMPARISON_GE; break;
  }
  return W(gcc_jit_context_new_comparison(c_, loc_, op, V(a), V(b)));
}

// C casts: integers sign-extend or truncate, int -> float and double ->
// float round to nearest. Zero extension goes through the unsigned type of
// the source width first.
Value GccjitEmitter::convert(Ty from, Ty to, Value a, bool zero_extend) {
  if (from == to) return a;
  gcc_jit_rvalue* x = V(a);
  if (zero_extend && !is_float(from) && from != Ty::Bool) {
    gcc_jit_types u = from == Ty::I8    ? GCC_JIT_TYPE_UNSIGNED_CHAR
                      : from == Ty::I16 ? GCC_JIT_TYPE_UNSIGNED_SHORT
                      : from == Ty::I32 ? GCC_JIT_TYPE_UNSIGNED_INT
                                        : GCC_JIT_TYPE_UNSIGNED_LONG;
    x = gcc_jit_context_new_cast(c_, loc_, x, gcc_jit_context_get_type(c_, u));
  }
  return W(gcc_jit_context_new_cast(c_, loc_, x, type(to)));
}

void GccjitEmitter::prefetch(Value ptr, int locality) {
  gcc_jit_rvalue* args[3] = {V(ptr), gcc_jit_context_new_rvalue_from_int(c_, type(Ty::I32), 0),
                             gcc_jit_context_new_rvalue_from_int(c_, type(Ty::I32), locality)};
  gcc_jit_block_add_eval(cur_, loc_, call_builtin("__builtin_prefetch", args, 3));
}

// ---- calls

// Runtime helpers are imported by name: the shared object libgccjit builds
// leaves them undefined and the dynamic loader binds them to the
// executable's exported definitions (jit/gccjit/CMakeLists.txt).
gcc_jit_function* GccjitEmitter::helper(Helper h) {
  gcc_jit_function*& f = helpers_[size_t(h)];
  if (f) return f;
  const HelperInfo& info = helper_info(h);
  std::vector<gcc_jit_param*> ps;
  for (int i = 0; i < info.nargs; ++i)
    ps.push_back(gcc_jit_context_new_param(c_, nullptr, type(info.args[i]), ("a" + std::to_string(i)).c_str()));
  f = gcc_jit_context_new_function(c_, nullptr, GCC_JIT_FUNCTION_IMPORTED, type(info.result), info.name,
                                   int(ps.size()), ps.data(), 0);
  if (!f) fatal(c_, info.name);
  return f;
}

Value GccjitEmitter::call(Helper h, std::initializer_list<Value> args) {
  const HelperInfo& info = helper_info(h);
  std::vector<gcc_jit_rvalue*> a;
  for (Value v : args) a.push_back(V(v));
  gcc_jit_rvalue* c = gcc_jit_context_new_call(c_, loc_, helper(h), int(a.size()), a.data());
  if (info.result == Ty::Void) {
    gcc_jit_block_add_eval(cur_, loc_, c);
    return {};
  }
  return W(bind(c, type(info.result), info.name));
}

gcc_jit_function* GccjitEmitter::builtin(const char* name) {
  gcc_jit_function*& f = builtins_[name];
  if (!f) f = gcc_jit_context_get_builtin_function(c_, name);
  if (!f) fatal(c_, name);
  return f;
}

// A builtin's arguments cast to its parameter types (const void*, size_t, ...).
gcc_jit_rvalue* GccjitEmitter::call_builtin(const char* name, gcc_jit_rvalue** args, int n) {
  gcc_jit_function* f = builtin(name);
  const size_t np = gcc_jit_function_get_param_count(f);
  for (int i = 0; i < n && size_t(i) < np; ++i) {
    gcc_jit_type* want = gcc_jit_rvalue_get_type(gcc_jit_param_as_rvalue(gcc_jit_function_get_param(f, i)));
    if (gcc_jit_rvalue_get_type(args[i]) != want) args[i] = gcc_jit_context_new_cast(c_, loc_, args[i], want);
  }
  return gcc_jit_context_new_call(c_, loc_, f, n, args);
}

// ---- debugging aids

// The comment names the node ("MUL_F8 at 2:37", with a constant's value or
// an attribute's offset) and the location makes gdb and the GIMPLE dump point
// into the script.
void GccjitEmitter::note(const ir::Node& n) {
  loc_ = location(n.pos);
  std::string text = ir::op_name(n.op);
  switch (n.op) {
    case ir::Op::CONST:
      text += n.type.kind == Tk::C ? " \"" + ir::format_value(n.type, n.val) + "\"" : " " + ir::format_value(n.type, n.val);
      break;
    case ir::Op::ATTR: text += " attribute " + std::to_string(n.attr) + " at offset " + std::to_string(n.offset); break;
    case ir::Op::PARAM: text += " slot " + std::to_string(n.slot) + " at offset " + std::to_string(n.offset); break;
    default: break;
  }
  if (n.implicit) text += " (implicit)";
  if (n.pos.line) text += " at " + std::to_string(n.pos.line) + ":" + std::to_string(n.pos.col);
  // The dump wraps the text in /* */: keep it one line that cannot close it.
  for (size_t p; (p = text.find("*/")) != std::string::npos;) text.replace(p, 2, "* /");
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  gcc_jit_block_add_comment(cur_, loc_, text.c_str());
}

}  // namespace quelkit::jit::gccjit
