// The stored result (engine/result_rows.h): rows kept in result order across
// chunks, chunks reused from the pool, and a result larger than the memory
// budget as the statement error "memory budget exceeded" on every back end,
// with the session intact. Also: the checksum is taken off the clock
// (verify_ns), is the same whether the rows are kept or not, and is not taken
// at all with verification off.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "storage/budget.h"
#include "engine/result_rows.h"
#include "support.h"

namespace quelkit::test {
namespace {

TEST(ResultRows, RowsStayInOrderAcrossChunks) {
  harness::ResultRows rows(12);
  uint8_t row[12];
  // Enough rows for several chunks (16 KiB doubling), written the way the
  // scan writes them: room for a page's rows, then a commit of fewer.
  uint32_t next = 0;
  while (next < 20000) {
    size_t cap = 0;
    uint8_t* at = rows.room(28, &cap);
    ASSERT_GE(cap, 28u);
    for (uint32_t i = 0; i < 20; ++i, ++next) {
      std::memset(row, 0, sizeof row);
      std::memcpy(row, &next, sizeof next);
      std::memcpy(at + i * 12, row, 12);
    }
    rows.commit(20);
  }
  ASSERT_EQ(rows.size(), 20000u);
  for (uint32_t i = 0; i < 20000; i += 997) {
    uint32_t v;
    std::memcpy(&v, rows.row(i), sizeof v);
    EXPECT_EQ(v, i);
  }
  uint32_t seen = 0;
  rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      uint32_t v;
      std::memcpy(&v, run + i * 12, sizeof v);
      EXPECT_EQ(v, seen++);
    }
  });
  EXPECT_EQ(seen, 20000u);
}

TEST(ResultRows, ChunksComeBackFromThePool) {
  harness::trim_result_pool();
  const uint8_t* first = nullptr;
  {
    harness::ResultRows a(8);
    size_t cap = 0;
    first = a.room(1, &cap);
  }
  // Without the pool the chunk would go back to malloc, which would hand it
  // to the next allocation of its size and alignment: hold one of each
  // pooled size meanwhile, so that only the pool can give it back to b.
  std::vector<void*> held;
  for (size_t bytes = size_t(1) << 14; bytes <= size_t(1) << 20; bytes <<= 1)
    held.push_back(::operator new(bytes, std::align_val_t{64}));
  harness::ResultRows b(8);
  size_t cap = 0;
  EXPECT_EQ(b.room(1, &cap), first);  // the same memory: no page faults again
  size_t bytes = size_t(1) << 14;
  for (void* h : held) ::operator delete(h, bytes, std::align_val_t{64}), bytes <<= 1;
}

class ResultBudget : public ::testing::TestWithParam<std::string> {};

TEST_P(ResultBudget, ALargerResultIsAStatementError) {
  harness::MemoryBudget& mb = harness::memory_budget();
  const uint64_t limit = mb.limit();
  Kit k(GetParam(), harness::OutFormat::None);
  k.add_parts(20000);
  // Room for the relation, not for a result of every tuple's name.
  mb.set_limit(mb.used() + 256 * 1024);
  auto r = k.run("range of p is parts\nretrieve (p.pname, p.pnum, p.color)");
  mb.set_limit(limit);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("memory budget exceeded"), std::string::npos) << r.err;
  // The session goes on, and the same statement runs within the budget.
  r = k.run("range of p is parts\nretrieve (p.pname, p.pnum, p.color)");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.last_report().stats.rows_out, 20000u);
}

TEST_P(ResultBudget, TheChecksumIsTheSameWhetherRowsAreKeptOrNot) {
  Kit kept(GetParam(), harness::OutFormat::Csv), none(GetParam(), harness::OutFormat::None);
  kept.add_parts(3360);
  none.add_parts(3360);
  const char* q = "range of p is parts\nretrieve (p.pname, p.pnum) where p.pnum > 3 or p.color = \"black\" sort by pnum";
  auto k = kept.run(q), n = none.run(q);
  ASSERT_TRUE(k.ok && n.ok) << k.err << n.err;
  // The row count from the generator's rows, not from either session.
  uint64_t want = 0;
  for (const auto& row : harness::parts_rows(3360)) want += row.pnum > 3 || std::string(row.color) == "black";
  EXPECT_EQ(kept.last_report().stats.rows_out, want);
  EXPECT_EQ(none.last_report().stats.rows_out, want);
  // One session printed its rows, the other none, and both took the checksum.
  EXPECT_NE(k.out.find(",3360\n"), std::string::npos) << k.out.substr(0, 200);
  EXPECT_EQ(n.out.find("3360"), std::string::npos) << n.out;
  EXPECT_NE(kept.last_report().stats.checksum, 0u);
  EXPECT_EQ(kept.last_report().stats.checksum, none.last_report().stats.checksum);
}

// Session::set_verify(false), the Wisconsin report's timed runs after the
// first: the rows are stored and counted, no checksum is taken; on again, the
// same statement has its checksum back.
TEST_P(ResultBudget, AStatementRunWithoutVerifyingTakesNoChecksum) {
  Kit k(GetParam(), harness::OutFormat::None);
  k.add_parts(3360);
  const char* q = "range of p is parts\nretrieve (p.pname, p.pnum) where p.pnum > 3 or p.color = \"black\"";
  ASSERT_TRUE(k.run(q).ok);
  const harness::StmtReport checked = k.last_report();
  ASSERT_NE(checked.stats.checksum, 0u);
  k.session().set_verify(false);
  ASSERT_TRUE(k.run(q).ok);
  EXPECT_EQ(k.last_report().stats.rows_out, checked.stats.rows_out);
  EXPECT_EQ(k.last_report().stats.checksum, 0u);
  EXPECT_EQ(k.last_report().stats.verify_ns, 0u);
  k.session().set_verify(true);
  ASSERT_TRUE(k.run(q).ok);
  EXPECT_EQ(k.last_report().stats.checksum, checked.stats.checksum);
}

TEST_P(ResultBudget, SortByOrdersAResultOfManyChunks) {
  Kit k(GetParam(), harness::OutFormat::Csv);
  k.add_parts(20000);
  auto r = k.run("range of p is parts\nretrieve (p.pnum, p.pname) sort by pnum:d");
  ASSERT_TRUE(r.ok) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);  // header
  long prev = 1L << 40, n = 0;
  while (std::getline(in, line) && !line.empty() && line[0] != '(') {
    long v = std::stol(line.substr(0, line.find(',')));
    EXPECT_LT(v, prev) << "row " << n;
    prev = v;
    ++n;
  }
  EXPECT_EQ(n, 20000);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ResultBudget, ::testing::ValuesIn(all_backend_modes()),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
