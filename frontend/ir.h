// The typed IR: what the binder produces and every back end reads.
// A tree of Nodes, each with its typed operator (frontend/ops.def), result
// type and source position. Conversions are explicit nodes. Back ends never
// mutate it; decomposition and folding build new trees (clone + rewrite).
//
//   Node { op, type, pos, kid[0..1], payload by op:
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

namespace quelkit::ir {

// Typed operators, generated from ops.def.
enum class Op : uint16_t {
#define QK_OP(ID, GEN, AR, R, A, B, SYN) ID,
#include "frontend/ops.def"
};
constexpr int kNumOps = 0
#define QK_OP(ID, GEN, AR, R, A, B, SYN) +1
#include "frontend/ops.def"
    ;

// Operators as written (what the 1976 interpreter dispatches on).
enum class Generic : uint8_t {
  Const, Attr, Param, Cvt, Neg, Add, Sub, Mul, Div, Pow, Mod,
  Eq, Ne, Lt, Le, Gt, Ge, Match, NoMatch, And, Or, Not,
  Abs, Sqrt, Log, Exp, Sin, Cos, Atan, Ascii, Concat,
};
constexpr int kNumGenerics = int(Generic::Concat) + 1;

// Operand/result type classes of an op row; X = varies (leaves) or none.
enum class TC : uint8_t { I1, I2, I4, F4, F8, C, B, X };

struct OpInfo {
  const char* name;      // "ADD_F4"
  Generic generic;
  uint8_t arity;
  TC result, left, right;
  const char* synopsis;
};
const OpInfo& op_info(Op op);
inline const char* op_name(Op op) { return op_info(op).name; }
const char* generic_name(Generic g);  // "+", "log", "and", ...

// Typed op for a generic operator over operands of class `operand`
// (e.g. (Add, F4) -> ADD_F4; (Cvt ...) uses cvt_op). Returns false if none.
bool typed_op(Generic g, TC operand, Op* out);
bool cvt_op(Tk from, Tk to, Op* out);
TC tc_of(Tk k);

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
  std::unique_ptr<Node> kid[2];

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
// A node with n's own fields and the given kids: what tree rewrites build on.
NodePtr copy_with_kids(const Node& n, NodePtr a, NodePtr b);

// Canonical text of a tree: the plan-cache key part (literals included,
// positions excluded) and the golden-test form.
std::string shape(const Node& n);
// Indented dump, one node per line: `LT_F8 bool @1:30` ...
std::string dump(const Node& n, int indent = 0);
// Value formatted as the terminal monitor prints it.
std::string format_value(Type t, const Value& v);

}  // namespace quelkit::ir
