// The Wisconsin generator against DESIGN.md "The Wisconsin data": the
// schema's 208-byte layout, the string format, unique1 a permutation (its
// first values as the independent oracle computes them), every derived
// attribute from unique1/unique2, packed tuples, keyed setups and the
// --wisconsin spec. Byte-identical CSV with the oracle is in oracle_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "bench/workloads/wisconsin.h"

namespace quelkit::test {
namespace {

using namespace harness;

std::string xs(const std::string& head) { return head + std::string(52 - head.size(), 'X'); }

}  // namespace

TEST(Wisconsin, Schema) {
  Schema s = wisconsin_schema();
  EXPECT_EQ(s.tuple_len, 208u);
  const char* names[] = {"unique1", "unique2", "two", "four", "ten", "twenty", "hundred", "thousand",
                         "twothousand", "fivethousand", "tenthousand", "odd", "even",
                         "stringu1", "stringu2", "string4"};
  ASSERT_EQ(s.attrs.size(), 16u);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(s.attrs[i].name, names[i]);
    EXPECT_EQ(s.attrs[i].type, i < 13 ? Type::i4() : Type::c(52)) << names[i];
  }
}

TEST(Wisconsin, Strings) {
  EXPECT_EQ(wisconsin_string(0), xs("AAAAAAA"));
  EXPECT_EQ(wisconsin_string(1), xs("AAAAAAB"));
  EXPECT_EQ(wisconsin_string(25), xs("AAAAAAZ"));
  EXPECT_EQ(wisconsin_string(27), xs("AAAAABB"));
  EXPECT_EQ(wisconsin_string(999999), xs("AACEXHN"));  // 2*26^4 + 4*26^3 + 23*26^2 + 7*26 + 13
  EXPECT_EQ(wisconsin_string(2147483647), xs("GYTISYX"));
  EXPECT_EQ(wisconsin_string4(0), xs("AAAA"));
  EXPECT_EQ(wisconsin_string4(1), xs("HHHH"));
  EXPECT_EQ(wisconsin_string4(2), xs("OOOO"));
  EXPECT_EQ(wisconsin_string4(7), xs("VVVV"));
  // Unique and in numeric order, well past 26^3 (the study's three letters).
  std::string prev;
  for (uint32_t v : {0u, 1u, 17575u, 17576u, 17577u, 456975u, 456976u, 999999u, 1000000u}) {
    std::string s = wisconsin_string(v);
    EXPECT_EQ(s.size(), 52u);
    EXPECT_LT(prev, s) << v;
    prev = s;
  }
}

TEST(Wisconsin, Unique1IsTheOraclesPermutation) {
  // Values from test/oracle/oracle.py's wisconsin(n, seed).
  auto a = wisconsin_unique1(1000, 1983), b = wisconsin_unique1(1000, 1984), c = wisconsin_unique1(10000);
  EXPECT_EQ(std::vector<int32_t>(a.begin(), a.begin() + 6), (std::vector<int32_t>{974, 558, 839, 245, 858, 476}));
  EXPECT_EQ(std::vector<int32_t>(b.begin(), b.begin() + 6), (std::vector<int32_t>{382, 827, 549, 99, 125, 873}));
  EXPECT_EQ(std::vector<int32_t>(c.begin(), c.begin() + 6), (std::vector<int32_t>{5847, 5550, 8002, 8307, 9896, 7470}));
  EXPECT_EQ(a.back(), 962);
  for (auto* p : {&a, &b, &c}) {
    std::vector<int32_t> sorted = *p;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], int32_t(i));
  }
  EXPECT_EQ(wisconsin_unique1(1), std::vector<int32_t>{0});
  EXPECT_TRUE(wisconsin_unique1(0).empty());
}

TEST(Wisconsin, DerivedAttributesAndPackedTuples) {
  auto u1 = wisconsin_unique1(20000);
  auto rel = make_wisconsin(20000, Structure::Heap);
  const Schema& s = rel->schema();
  EXPECT_EQ(rel->ntuples(), 20000u);
  EXPECT_EQ(rel->tuples_per_page(), 4u);
  int32_t k = 0;
  rel->for_each([&](Tid, const uint8_t* t) {
    auto at = [&](int i) { return load<int32_t>(t + s.attrs[size_t(i)].offset); };
    auto str = [&](int i) { return std::string(reinterpret_cast<const char*>(t + s.attrs[size_t(i)].offset), 52); };
    int32_t v = u1[size_t(k)];
    ASSERT_EQ(at(0), v);
    ASSERT_EQ(at(1), k);
    int m = 2;
    for (int32_t mod : {2, 4, 10, 20, 100, 1000, 2000, 5000, 10000}) ASSERT_EQ(at(m++), v % mod) << mod;
    ASSERT_EQ(at(11), 2 * (v % 100) + 1);
    ASSERT_EQ(at(12), 2 * (v % 100));
    ASSERT_EQ(str(13), wisconsin_string(uint32_t(v)));
    ASSERT_EQ(str(14), wisconsin_string(uint32_t(k)));
    ASSERT_EQ(str(15), wisconsin_string4(uint64_t(k)));
    ++k;
  });
  EXPECT_EQ(k, 20000);
}

TEST(Wisconsin, KeyedOnUnique2) {
  for (Structure st : {Structure::Isam, Structure::Hash}) {
    auto r = make_wisconsin(1000, st, kDefaultPageSize, "onek");
    EXPECT_EQ(r->name(), "onek");
    EXPECT_EQ(r->structure(), st);
    EXPECT_EQ(r->key_attr(), 1);
    EXPECT_EQ(r->ntuples(), 1000u);
    // Built from all tuples at once: ISAM has no overflow pages (hash buckets may).
    if (st == Structure::Isam) {
      EXPECT_EQ(r->noverflow(), 0u);
    }
  }
}

TEST(Wisconsin, Specs) {
  WisconsinSpec w;
  std::string err;
  ASSERT_TRUE(parse_wisconsin_spec("study", &w, &err)) << err;
  ASSERT_EQ(w.relations.size(), 5u);
  EXPECT_EQ(w.s, Structure::Heap);
  const char* names[] = {"onek", "onek1", "onek2", "tenk1", "tenk2"};
  uint64_t rows[] = {1000, 1000, 1000, 10000, 10000}, seeds[] = {1983, 1983, 1984, 1983, 1984};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(w.relations[i].name, names[i]);
    EXPECT_EQ(w.relations[i].rows, rows[i]);
    EXPECT_EQ(w.relations[i].seed, seeds[i]);
  }
  ASSERT_TRUE(parse_wisconsin_spec("study:isam", &w, &err)) << err;
  EXPECT_EQ(w.s, Structure::Isam);

  ASSERT_TRUE(parse_wisconsin_spec("100000:hash", &w, &err)) << err;
  ASSERT_EQ(w.relations.size(), 1u);
  EXPECT_EQ(w.relations[0].name, "wisc");
  EXPECT_EQ(w.relations[0].rows, 100000u);
  EXPECT_EQ(w.relations[0].seed, 1983u);
  EXPECT_EQ(w.s, Structure::Hash);
  ASSERT_TRUE(parse_wisconsin_spec("Big_1=50:seed=7:heap", &w, &err)) << err;
  EXPECT_EQ(w.relations[0].name, "big_1");
  EXPECT_EQ(w.relations[0].rows, 50u);
  EXPECT_EQ(w.relations[0].seed, 7u);
  EXPECT_EQ(make_wisconsin(w).front()->ntuples(), 50u);

  for (const char* bad : {"", "abc", "study:seed=1", "study:wide", "10:wide", "10:seed=", "10:seed=x",
                          "1x=10", "=10", "a=", "2147483649"}) {
    err.clear();
    EXPECT_FALSE(parse_wisconsin_spec(bad, &w, &err)) << bad;
    EXPECT_NE(err.find("--wisconsin"), std::string::npos) << bad << ": " << err;
  }
}

}  // namespace quelkit::test
