// What both code generators (jit/llvm/, jit/gccjit/) share: the calling
// convention of generated functions, the two modes, the runtime helpers that
// generated code calls, and the walk over the folded typed IR that decides
// what code a plan becomes. A generator only supplies an Emitter: how to emit
// a constant, a load, an add, a branch. The walk (jit/codegen.cpp) holds every
// semantic decision (check order, error codes and positions, short-circuits,
// the fused page loop), so both JITs raise the same errors at the same tuple.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ir.h"
#include "engine/backend.h"
#include "storage/page.h"
#include "engine/plan.h"
#include "runtime/runtime.h"

namespace quelkit::jit {

// ---------------------------------------------------------------- modes

// "fused" (the default, listed first): a page-at-a-time kernel per plan that
// loops over the page's line table, qualifies each live tuple and projects the
// qualifying ones (HyPer style). "qual": one function per qualification and one
// per target list, called by the harness per tuple (PostgreSQL style).
#define QK_JIT_MODES(X) X(Fused, "fused") X(Qual, "qual")
enum class Mode : uint8_t {
#define QK_JIT_MODE_ENUM(id, name) id,
  QK_JIT_MODES(QK_JIT_MODE_ENUM)
#undef QK_JIT_MODE_ENUM
};
const char* mode_name(Mode m);
std::vector<std::string> mode_names();  // in QK_JIT_MODES order, the default first
// "" means the default mode; false for an unknown name.
bool parse_mode(const std::string& name, Mode* out);

// ------------------------------------------------------ calling convention

// The generated functions. None embeds a per-execution pointer: the tuple,
// page and row arrive as arguments, parameters and scratch through ctx, so one
// compiled plan serves every tuple substitution.
//
//   <name>_qual    int32 (const uint8_t* tuple, qk_ctx* ctx)        1, 0, or -1 after qk_raise
//   <name>_project int32 (const uint8_t* tuple, uint8_t* row, qk_ctx* ctx)   0 or -1
//   <name>_kernel  int64 (const uint8_t* page, uint8_t* rows, qk_ctx* ctx)
//                  rows written, or -1 with ctx->err_slot = the failing line index
//   <name>_accumulate int64 (const uint8_t* page, qk_accum* acc, qk_ctx* ctx)
//                  the kernel accumulating (harness Use::Aggregate): tuples
//                  qualified, or -1 with ctx->err_slot
enum class FnKind : uint8_t { Qual, Project, Kernel, Accumulate };
const char* fn_suffix(FnKind k);  // "qual", "project", "kernel", "accumulate"
using QualFn = harness::QualifyFn;
using ProjectFn = harness::ProjectFn;
using KernelFn = harness::PageFn;
using AccumulateFn = harness::AccumulateFn;

// qk_ctx fields generated code reads and writes, at these offsets.
constexpr uint32_t kCtxParams = offsetof(qk_ctx, params);
constexpr uint32_t kCtxScratch = offsetof(qk_ctx, scratch);
constexpr uint32_t kCtxErrSlot = offsetof(qk_ctx, err_slot);
static_assert(kCtxParams == 0 && kCtxScratch == 8 && kCtxErrSlot == 32 && sizeof(qk_ctx) == 48,
              "generated code hard-codes the qk_ctx layout");

// Which functions a plan's module holds. Fused plans over a relation get only
// the kernel; their per-tuple functions (needed by replace/delete, which want
// tids) are generated on first use. A plan over no relation (`retrieve (a = 1)`)
// is evaluated once, through the per-tuple functions, in both modes.
struct Functions {
  bool qual = false, project = false, kernel = false;
  bool accumulate = false;  // the accumulating kernel, generated when an aggregate's scan asks for it
};
Functions functions_for(Mode m, const harness::Plan& plan);
// The per-tuple functions a plan needs: a qualification function unless the
// folded qualification is absent or constant true, a projection function
// unless there are no targets (the prepared plan supplies trivial ones).
Functions tuple_functions(const harness::Plan& plan);

// What the kernel's checks treat as the largest page (line offsets are u16).
constexpr uint32_t kMaxPageSize = 65536;
// The most lines a page of kMaxPageSize can hold: a refined nobranch
// kernel's selection vector has an entry for each.
constexpr uint32_t kMaxPageLines = (kMaxPageSize - harness::kPageHeader) / harness::kLineSize;

// ---------------------------------------------------------------- types

// Machine types of emitted values. Integer values of every width are held as
// I32 (sign-extended when loaded, truncated when stored), as the runtime's
// int32_t arguments are; Bool is a branch condition.
enum class Ty : uint8_t { Void, Bool, I8, I16, I32, I64, F32, F64, Ptr };

// Opaque handles an Emitter hands out and takes back (an llvm::Value*, a
// gcc_jit_rvalue*, ...). The walk never looks inside.
struct Value {
  void* h = nullptr;
  explicit operator bool() const { return h != nullptr; }
};
struct Block {
  void* h = nullptr;
};
struct Local {
  void* h = nullptr;
};

// ---------------------------------------------------------------- helpers

// The runtime helpers generated code calls (runtime/runtime.h), with
// their C signatures: QK_JIT_HELPER(name, effect, result, arg types...). Subtle
// rules (string compare, patterns, text, transcendental functions,
// float-to-integer conversion) are called, never re-implemented in generated
// code. The effect lets a generator tell its optimiser what a call may touch:
//   Reads   reads only memory its pointer arguments point to
//   Writes  writes (and reads) only memory its pointer arguments point to
//   Raise   records an error in the qk_ctx it is given; rarely executed (cold)
enum class Effect : uint8_t { Reads, Writes, Raise };
#define QK_JIT_HELPERS(X)                                 \
  X(qk_raise, Raise, I32, Ptr, I32, I64)                  \
  X(qk_char_cmp, Reads, I32, Ptr, I32, Ptr, I32)          \
  X(qk_pattern_match, Reads, I32, Ptr, I32, Ptr, I32)     \
  X(qk_concat, Writes, Void, Ptr, I32, Ptr, I32, Ptr)     \
  X(qk_ascii_i4, Writes, Void, I32, Ptr, I32)             \
  X(qk_ascii_f4, Writes, Void, F32, Ptr, I32)             \
  X(qk_ascii_f8, Writes, Void, F64, Ptr, I32)             \
  X(qk_accum_row, Writes, Void, Ptr, Ptr)                 \
  X(qk_group_find, Writes, Ptr, Ptr, Ptr)

// After them, one helper per typed operator of the catalogue whose operands
// and result are numbers or booleans: `qk_rule_<OP>`, its runtime rule
// (frontend/op_rules.h) behind a C signature (operands by value, the result
// through a pointer, a qk_err status). Generated code calls these for every
// operator the walk does not emit inline (transcendental functions,
// float-to-integer conversion, and any operator added to the catalogue).
enum class Helper : uint8_t {
#define QK_JIT_HELPER_ENUM(name, ...) name,
  QK_JIT_HELPERS(QK_JIT_HELPER_ENUM)
#undef QK_JIT_HELPER_ENUM
};
constexpr int kNumFixedHelpers = 0
#define QK_JIT_HELPER_COUNT(name, ...) +1
    QK_JIT_HELPERS(QK_JIT_HELPER_COUNT)
#undef QK_JIT_HELPER_COUNT
    ;
constexpr int kNumHelpers = kNumFixedHelpers + ir::kNumOps;
static_assert(kNumHelpers <= 256, "helpers are numbered in a byte");
}  // namespace quelkit::jit
// One of the qk_rule_ helpers (all are defined in jit/codegen.cpp), named so
// that the profile's routine table holds a real address.
extern "C" int qk_rule_SQRT_F8(double a, double* r) noexcept;
namespace quelkit::jit {
// The rule helper of a typed operator (its address is null when the row has
// characters, which generated code handles through the fixed helpers).
constexpr Helper rule_helper(ir::Op op) { return Helper(kNumFixedHelpers + int(op)); }

struct HelperInfo {
  const char* name;  // the C symbol
  void* address;     // where it is in this process (generators register it)
  Effect effect;
  Ty result;
  uint8_t nargs;
  Ty args[5];
};
const HelperInfo& helper_info(Helper h);
// The machine type a value of type k is held in (types.def's HELD column).
Ty held_ty(Tk k);

// C library functions a code generator may itself emit calls to (block copies
// of character columns); registered like the helpers, never called by the walk.
struct LibSymbol {
  const char* name;
  void* address;
};
const LibSymbol* lib_symbols(size_t* n);

// ---------------------------------------------------------------- emitter

enum class Arith : uint8_t { Add, Sub, Mul, Div, Rem };  // integers: signed; floats: IEEE
// integers only; Shr: arithmetic (sign-filling); Mul: modulo 2^width, never
// overflowing (a hash's step, not a value's).
enum class Bits : uint8_t { And, Xor, Shr, Mul };
enum class Pred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };    // integers: signed; floats: as C (Ne unordered)
enum class Hint : uint8_t { None, Likely, Unlikely };

// How a code generator emits. The walk calls these in program order with an
// insertion point (the current block) that begin_function and place() set.
// Every Value has the machine type the walk asked for, and is computed once,
// where it is emitted: the walk may use it later in any block that the
// emitting block dominates (a generator whose values are expression trees,
// like gccjit's rvalues, binds loads and calls to temporaries when emitted).
// Blocks may end up unreachable (a qualification folded to false): a
// generator must accept them (gccjit: allow_unreachable_blocks).
class Emitter {
 public:
  virtual ~Emitter() = default;

  // A function of the calling convention above; its entry block is current.
  virtual void begin_function(FnKind kind, const std::string& name) = 0;
  virtual Value param(int i) = 0;  // 0..2 in the order of the signature
  virtual void end_function() = 0;

  virtual Block block(const std::string& name) = 0;
  virtual void place(Block b) = 0;  // b becomes current
  virtual void jump(Block to) = 0;
  virtual void branch(Value cond, Block if_true, Block if_false, Hint h) = 0;
  virtual void ret(Value v) = 0;

  // Mutable variables of the function (merges, loop counters, out-arguments).
  virtual Local local(Ty t, const std::string& name) = 0;
  virtual void assign(Local l, Value v) = 0;
  virtual Value read(Local l) = 0;
  virtual Value address(Local l) = 0;  // a Ptr to it, for helpers' out-arguments
  // A Ptr to an uninitialised array of `bytes` bytes in the function's frame,
  // 16-byte aligned (refined nobranch's selection vector).
  virtual Value buffer(uint32_t bytes, const std::string& name) = 0;

  virtual Value int_const(Ty t, int64_t v) = 0;
  virtual Value f4_const(float v) = 0;  // bit-exact (-0.0 stays -0.0)
  virtual Value f8_const(double v) = 0;
  // A Ptr to read-only bytes owned by the generated code (character literals).
  virtual Value bytes(const std::string& b, const std::string& name) = 0;

  // Memory: byte addressing, no alignment assumed (tuples and pages are packed).
  virtual Value at(Value ptr, Value byte_offset_i64) = 0;
  virtual Value load(Ty t, Value ptr) = 0;
  virtual void store(Ty t, Value ptr, Value v) = 0;
  virtual void copy(Value dst, Value src, uint32_t n) = 0;  // n constant, no overlap
  virtual void fill(Value dst, uint8_t byte, uint32_t n) = 0;

  // Operations. None may be contracted, reassociated or otherwise relaxed:
  // results must be bit-equal to the C++ rules in runtime_inline.h.
  virtual Value arith(Arith op, Ty t, Value a, Value b) = 0;
  // Bitwise operations on integers (I32, I64): the group front's hash.
  virtual Value bits(Bits op, Ty t, Value a, Value b) = 0;
  // I32 Add/Sub/Mul: *result = a op b wrapped; returns the overflow Bool.
  virtual Value overflows(Arith op, Value a, Value b, Value* result) = 0;
  virtual Value negate(Ty t, Value a) = 0;  // floats: flip the sign bit (-0.0 kept)
  virtual Value abs(Ty t, Value a) = 0;     // integers: never called with INT32_MIN
  virtual Value is_finite(Ty t, Value a) = 0;
  virtual Value compare(Pred p, Ty t, Value a, Value b) = 0;
  // Value-preserving or rounding conversion: integer widen (sign-extending) or
  // narrow (truncating), integer to float (round to nearest), float widen or
  // narrow (round to nearest). `zero_extend` widens integers unsigned.
  virtual Value convert(Ty from, Ty to, Value a, bool zero_extend = false) = 0;
  virtual Value call(Helper h, std::initializer_list<Value> args) = 0;  // Void helpers: empty Value
  // A hint that memory at ptr will be read soon (never faults, may do
  // nothing); locality as __builtin_prefetch's: 3 into L1, 2 into L2.
  virtual void prefetch(Value ptr, int locality) = 0;

  // Debugging aids: called before the code of each IR node (gccjit: comment and
  // source location; LLVM: names). Optional.
  virtual void note(const ir::Node& n) { (void)n; }
};

// ---------------------------------------------------------------- the walk

struct GenOptions {
  bool checks = false;  // --jit-checks: bounds assertions raising QK_ERR_BOUNDS
  // The kernel's selection (engine/selection.h): false, a branch on the
  // qualification; true, nobranch (its value computed, the row written for
  // every tuple and kept by it; what can raise stays guarded).
  bool nobranch = false;
};
// The kernel variant's base name: `base` for branch, `base`_nb for nobranch,
// so both can live in one process and a profile tells them apart.
std::string kernel_base(const std::string& base, bool nobranch);

// Emits the functions `which` of `plan` (its folded trees and layouts) through
// `e`, named `base`_qual / `base`_project / `base`_kernel. Aborts on a plan the
// harness should never produce (an attribute outside the tuple, a boolean
// column): that is an internal error, not a user's.
void generate(const harness::Plan& plan, Functions which, const std::string& base, const GenOptions& opt,
              Emitter& e);

// Name of a generated function.
std::string function_name(const std::string& base, FnKind k);
// The name generated code and dumps take after a plan ("q3", or "plan").
std::string base_name(const harness::Plan& plan);

// The harness registration of a JIT back end: its modes (QK_JIT_MODES, the
// default first), the --dump forms it prints, and how to make it in a mode.
harness::BackendSpec backend_spec(
    std::string name, std::vector<std::string> dump_forms,
    std::function<std::unique_ptr<harness::Backend>(Mode, const harness::PrepareOptions&)> make);

}  // namespace quelkit::jit
