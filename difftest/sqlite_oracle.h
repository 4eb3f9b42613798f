// SQLite as an independent oracle for `quelkit difftest`: EDGE and PARTS are
// loaded into an in-memory database, and every generated retrieve whose
// qualification and targets lie in the part of the language SQL shares is
// translated to SELECT from what the binder made of it; the row multisets
// must match.
//
// Deliberate semantic differences are listed once, in kDifferences (below):
// a query touching one is not translated, and the summary counts skips per
// entry, so the oracle's reach is visible.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "difftest/gtree.h"
#include "storage/catalog.h"
#include "engine/engine.h"

struct sqlite3;

namespace quelkit::difftest {

struct Difference {
  const char* name;    // what the skip counter is called
  const char* reason;  // why SQL cannot be asked
};

// The one list of deliberate differences between QUEL (DESIGN.md) and SQLite.
inline constexpr Difference kDifferences[] = {
    {"error", "QUEL raises integer overflow, division by zero, domain and conversion errors and stops the "
              "statement; SQLite yields NULL, a REAL or a saturated value. Statements that raise in quelkit "
              "are not compared."},
    {"f4", "f4 arithmetic, comparisons and conversions to f4 round to single precision; SQLite has only "
           "doubles. A bare f4 attribute (exactly widened to f8) is still compared."},
    {"pattern", "QUEL patterns match bytes and know \\ escapes and [..] classes; GLOB matches UTF-8 "
                "characters. Only patterns of plain characters and * are translated (to GLOB, value and "
                "pattern without blanks)."},
    {"ascii", "ascii() formats numbers in widths 6/11/15/24 with shortest round-trip floats; SQL has no "
              "equivalent."},
    {"concat", "concat() drops the first operand's trailing blanks and pads to a fixed width; SQL's || does "
               "neither."},
    {"blanks", "QUEL ignores every blank when comparing characters (INGRES's rule) and c values are "
               "blank padded; the loader strips trailing blanks, each character comparison compares "
               "replace(x, ' ', '') of both operands, text columns and the aggregates' groups, DISTINCT "
               "and MIN/MAX use the collation `quel` (the rule), and rows are compared with their "
               "characters' blanks dropped: of values equal under the rule a group or unique keeps the "
               "first met, SQL any (not a skip)."},
    {"order", "QUEL's row order is scan order; SQL promises none: rows are compared as sorted multisets "
              "(not a skip)."},
    {"update", "append/replace/delete are compared between back ends and storage variants, not against "
               "SQLite."},
    {"unknown function", "an operator whose SQL spelling (ops.def) this SQLite does not know: the math "
                         "functions (sqrt, ln, exp, sin, cos, atan, pow) are a build option of SQLite."},
    {"aggregates", "QUEL's aggregates over no rows are 0 (min/max of characters: blanks), SQL's NULL; an "
                   "aggregate function is a grouped subquery over every group of the whole relation, LEFT "
                   "JOINed to the qualifying rows and joined to the outer query's rows, with COALESCE (DISTINCT, one "
                   "row per group, where INGRES's by-list rule leaves no tuple variable); float sums "
                   "and averages are compared within a relative 1e-9 (summation order differs); an i4 "
                   "sum that overflows is a quelkit error and not compared (aggregates.h; not a skip)."},
};

// How SQL writes a typed operator, $1 and $2 its operands: the catalogue's
// SQL spelling (frontend/ops.def); a conversion as a CAST, or as its bare
// operand where the binder inserted it (SQL converts the same way there:
// integers widen, an integer meeting a real becomes a real). "" where SQL
// has no equivalent.
std::string sql_spelling(ir::Op op, bool implicit = false);

class SqliteOracle {
 public:
  ~SqliteOracle();
  // Loads the heaps `edge` and `parts` of the catalog, which queries are
  // bound against and which must outlive the oracle. nullptr (and *err) on failure.
  static std::unique_ptr<SqliteOracle> open(const harness::Catalog& cat, std::string* err);

  struct Translation {
    std::string sql;
    std::vector<std::pair<bool, std::string>> params;  // (is text, value: text, or a float literal)
    std::vector<int> columns;                          // QUEL target index of each SELECT column
  };
  // The SELECT of q as bound; nullopt with *reason = a kDifferences name
  // when q is outside the subset.
  std::optional<Translation> translate(const GQuery& q, std::string* reason) const;
  // Runs t; rows as sorted canonical strings. false and *err on an SQLite error.
  bool run(const Translation& t, const Schema& quel_layout, std::vector<std::string>* rows, std::string* err);
  // The same canonical rows from a quelkit result.
  static std::vector<std::string> canonical(const harness::Result& r, const std::vector<int>& columns);

 private:
  sqlite3* db_ = nullptr;
  const CatalogView* catalog_ = nullptr;
  std::vector<bool> spelled_;  // per generic operator: this SQLite knows its spelling
};

}  // namespace quelkit::difftest
