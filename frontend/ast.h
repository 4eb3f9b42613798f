// The parser's output: statements and untyped expressions exactly as written,
// each with its source position. The binder turns expression-bearing
// statements into frontend::BoundQuery; the harness executes the others
// (create, copy, modify, destroy, print, help, range) directly from here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/source.h"
#include "frontend/types.h"

namespace quelkit::frontend::ast {

struct Expr {
  enum Kind : uint8_t { Int, Float, String, Attr, Unary, Binary, Call, Aggregate, Value } kind = Int;
  SrcPos pos;           // of the token that starts it (operator for Unary/Binary)
  int64_t ival = 0;     // Int
  double fval = 0;      // Float
  std::string text;     // String: as written, \" resolved (Token::raw); Attr: variable; Call: function (lower case)
  std::string attr;     // Attr: attribute (lower case)
  std::string op;       // Unary: "-" "+" "not"; Binary: "+" "-" "*" "/" "**" "=" "!=" "<" "<=" ">" ">=" "and" "or"
  // Operands / call arguments; Aggregate: its argument. A Binary "and" or
  // "or" is n-ary: a flat chain `a or b or c` is one node of three operands.
  std::vector<std::unique_ptr<Expr>> args;
  // Aggregate (`count(p.pnum by p.color where p.qoh > 100)`; text = the
  // aggregate's name): the by list (empty for a simple aggregate) and the
  // aggregate's own qualification (null if none). The session evaluates
  // aggregates before binding (engine/aggregate.cpp); the binder never sees one.
  // Value: a constant the session computed (a simple aggregate's value), of
  // type value_type (c0 included: an aggregate of ""), held in ival / fval /
  // text; never a pattern.
  std::vector<std::unique_ptr<Expr>> by;
  std::unique_ptr<Expr> qual;
  Type value_type;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Target {     // `name = expr` or a bare `v.attr` (name = attr)
  std::string name;  // lower case; empty if not given and expr is not a bare attribute
  ExprPtr expr;
  SrcPos pos;
  bool all = false;  // a bare `v.all`: every attribute of v, in order, under its own name
  std::string what;  // what errors call it where the user wrote no target ("the argument of count")
};

struct ColumnDef {  // create/copy: `attr = fmt`
  std::string name;
  std::string format;  // as written, lower case: "i2", "c20"
  SrcPos pos, format_pos;
};

struct SortItem {
  std::string name;
  bool descending = false;
  SrcPos pos;
};

struct Stmt {
  enum Kind : uint8_t {
    Range, Retrieve, Create, Append, Delete, Replace, Copy, Modify, Destroy, Print, Help,
    Begin, End, Abort,  // POSTQUEL's transaction statements: no operands
    Save,     // save rel until month day year (relation, save_until)
    Index,    // index on rel is name (domain, ...): relation, index_name, keys
    Define,   // define view|integrity|permit (define_what; engine/query_modification.h)
    Include  // a script's \i FILE: the file runs there as a script (file, file_pos)
  } kind = Retrieve;
  SrcPos pos;            // first token
  size_t begin = 0, end = 0;  // byte range of the statement in the source
  uint64_t parse_ns = 0;      // its lexing and parsing (--stats' parse_ns)

  std::string var;       // Range: variable; Delete/Replace: variable
  SrcPos var_pos;        // of `var`
  std::string relation;  // Range/Create/Append/Copy/Modify/Destroy/Help(empty = all)/Print; Retrieve: into
  SrcPos relation_pos;
  std::vector<std::string> relations;  // Print/Destroy may name several
  std::vector<SrcPos> relation_positions;  // Print/Destroy: one per entry of `relations`
  bool unique = false;
  std::vector<Target> targets;          // Retrieve/Append/Replace
  ExprPtr where;                        // nullptr if none
  std::vector<SortItem> sort;
  std::vector<ColumnDef> columns;       // Create/Copy
  bool copy_into = false;               // Copy: into file (else from)
  bool copy_ingres = false;             // Copy: `with ingres`, INGRES's formats for a list the CSV could read
  std::string file;                     // Copy, Include
  SrcPos file_pos;
  // Modify: the structure as written (heap isam hash cheap cisam chash
  // heapsort cheapsort truncated), its `on` domains (the first is `key`),
  // each with its sort order (`:descending` only for heapsort and cheapsort).
  // Index: `keys` are the indexed domains.
  std::string structure;
  std::string key;
  SrcPos key_pos;
  std::vector<SortItem> keys;
  std::string index_name;               // Index: the index relation's name
  SrcPos index_pos;
  int fillfactor = 0;                   // Modify: 0 = default
  int minpages = 0, maxpages = 0;       // Modify (hash, chash): 0 = not given
  // Help: the names and manual sections listed, in order; `help_what` is
  // "view", "permit" or "integrity" for those forms, else empty.
  struct HelpItem {
    std::string name;
    bool section = false;  // a quoted "section" or a word naming a manual section
    SrcPos pos;
  };
  std::vector<HelpItem> help_items;
  std::string help_what;
  std::string save_until;  // Save: the date as "YYYY-MM-DD"
  // Define: "view" (relation = its name, targets, where), "integrity" (var,
  // where = its qualification) or "permit" (the permit_ fields, var, where).
  // Destroy: "permit" or "integrity" for `destroy permit|integrity rel
  // n, ... | all` (relation; the numbers, or destroy_all), else empty.
  std::string define_what;
  SrcPos define_pos;  // of the word after define (or destroy)
  std::vector<std::string> permit_ops;  // retrieve replace delete append (all: the four)
  std::vector<std::string> permit_domains;  // empty: every domain
  std::vector<SrcPos> permit_domain_positions;
  std::string permit_user = "all", permit_terminal = "all";
  SrcPos permit_user_pos, permit_terminal_pos;
  int permit_from = -1, permit_to = -1;          // minutes after midnight; -1: any time
  int permit_day_from = -1, permit_day_to = -1;  // 0 sunday .. 6 saturday; -1: any day
  std::vector<int> destroy_numbers;
  std::vector<SrcPos> destroy_number_positions;
  bool destroy_all = false;
};
using StmtPtr = std::unique_ptr<Stmt>;

// The keyword a statement starts with ("range", "retrieve", ...): how the
// parser's messages and --stats=json name its kind.
const char* statement_word(Stmt::Kind k);

}  // namespace quelkit::frontend::ast
