// Random aggregates (quelkit difftest --aggregates) as a test: a fixed seed
// on every back end and mode, each statement's values bit for bit alike, and
// SQLite's grouped subqueries joined back agreeing within the stated tolerance.
#include <gtest/gtest.h>

#include <sstream>

#include "../engine/support.h"
#include "difftest/aggregates.h"
#include "difftest/check.h"

namespace quelkit::test {
namespace {

using namespace quelkit::difftest;

TEST(DifftestAggregates, FixedSeedOnEveryBackendIsClean) {
  register_all_backends();
  std::ostringstream log;
  Checker ch("all", log);
#ifdef QUELKIT_SANITIZED
  const uint64_t count = 60;
#else
  const uint64_t count = 250;
#endif
  AggregateSummary s = run_aggregates(ch, 1983, count, log);
  for (const auto& m : s.mismatches) ADD_FAILURE() << m;
  // Most generated statements bind (the generator's types are the binder's).
  EXPECT_GT(s.statements, count * 9 / 10) << log.str();
  if (ch.have_sqlite()) {
    EXPECT_GT(s.sqlite_checked, s.statements / 3) << log.str();
  }
}

}  // namespace
}  // namespace quelkit::test
