// Keys of several domains and secondary indexes in storage: every lookup of
// a composite ISAM or hash key, and every index's entries, checked against
// a full scan filtered by the same keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "storage/index.h"
#include "storage/relation.h"
#include "runtime/runtime_inline.h"

namespace quelkit::test {
namespace {

using namespace harness;

// (a i2, b c4, v i4): v a serial, so every tuple is distinguishable.
Schema abv() { return Schema::packed({{"a", Type::i2()}, {"b", Type::c(4)}, {"v", Type::i4()}}); }

std::vector<uint8_t> tuple(const Schema& s, int a, const std::string& b, int v) {
  std::vector<uint8_t> t(s.tuple_len, ' ');
  store<int16_t>(t.data(), int16_t(a));
  std::memcpy(t.data() + s.attrs[1].offset, b.data(), std::min<size_t>(b.size(), 4));
  store<int32_t>(t.data() + s.attrs[2].offset, v);
  return t;
}

int a_of(const Relation& r, const uint8_t* t) { return load<int16_t>(t + r.schema().attrs[0].offset); }
std::string b_of(const Relation& r, const uint8_t* t) {
  const uint8_t* p = t + r.schema().attrs[1].offset;
  return std::string(reinterpret_cast<const char*>(p), rt::strip(p, 4));
}
int v_of(const Relation& r, const uint8_t* t) { return load<int32_t>(t + r.schema().attrs[2].offset); }

// 300 tuples, a in 0..9, b one of four strings (one with a trailing blank).
Relation filled(uint32_t page_size = 128) {
  Relation r("r", abv(), page_size);
  const char* bs[] = {"x", "y", "y ", "zz"};
  for (int i = 0; i < 300; ++i) {
    auto t = tuple(r.schema(), (i * 7) % 10, bs[(i * 13) % 4], i);
    r.insert(t.data());
  }
  return r;
}

// Serials of the live tuples on the pages scan_pages gives for b.
std::vector<int> fetched(const Relation& r, const KeyBounds& b) {
  std::vector<int> out;
  r.scan_pages(b, [&](uint32_t p) {
    const uint8_t* pg = r.page(p);
    for (uint16_t i = 0; i < page_nlines(pg); ++i)
      if (page_line(pg, i)) out.push_back(v_of(r, pg + page_line(pg, i)));
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

template <class Pred>
std::vector<int> filtered(const Relation& r, Pred pred) {
  std::vector<int> out;
  r.for_each([&](Tid, const uint8_t* t) {
    if (pred(t)) out.push_back(v_of(r, t));
  });
  std::sort(out.begin(), out.end());
  return out;
}

// Whether every element of `want` is in `got` (a lookup's pages hold what
// the key names, and perhaps more: the qualification still runs).
bool covers(const std::vector<int>& got, const std::vector<int>& want) {
  return std::includes(got.begin(), got.end(), want.begin(), want.end());
}

KeyVal key2(int a, const std::string& b) {
  KeyVal k;
  k.i = a;
  KeyVal r;
  r.s = b;
  k.rest.push_back(r);
  return k;
}

TEST(CompositeKey, IsamSortsDomainByDomain) {
  Relation r = filled();
  r.modify(Structure::Isam, std::vector<int>{0, 1}, 0);
  EXPECT_EQ(r.key_attrs(), (std::vector<int>{0, 1}));
  EXPECT_EQ(r.key_attr(), 0);
  // The scan order is sorted on (a, b), trailing blanks not counting.
  int last_a = -1;
  std::string last_b;
  r.for_each([&](Tid, const uint8_t* t) {
    const int a = a_of(r, t);
    const std::string b = b_of(r, t);
    EXPECT_TRUE(a > last_a || (a == last_a && b >= last_b)) << a << " " << b << " after " << last_a << " " << last_b;
    last_a = a, last_b = b;
  });
}

TEST(CompositeKey, IsamPrefixAndFirstDomainRangeMatchAFilteredScan) {
  Relation r = filled();
  r.modify(Structure::Isam, std::vector<int>{0, 1}, 0);
  for (int a = -1; a <= 10; ++a)
    for (const char* b : {"x", "y", "zz", "q"}) {
      KeyBounds eq;
      eq.kind = KeyBounds::Eq;
      eq.lo = key2(a, b);
      eq.has_lo = true;
      const auto want = filtered(r, [&](const uint8_t* t) { return a_of(r, t) == a && b_of(r, t) == b; });
      EXPECT_TRUE(covers(fetched(r, eq), want)) << a << " " << b;
      // Fewer pages than the first domain alone where the second narrows it.
      KeyBounds first;
      first.kind = KeyBounds::Eq;
      first.lo.i = a;
      first.has_lo = true;
      EXPECT_LE(r.pages_within(eq), r.pages_within(first));
      EXPECT_TRUE(covers(fetched(r, first), filtered(r, [&](const uint8_t* t) { return a_of(r, t) == a; })));
    }
  KeyBounds range;
  range.kind = KeyBounds::Range;
  range.lo.i = 3;
  range.has_lo = true;
  range.hi.i = 5;
  range.has_hi = true;
  range.hi_incl = false;
  EXPECT_TRUE(covers(fetched(r, range), filtered(r, [&](const uint8_t* t) { return a_of(r, t) >= 3 && a_of(r, t) < 5; })));
  EXPECT_LT(r.pages_within(range), r.npages());
}

TEST(CompositeKey, HashBucketsOnEveryDomainAndInsertsFindTheirBucket) {
  Relation r = filled();
  r.modify(Structure::Hash, std::vector<int>{0, 1}, 0);
  // Later inserts land in the bucket a lookup of their whole key visits.
  for (int i = 300; i < 340; ++i) {
    auto t = tuple(r.schema(), i % 10, "y", i);
    r.insert(t.data());
  }
  for (int a = 0; a < 10; ++a)
    for (const char* b : {"x", "y", "y ", "zz"}) {
      KeyBounds eq;
      eq.kind = KeyBounds::Eq;
      eq.lo = key2(a, b);
      eq.has_lo = true;
      const std::string bs = std::string(b).substr(0, std::string(b).find_last_not_of(' ') + 1);
      EXPECT_TRUE(covers(fetched(r, eq),
                         filtered(r, [&](const uint8_t* t) { return a_of(r, t) == a && b_of(r, t) == bs; })))
          << a << " " << b;
    }
  // The second domain moves the bucket: not every (a, *) shares a's.
  std::set<uint32_t> buckets;
  for (const char* b : {"x", "y", "zz"}) {
    KeyBounds eq;
    eq.kind = KeyBounds::Eq;
    eq.lo = key2(1, b);
    eq.has_lo = true;
    r.scan_pages(eq, [&](uint32_t p) {
      buckets.insert(p);
      return false;
    });
  }
  EXPECT_GT(buckets.size(), 1u);
}

TEST(SecondaryIndex, EntriesNameEveryLiveTupleAndFollowChanges) {
  Relation r = filled();
  r.modify(Structure::Isam, std::vector<int>{2}, 0);  // clustered on v: the index is not
  auto idx = build_index(r, "ri", {1, 0});
  EXPECT_EQ(idx->structure(), Structure::Isam);
  EXPECT_EQ(idx->key_attrs(), (std::vector<int>{0, 1}));
  ASSERT_EQ(idx->schema().attrs.size(), 3u);
  EXPECT_EQ(idx->schema().attrs[0].name, "b");
  EXPECT_EQ(idx->schema().attrs[2].name, "tidp");
  auto check = [&] {
    EXPECT_EQ(idx->ntuples(), r.ntuples());
    // Each entry's tidp names a live base tuple with the entry's values.
    std::vector<int> seen;
    idx->for_each([&](Tid, const uint8_t* e) {
      const Tid t = tid_of(r, load<int32_t>(e + idx->schema().attrs[2].offset));
      const uint8_t* bt = r.tuple(t);
      EXPECT_EQ(load<int16_t>(e + idx->schema().attrs[1].offset), a_of(r, bt));
      seen.push_back(v_of(r, bt));
    });
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, filtered(r, [](const uint8_t*) { return true; }));
  };
  check();
  const uint64_t before = r.change_stamp();
  // Changes move the stamp; refresh rebuilds; no change, no rebuild.
  std::vector<Tid> tids;
  r.for_each([&](Tid t, const uint8_t* tp) {
    if (v_of(r, tp) % 3 == 0) tids.push_back(t);
  });
  for (const Tid t : tids) r.erase(t);
  auto t = tuple(r.schema(), 4, "new", 1000);
  r.insert(t.data());
  EXPECT_NE(r.change_stamp(), before);
  refresh_index(r, *idx);
  check();
  const uint64_t version = idx->version();
  refresh_index(r, *idx);
  EXPECT_EQ(idx->version(), version);
  // A copy has its original's stamp (same tuples); a change of either then differs.
  Relation copy = r;
  EXPECT_EQ(copy.change_stamp(), r.change_stamp());
  copy.insert(t.data());
  r.insert(t.data());
  EXPECT_NE(copy.change_stamp(), r.change_stamp());
}

TEST(SecondaryIndex, KeyWithinComparesTheBoundsPrefix) {
  Relation r = filled();
  auto idx = build_index(r, "ri", {0, 1});
  KeyBounds eq;
  eq.kind = KeyBounds::Eq;
  eq.lo.i = 3;
  eq.has_lo = true;
  EXPECT_TRUE(key_within(*idx, key2(3, "x"), eq));
  EXPECT_FALSE(key_within(*idx, key2(4, "x"), eq));
  eq.lo = key2(3, "y");
  EXPECT_TRUE(key_within(*idx, key2(3, "y"), eq));
  EXPECT_FALSE(key_within(*idx, key2(3, "x"), eq));
  KeyBounds range;
  range.kind = KeyBounds::Range;
  range.lo.i = 2;
  range.has_lo = true;
  range.lo_incl = false;
  range.hi.i = 5;
  range.has_hi = true;
  EXPECT_FALSE(key_within(*idx, key2(2, "zz"), range));
  EXPECT_TRUE(key_within(*idx, key2(3, "x"), range));
  EXPECT_TRUE(key_within(*idx, key2(5, "zz"), range));
  EXPECT_FALSE(key_within(*idx, key2(6, "x"), range));
}

}  // namespace
}  // namespace quelkit::test
