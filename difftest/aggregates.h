// Random QUEL aggregates for `quelkit difftest --aggregates N`: simple
// aggregates and aggregate functions (`by`, an inner qualification) over the
// test data's heaps, run on every back end (values bit for bit, errors
// exactly) and compared with SQLite, where an aggregate function is a grouped
// subquery over the whole relation's groups joined back with COALESCE, to
// each tuple or, by INGRES's by-list rule, once per group.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace quelkit::difftest {

class Checker;

struct AggregateSummary {
  uint64_t statements = 0;      // generated and bound
  uint64_t failed = 0;          // raised a runtime error (alike on every back end), i4 overflow included
  uint64_t sqlite_checked = 0;  // compared with SQLite
  uint64_t sqlite_skipped = 0;  // outside what SQL shares (kDifferences), or a runtime error
  std::vector<std::string> mismatches;  // the statement's text and the first difference
};

// Float sums and averages are compared with SQLite within this relative
// tolerance: the summation order differs (SQLite adds in its own order).
inline constexpr double kAggregateTolerance = 1e-9;

// `count` statements from `seed` on the checker's session and runners.
AggregateSummary run_aggregates(Checker& ch, uint64_t seed, uint64_t count, std::ostream& log);

}  // namespace quelkit::difftest
