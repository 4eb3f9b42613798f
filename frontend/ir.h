// The typed IR: what the binder produces and every back end reads.
// A tree of Nodes, each with its typed operator (the catalogue, frontend/ops.def), result
// type and source position. Conversions are explicit nodes. Back ends never
// mutate it; decomposition and folding build new trees (clone + rewrite).
//
//   Node { op, type, pos, kid[0..1] (AND, OR: kid[0..n-1]), payload by op:
//          CONST: val            ATTR: var, attr, offset (in the tuple)
//          PARAM: slot, offset (in the parameter block)
//          CVT_*: implicit (binder-inserted)   CONCAT/ASCII: scratch offset }
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/source.h"
#include "frontend/types.h"
#include "runtime/runtime.h"

namespace quelkit::ir {

// ---- the operator catalogue (ops.def), as constexpr tables ----

// Operators as written (what the binder types and the 1976 interpreter
// dispatches on).
enum class Generic : uint8_t {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) ID,
#include "frontend/ops.def"
};
constexpr int kNumGenerics = 0
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) +1
#include "frontend/ops.def"
    ;

// Typed operators: what back ends specialise on.
enum class Op : uint16_t {
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) ID,
#include "frontend/ops.def"
};
constexpr int kNumOps = 0
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) +1
#include "frontend/ops.def"
    ;

// How back ends treat a generic operator (ops.def's CLASS column).
enum class Class : uint8_t { Leaf, Convert, Arith, Compare, Logic, Function };
// The binder's typing rule (ops.def's TYPING column).
enum class Typing : uint8_t { None, Keep, Numeric, Float8, Integer, Compare, Logic, Ascii, Concat };

struct GenericInfo {
  const char* quel;   // "+", "abs", "and"; "const", "attr", "param", "convert" for the others
  const char* sql;    // "($1 + $2)"; "" where SQL has no equivalent
  Class cls;
  Typing typing;
  uint8_t arity;
  bool scratch;       // the result is computed into qk_ctx.scratch
  bool infix;         // spelled as an operator (a token of its own), not a function
  const char* synopsis;
};
inline constexpr GenericInfo kGenerics[] = {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) \
  {QUEL, SQL, Class::CLASS, Typing::TYPING, AR, SCRATCH != 0, Class::CLASS != Class::Function, SYN},
#include "frontend/ops.def"
};
static_assert(sizeof kGenerics / sizeof kGenerics[0] == size_t(kNumGenerics));
constexpr const GenericInfo& generic_info(Generic g) { return kGenerics[size_t(g)]; }
constexpr const char* generic_name(Generic g) { return generic_info(g).quel; }

// The runtime errors an operator can raise, as bits (1 << qk_err code).
enum ErrorBits : uint16_t {
#define QK_ERR_BIT(ID, V, MSG) E_##ID = (V == 0 ? 0 : 1u << V),
  QK_ERRORS(QK_ERR_BIT)
#undef QK_ERR_BIT
};

struct OpInfo {
  const char* name;      // "ADD_F4"
  Generic generic;
  uint8_t arity;
  Tk result, left, right;  // kNoTk: none (leaves: the node's own type)
  uint16_t errors;         // ErrorBits
  const char* synopsis;

  constexpr Class cls() const { return generic_info(generic).cls; }
  constexpr bool can_raise() const { return errors != 0; }
  constexpr bool raises(int code) const { return (errors >> code) & 1u; }
};
namespace detail {
inline constexpr Tk tk_I1 = Tk::I1, tk_I2 = Tk::I2, tk_I4 = Tk::I4, tk_F4 = Tk::F4, tk_F8 = Tk::F8, tk_C = Tk::C,
                    tk_B = Tk::B, tk_X = kNoTk;
}  // namespace detail
inline constexpr OpInfo kOps[] = {
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN)                                                     \
  {#ID, Generic::GEN, generic_info(Generic::GEN).arity, detail::tk_##R, detail::tk_##A, detail::tk_##B, \
   uint16_t(ERRS), SYN},
#include "frontend/ops.def"
};
static_assert(sizeof kOps / sizeof kOps[0] == size_t(kNumOps), "ops.def and the op table disagree");

constexpr const OpInfo& op_info(Op op) { return kOps[size_t(op)]; }
constexpr const char* op_name(Op op) { return op_info(op).name; }
constexpr Class class_of(Op op) { return op_info(op).cls(); }

// Typed op for a generic operator over operands of type `operand` (by
// register class: i1 and i2 operands use the i4 row), e.g. (Add, F4) ->
// ADD_F4; conversions use cvt_op. Returns false if none.
constexpr bool typed_op(Generic g, Tk operand, Op* out) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpInfo& o = kOps[i];
    if (o.generic == g && g != Generic::Cvt && o.left == operand) {
      *out = Op(i);
      return true;
    }
  }
  return false;
}
constexpr bool cvt_op(Tk from, Tk to, Op* out) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpInfo& o = kOps[i];
    if (o.generic == Generic::Cvt && o.left == from && o.result == to) {
      *out = Op(i);
      return true;
    }
  }
  return false;
}

// a op b == b op' a, for back ends that keep a loaded or constant operand on
// one side and so swap (threaded's attribute-operand nodes, vector's
// primitives): the order comparisons mirrored (< and >, <= and >=), = and !=
// as they are, and + and * (exactly commutative in IEEE arithmetic and in
// checked i4 arithmetic, overflow included). False for every other operator,
// pattern matches included: its operands keep their order.
constexpr bool mirrored(Op op, Op* out) {
  const OpInfo& r = op_info(op);
  Generic m;
  switch (r.generic) {
    case Generic::Add: case Generic::Mul: case Generic::Eq: case Generic::Ne: m = r.generic; break;
    case Generic::Lt: m = Generic::Gt; break;
    case Generic::Gt: m = Generic::Lt; break;
    case Generic::Le: m = Generic::Ge; break;
    case Generic::Ge: m = Generic::Le; break;
    default: return false;
  }
  return typed_op(m, r.left, out);
}

// A generic operator by its QUEL spelling: an infix/prefix operator with that
// many operands, or a function. Pattern matches are never found (the binder
// derives them from = and !=).
bool generic_by_quel(const std::string& text, int arity, bool function, Generic* out);

// A value: integers (i1 i2 i4) in i, f4 in f4, f8 in f8, characters in s
// (exactly type.len bytes, blank padded), booleans in i (0/1).
struct Value {
  int64_t i = 0;
  float f4 = 0;
  double f8 = 0;
  std::string s;
};

struct Node {
  Op op = Op::CONST;
  Type type;
  SrcPos pos;
  // Operands. Unary and binary operators have exactly two slots, kid[0] and
  // kid[1], null where absent. AND and OR are n-ary: kid.size() >= 2
  // operands, none null, evaluated left to right up to the first that
  // decides. A flat `a or b or ... ` is one node, so a qualification of
  // 100,000 terms is as deep as one of two (every walker iterates kid).
  std::vector<std::unique_ptr<Node>> kid = std::vector<std::unique_ptr<Node>>(2);

  Value val;             // CONST
  int32_t var = -1;      // ATTR: range variable index in the bound query
  int32_t attr = -1;     // ATTR: attribute index in that variable's relation
  int32_t slot = -1;     // PARAM: parameter index
  uint32_t offset = 0;   // ATTR: byte offset in the tuple; PARAM: in the parameter block
  uint32_t scratch = 0;  // CONCAT/ASCII: byte offset of its result in qk_ctx.scratch
  bool implicit = false; // CVT_*: inserted by the binder, not written by the user

  int arity() const { return op_info(op).arity; }
  std::unique_ptr<Node> clone() const;
};
using NodePtr = std::unique_ptr<Node>;

NodePtr make_const(Type t, Value v, SrcPos pos);
NodePtr make_node(Op op, Type t, SrcPos pos, NodePtr a = nullptr, NodePtr b = nullptr);
// An AND or OR of two or more operands (none null).
NodePtr make_nary(Op op, Type t, SrcPos pos, std::vector<NodePtr> kids);
// A node with n's own fields and the given kids: what tree rewrites build on.
NodePtr copy_with_kids(const Node& n, NodePtr a, NodePtr b);
NodePtr copy_with_kids(const Node& n, std::vector<NodePtr> kids);
// AND and OR: n-ary (Node::kid).
inline bool is_nary(Op op) { return op == Op::AND || op == Op::OR; }
// Some node of n's tree can raise a runtime error (the catalogue's ERRORS
// column): what a back end may not evaluate speculatively, for a tuple whose
// evaluation would not reach it (nobranch selection, engine/selection.h).
bool may_raise(const Node& n);

// Canonical text of a tree: the plan-cache key part (literals included,
// positions excluded) and the golden-test form.
std::string shape(const Node& n);
// Indented dump, one node per line: `LT_F8 bool @1:30` ...
std::string dump(const Node& n, int indent = 0);
// Value formatted as the terminal monitor prints it.
std::string format_value(Type t, const Value& v);

}  // namespace quelkit::ir
