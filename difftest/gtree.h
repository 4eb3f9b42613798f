// The generator tree of `quelkit difftest`: a query as the user writes it,
// untyped (literals, attributes, operators by their generic name), with clone,
// size and its QUEL text. Types and typed operators exist only in what the
// binder makes of that text (bind.h); nothing here knows a typing rule.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ir.h"

namespace quelkit::difftest {

// A generated expression node. Leaves are literals and attributes; an
// operator node holds the operator as written and its operands in written order.
struct GNode {
  enum Kind : uint8_t { Lit, Attr, Op } kind = Lit;
  ir::Generic op = ir::Generic::Const;  // Op: the generic operator written
  Tk to = kNoTk;              // Op, Cvt: the type converted to (int1 ... float8)
  std::string text;           // Lit: the literal as written (strings with quotes and escapes)
  std::string value;          // Lit strings: the value after unescaping
  bool pattern = false;       // Lit string holding * ? [ or backslash
  std::string var, attr;      // Attr
  std::vector<std::unique_ptr<GNode>> kids;

  std::unique_ptr<GNode> clone() const;
  int operators() const;  // operator nodes written in the text (leaves do not count)
  int size() const;       // all nodes
};
using GPtr = std::unique_ptr<GNode>;

GPtr make_op(ir::Generic g, GPtr a = nullptr, GPtr b = nullptr);
GPtr make_cvt(Tk to, GPtr a);
GPtr make_attr(const std::string& var, const std::string& attr);

// How QUEL spells an operator: the catalogue's spelling (frontend/ops.def),
// and a conversion by the function of its target type (frontend/types.def).
struct QuelSpelling {
  const char* text;
  bool infix;  // an operator (`a + b`, `-a`, `not a`), else a function call
};
QuelSpelling quel_spelling(ir::Generic g, Tk to);

// QUEL text of an expression, every operator parenthesised.
std::string quel_text(const GNode& n);

struct GVar {
  std::string name;      // range variable
  std::string base;      // "edge" or "parts"
  std::string relation;  // relation actually ranged over (a storage variant of base)
  std::string key_hint;  // the attribute a key conjunct compares (the storage check's variant keyed on it first)
};

struct GQuery {
  enum Kind : uint8_t { Retrieve, Append, Replace, Delete } kind = Retrieve;
  std::vector<GVar> vars;
  std::vector<std::pair<std::string, GPtr>> targets;  // name = expr (append/replace: column = expr)
  GPtr where;                                         // may be null
  std::string update_var;                             // replace/delete
  std::string append_to;                              // append

  GQuery clone() const;
  int operators() const;  // operators in the qualification and target list
  // `range of v is rel` lines followed by the statement.
  std::string ranges_text() const;
  std::string statement_text() const;
  std::string text() const { return ranges_text() + statement_text(); }
};

}  // namespace quelkit::difftest
