// Entry points of the front end: text -> tokens -> statements -> typed IR.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/bound.h"
#include "frontend/schema.h"
#include "frontend/source.h"

namespace quelkit::frontend {

// Parses a whole source into statements. Throws QuelError (Lexical/Syntax) at
// the first error, before anything runs.
std::vector<ast::StmtPtr> parse(const SourceRef& src);
// Every statement that parses, in text order; each failed statement's first
// lexical or syntax error goes to *errors (in text order) and parsing goes on
// at the next statement keyword (range, retrieve, create, ...).
std::vector<ast::StmtPtr> parse_recovering(const SourceRef& src, std::vector<Error>* errors);

// Whether `word` (any case) is one of QUEL's reserved words, which can
// never be a name: a relation made outside a statement (--wisconsin
// NAME=N) must not be called so, or no statement could name it.
bool reserved_word(std::string_view word);

// Range declarations in force in a session: variable -> relation (lower case).
struct RangeTable {
  std::vector<std::pair<std::string, std::string>> vars;
  const std::string* find(std::string_view var) const;
  void set(const std::string& var, const std::string& rel);
};

// Binds a retrieve/append/replace/delete. Throws QuelError (Name/Type).
// A variable that is not declared but names a relation ranges over it.
BoundQuery bind(const ast::Stmt& stmt, const RangeTable& ranges, const CatalogView& catalog,
                const SourceRef& src);

// The type the binder gives an integer literal of value v: i2 if it fits,
// else i4 (the statement cache, engine/statement_cache.h, keys texts by it).
Type int_literal_type(int64_t v);

// Folds constant subexpressions (frontend/fold.cpp). Never mutates `n`.
// A subexpression whose evaluation raises an error is left unfolded so the
// error is raised at run time exactly when evaluation reaches it.
ir::NodePtr fold(const ir::Node& n);

// QUEL's aggregate names: count countu sum sumu avg avgu min max any
// (frontend/aggregate_ast.cpp). A call of one of them parses as an Aggregate.
bool is_aggregate_name(std::string_view name);
// A deep copy of an expression, so a statement can be rewritten (aggregates
// replaced by their values) without touching the parsed original.
ast::ExprPtr clone(const ast::Expr& e);

// Text of an AST for --dump=ast.
std::string dump_ast(const ast::Stmt& s);

}  // namespace quelkit::frontend
