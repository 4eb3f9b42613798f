// Secondary indexes end to end through a Session, on every back end: the
// access path takes an index for = and ranges on its domains, fetches the
// base tuples it names (--stats' index pages and tuples fetched), answers
// as the full scan does, follows the base's changes, and plans made before
// an index was made or destroyed are made again.
#include <gtest/gtest.h>

#include "support.h"

namespace quelkit::test {
namespace {

class Indexes : public ::testing::TestWithParam<std::string> {};

// A heap of 2,000 tuples, u = 1999 - k (so u's order is not the pages'),
// and s one of seven strings.
void fill(Kit& k) {
  auto r = k.run(R"(
    create t (k = i4, u = i4, s = c4)
    range of t is t
  )");
  ASSERT_TRUE(r.ok) << r.err;
  std::string appends;
  for (int i = 0; i < 2000; ++i)
    appends += "append to t (k = " + std::to_string(i) + ", u = " + std::to_string(1999 - i) + ", s = \"s" +
               std::to_string(i % 7) + "\")\n";
  r = k.run(appends);
  ASSERT_TRUE(r.ok) << r.err;
}

TEST_P(Indexes, LookupsAndRangesAnswerAsTheFullScanAndFollowChanges) {
  Kit k(GetParam());
  fill(k);
  const char* queries[] = {
      "retrieve (t.k) where t.u = 1500 sort by k",
      "retrieve (t.k) where t.u >= 100 and t.u < 120 sort by k",
      "retrieve (t.k) where t.s = \"s3\" and t.u > 1980 sort by k",
      "retrieve (n = count(t.k where t.u <= 19))",
  };
  std::vector<std::string> scans;
  for (const char* q : queries) {
    auto r = k.run(q);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(k.last_report().stats.index_pages, 0u);
    scans.push_back(r.out);
  }
  auto r = k.run("index on t is tu (u)");
  ASSERT_TRUE(r.ok) << r.err;
  for (size_t i = 0; i < std::size(queries); ++i) {
    r = k.run(queries[i]);
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.out, scans[i]) << queries[i];
    const auto& st = k.last_report().stats;
    EXPECT_NE(st.access_path.find("index tu key"), std::string::npos) << queries[i] << ": " << st.access_path;
    EXPECT_GT(st.index_pages, 0u) << queries[i];
    EXPECT_LT(st.rows_scanned, 100u) << queries[i];  // fetched, not scanned whole
  }
  r = k.run(queries[1]);
  EXPECT_EQ(k.last_report().stats.index_fetched, 20u);
  // Changes of the base show through the index.
  r = k.run("append to t (k = 5000, u = 1500, s = \"x\")  replace t (u = 1500) where t.k = 7  delete t where t.k = 499");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run(queries[0]);
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("k\n7\n5000\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n499\n"), std::string::npos) << r.out;
  // A modify of the base keeps it right too, and destroy of the index alone
  // leaves full scans with the same answers.
  r = k.run("modify t to hash on s");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run(queries[0]);
  EXPECT_NE(r.out.find("k\n7\n5000\n"), std::string::npos) << r.out;
  EXPECT_NE(k.last_report().stats.access_path.find("index tu key ="), std::string::npos);
  r = k.run("destroy tu");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run(queries[0]);
  EXPECT_NE(r.out.find("k\n7\n5000\n"), std::string::npos) << r.out;
  EXPECT_EQ(k.last_report().stats.access_path.find("index"), std::string::npos) << k.last_report().stats.access_path;
}

TEST_P(Indexes, UpdatesThroughAnIndexChangeTheBaseTuplesItNames) {
  Kit k(GetParam());
  fill(k);
  auto r = k.run("index on t is tu (u)  replace t (s = \"hit\") where t.u >= 10 and t.u < 13  delete t where t.u = 20");
  ASSERT_TRUE(r.ok) << r.err;
  r = k.run("retrieve (t.k) where t.s = \"hit\" sort by k");
  EXPECT_NE(r.out.find("k\n1987\n1988\n1989\n"), std::string::npos) << r.out;
  r = k.run("retrieve (n = count(t.k))");
  EXPECT_NE(r.out.find("1999"), std::string::npos) << r.out;
}

TEST_P(Indexes, DestroyOfTheRelationTakesItsIndexesAndAbortTakesBackAnIndex) {
  Kit k(GetParam());
  fill(k);
  auto r = k.run("begin  index on t is tk (k)  abort");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("tk"), nullptr);
  r = k.run("retrieve (t.u) where t.k = 3");  // a plan made with tk is made again
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("u\n1996\n"), std::string::npos) << r.out;
  r = k.run("index on t is tk (k)  index on t is ts (s, k)  destroy t");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("tk"), nullptr);
  EXPECT_EQ(k.session().catalog().find("ts"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, Indexes, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

}  // namespace
}  // namespace quelkit::test
