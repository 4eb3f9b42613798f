// The random-query generator of `quelkit difftest`: qualifications, target
// lists and updates over the test data, deterministic by seed. It chooses
// operators from the catalogue (frontend/ops.def through ir::op_info), so a
// new operator is generated without touching this code; every type it relies
// on is the binder's (bind.h), and a candidate the binder rejects is dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "difftest/gtree.h"
#include "difftest/testdata.h"

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

struct GenOptions {
  int max_depth = 4;
  int max_targets = 3;
  unsigned two_vars_percent = 25;
  unsigned three_vars_percent = 20;  // of the queries with two variables
  unsigned update_percent = 15;  // append/replace/delete instead of retrieve
  // Queries kept inside what SQL shares (no f4, no operator without an SQL
  // spelling, no ? or [ in patterns), so the SQLite oracle can check them.
  unsigned sql_percent = 30;
};

class Generator {
 public:
  Generator(uint64_t seed, GenOptions opt = {});
  GQuery query();
  // An expression the binder gives a value of kind k over the given variables.
  GPtr expr(Tk k, int depth, const std::vector<GVar>& vars);
  Rng& rng() { return rng_; }

  // Literals as written (also used by the shrinker and tests).
  static GPtr int_lit(int64_t v);  // v >= 0
  static GPtr float_lit(const std::string& text);
  static GPtr string_lit(const std::string& value);  // as written (escapes kept); a pattern if it holds an unescaped * ? [
  // The first of a few smallest expressions (literals, a conversion of one,
  // `1 = 1`) that the binder gives kind k over no variables.
  static GPtr simplest(Tk k);

 private:
  struct Typed {
    GPtr node;
    Type type;  // as bound
  };
  Typed typed(Tk k, int depth, const std::vector<GVar>& vars);
  Typed leaf(Tk k, const std::vector<GVar>& vars);
  Typed op_node(ir::Op row, int depth, const std::vector<GVar>& vars);
  Typed numeric(std::vector<Tk> kinds, int depth, const std::vector<GVar>& vars);
  GPtr key_conjunct(std::vector<GVar>& vars);
  std::string pattern_text();
  std::string char_value();
  // n with the type the binder gives it; nullopt if the binder rejects it.
  std::optional<Typed> bound(GPtr n, const std::vector<GVar>& vars) const;
  Typed smallest(Tk k) const;  // simplest(k), bound

  bool allowed(ir::Op op) const;

  Rng rng_;
  GenOptions opt_;
  bool sql_ = false;  // this query stays in the SQL-compatible subset
  std::vector<std::vector<ir::Op>> by_result_;  // typed ops producing each Tk
};

}  // namespace quelkit::difftest
