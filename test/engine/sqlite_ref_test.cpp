// SQLite as the reports' reference (bench/measure/sqlite_ref.h): its timed
// runs store rows and take no checksum, the checksum taken from the stored
// rows afterwards still agrees with the back ends', and a paper measurement
// of any number of repetitions takes exactly one checksum, the checked run's.
#include <gtest/gtest.h>

#include "bench/measure/paper_queries.h"
#include "bench/measure/paper_run.h"
#include "bench/measure/sqlite_ref.h"
#include "support.h"

namespace quelkit::test {
namespace {

TEST(SqliteRef, ChecksumOfStoredRowsIsTheBackEndsAndOffTheClock) {
  Kit k("interp:switch", harness::OutFormat::None);
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts range of q is parts").ok);
  auto db = SqliteRef::open(210, false, false);
  ASSERT_NE(db, nullptr);
  for (const PaperQuerySpec& pq : paper_queries()) {
    if (pq.keyed) continue;
    SCOPED_TRACE(pq.id);
    const std::string sql = SqliteRef::sql_for(pq.id[0]);
    // execute stores the rows; checksum() of them is run()'s checksum.
    SqliteRows stored;
    std::string err;
    ASSERT_TRUE(db->execute(sql, &stored, &err)) << err;
    uint64_t rows = 0, sum = 0;
    const uint64_t taken = db->checksums_taken();
    ASSERT_TRUE(db->run(sql, &rows, &sum, &err)) << err;
    EXPECT_EQ(db->checksums_taken(), taken + 1);
    EXPECT_EQ(stored.rows(), rows);
    EXPECT_EQ(SqliteRef::checksum(stored), sum);
    // And that is the engine's checksum of the same query.
    ASSERT_TRUE(k.run(pq.text).ok);
    EXPECT_EQ(k.last_report().stats.checksum, sum);
    EXPECT_EQ(k.last_report().stats.rows_out, rows);
  }
}

// execute_text, the (a) row's SQLite run (a statement prepared and finalized
// from its text every call), stores the rows a prepared statement does, and
// says SQLite's error for text that does not prepare.
TEST(SqliteRef, FromItsTextStoresWhatThePreparedStatementDoes) {
  auto db = SqliteRef::open(210, false, false);
  ASSERT_NE(db, nullptr);
  for (const PaperQuerySpec& pq : paper_queries()) {
    if (pq.keyed) continue;
    SCOPED_TRACE(pq.id);
    const std::string sql = SqliteRef::sql_for(pq.id[0]);
    SqliteRows prepared, from_text;
    std::string err;
    ASSERT_TRUE(db->execute(sql, &prepared, &err)) << err;
    ASSERT_TRUE(db->execute_text(sql, &from_text, &err)) << err;
    EXPECT_EQ(from_text.rows(), prepared.rows());
    EXPECT_EQ(SqliteRef::checksum(from_text), SqliteRef::checksum(prepared));
  }
  SqliteRows none;
  std::string err;
  EXPECT_FALSE(db->execute_text("SELECT FROM WHERE", &none, &err));
  EXPECT_NE(err.find("syntax error"), std::string::npos) << err;
}

// The paper's measurement of a query: SQLite's cell agrees with the back
// end's (rows and checksum), and however many repetitions were timed, one
// checksum was taken: the timed runs computed none.
TEST(SqliteRef, TimedRunsTakeNoChecksum) {
  Kit k("interp:switch", harness::OutFormat::None);
  k.add_parts(210);
  ASSERT_TRUE(k.run("range of p is parts range of q is parts").ok);
  auto db = SqliteRef::open(210, false, false);
  ASSERT_NE(db, nullptr);
  const PaperQuerySpec* d = nullptr;
  for (const PaperQuerySpec& pq : paper_queries())
    if (pq.id[0] == 'd') d = &pq;
  ASSERT_NE(d, nullptr);
  PaperRunOptions po;
  po.timing.reps = 4;
  po.timing.min_seconds = 0.001;
  po.cold_runs = 1;
  Row row;
  bool mismatch = false;
  std::string err;
  ASSERT_TRUE(measure_query(k.session(), *d, 210, harness::Structure::Heap, db.get(), po, &row, &mismatch, &err))
      << err;
  EXPECT_FALSE(mismatch) << err;
  const Cell* s = row.find(CellKind::Sqlite);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rows, row.cells[0].rows);
  EXPECT_EQ(s->checksum, row.cells[0].checksum);
  EXPECT_EQ(s->m.reps, 4);
  EXPECT_EQ(db->checksums_taken(), 1u) << "a timed run computed a checksum";
}

}  // namespace
}  // namespace quelkit::test
