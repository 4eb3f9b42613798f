// The random-query generator of `quelkit difftest`: type-correct
// qualifications and target lists over PARTS and EDGE (one attribute of every
// format, holding edge values), deterministic by seed. Operator choices come
// from the one operator list (frontend/ops.def through ir::op_info), so a new
// row there is generated without touching this file, unless it is a new
// *generic* operator, which needs a spelling in gen.cpp (a switch without a
// default: the compiler names the missing case) and fails the coverage test.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ir.h"

namespace quelkit::difftest {

// Deterministic generator (splitmix64): the same seed gives the same queries
// on every platform (no std:: distributions, whose output is unspecified).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

 private:
  uint64_t s_;
};

// A value type as the binder computes it (B: a condition).
struct GType {
  Tk kind = Tk::I4;
  uint8_t len = 4;
  static GType of(Type t) { return {t.kind, t.len}; }
  Type type() const { return {kind, len}; }
  bool is_int() const { return kind == Tk::I1 || kind == Tk::I2 || kind == Tk::I4; }
  bool is_num() const { return is_int() || kind == Tk::F4 || kind == Tk::F8; }
  friend bool operator==(GType a, GType b) { return a.kind == b.kind && (a.kind != Tk::C || a.len == b.len); }
};

// A generated expression: what the user writes, with the type the binder
// will give it and the typed operator it will pick (for coverage and for the
// SQL translation). Leaves are literals and attributes.
struct GNode {
  enum Kind : uint8_t { Lit, Attr, Op } kind = Lit;
  ir::Op op = ir::Op::CONST;  // Op: the typed operator; explicit conversions are CVT_* rows
  GType type;
  std::string text;           // Lit: the literal as written (strings with quotes and escapes)
  std::string value;          // Lit strings: the value after unescaping
  bool pattern = false;       // Lit string holding * ? [ or backslash
  bool pattern_left = false;  // MATCH/NOMATCH written with the pattern on the left
  std::string var, attr;      // Attr
  std::vector<std::unique_ptr<GNode>> kids;

  std::unique_ptr<GNode> clone() const;
  int operators() const;  // operator nodes written in the text (leaves do not count)
  int size() const;       // all nodes
};
using GPtr = std::unique_ptr<GNode>;

// QUEL text of an expression, every operator parenthesised.
std::string quel_text(const GNode& n);

// A relation the generator can range over.
struct GRelation {
  std::string name;      // relation name in the session ("edge", "parts", "edge_isam_i4", ...)
  std::string base;      // the relation whose tuples it holds ("edge" or "parts")
  std::vector<std::pair<std::string, GType>> attrs;
};

struct GVar {
  std::string name;      // range variable
  std::string base;      // "edge" or "parts"
  std::string relation;  // relation actually ranged over (a storage variant of base)
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

struct GenOptions {
  int max_depth = 4;
  int max_targets = 3;
  unsigned two_vars_percent = 25;
  unsigned three_vars_percent = 20;  // of the queries with two variables
  unsigned update_percent = 15;  // append/replace/delete instead of retrieve
  // Queries kept inside what SQL shares (no f4, ascii, concat, ? or [ in
  // patterns), so the SQLite oracle can check them.
  unsigned sql_percent = 30;
};

// The fixed test data: EDGE(id, i1, i2, i4, f4, f8, c1, c12) with the range
// limits, signed zeros, subnormals, rounding ties, trailing and leading
// blanks and pattern characters; PARTS of `kPartsRows` rows; and storage
// variants of both (ISAM and hash on attributes of every format, with
// overflow pages) that must give the same row multisets as the heaps.
struct TestData {
  static constexpr uint64_t kPartsRows = 100;
  static constexpr uint32_t kPageSize = 256;
  // The QUEL that builds every relation (after `--parts kPartsRows`), one
  // group of statements per relation, each group self-contained given its base.
  struct Setup {
    std::string relation, base, text;
  };
  static const std::vector<Setup>& setup();
  static const std::vector<GRelation>& relations();  // heaps and variants
  static const GRelation* find(const std::string& name);
  // The rows of EDGE as QUEL literals per attribute (for the SQLite oracle
  // loader, which reads the tuples back from the session instead).
  static const std::vector<std::string>& edge_attr_names();
  // The sink relation append statements write to (one attribute per format).
  static const GRelation& sink();
};

class Generator {
 public:
  Generator(uint64_t seed, GenOptions opt = {});
  GQuery query();
  // An expression of exactly type t over the given variables (t.len ignored
  // for characters unless exact_len).
  GPtr expr(GType t, int depth, const std::vector<GVar>& vars);
  Rng& rng() { return rng_; }

  // Literal helpers (also used by the shrinker).
  static GPtr int_lit(int64_t v);  // v >= 0
  static GPtr float_lit(const std::string& text);
  static GPtr string_lit(const std::string& value);  // a pattern if it holds * ? [ or backslash
  // A simplest expression of type t: a literal, or a conversion of one.
  static GPtr simplest(GType t);

 private:
  GPtr leaf(GType t, const std::vector<GVar>& vars);
  GPtr op_node(ir::Op op, int depth, const std::vector<GVar>& vars);
  GPtr numeric(std::vector<Tk> kinds, int depth, const std::vector<GVar>& vars);
  GPtr bool_expr(int depth, const std::vector<GVar>& vars);
  GPtr key_conjunct(const std::vector<GVar>& vars);
  std::string pattern_text();
  std::string char_value();

  bool allowed(ir::Op op) const;

  Rng rng_;
  GenOptions opt_;
  bool sql_ = false;  // this query stays in the SQL-compatible subset
  std::vector<std::vector<ir::Op>> by_result_;  // typed ops producing each Tk
};

// The bound typed operators a query's statement uses (coverage).
struct Coverage {
  std::vector<uint64_t> ops = std::vector<uint64_t>(ir::kNumOps, 0);
  void add(const ir::Node& n);
  std::vector<std::string> missing() const;  // ops never seen (PARAM excluded)
};

}  // namespace quelkit::difftest
