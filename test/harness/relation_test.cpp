// Storage structures: page layout, heap/ISAM/hash placement and the access
// paths. Every lookup and range is checked against the one thing that cannot
// be wrong: a full scan filtered by the key, in the same order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "storage/budget.h"
#include "storage/page.h"
#include "storage/relation.h"
#include "runtime/runtime_inline.h"

namespace quelkit::test {
namespace {

using namespace harness;

// (k = key type, v = i4 serial) so every tuple is distinguishable.
Schema kv_schema(Type key) { return Schema::packed({{"k", key}, {"v", Type::i4()}, {"pad", Type::c(10)}}); }

std::vector<uint8_t> kv_tuple(const Schema& s, const std::string& key_chars, int64_t ki, double kf, int32_t v) {
  std::vector<uint8_t> t(s.tuple_len, ' ');
  Type kt = s.attrs[0].type;
  switch (kt.kind) {
    case Tk::I1: store<int8_t>(t.data(), int8_t(ki)); break;
    case Tk::I2: store<int16_t>(t.data(), int16_t(ki)); break;
    case Tk::I4: store<int32_t>(t.data(), int32_t(ki)); break;
    case Tk::F4: store<float>(t.data(), float(kf)); break;
    case Tk::F8: store<double>(t.data(), kf); break;
    case Tk::C: std::memcpy(t.data(), key_chars.data(), std::min<size_t>(key_chars.size(), kt.len)); break;
    default: break;
  }
  store<int32_t>(t.data() + s.attrs[1].offset, v);
  return t;
}

int32_t serial(const Relation& r, const uint8_t* t) { return load<int32_t>(t + r.schema().attrs[1].offset); }

struct Hit {
  Tid tid;
  int32_t v;
  friend bool operator==(const Hit& a, const Hit& b) { return a.tid == b.tid && a.v == b.v; }
};

// Live tuples of the pages scan_pages yields for b, in that order.
std::vector<Hit> fetched(const Relation& r, const KeyBounds& b) {
  std::vector<Hit> out;
  r.scan_pages(b, [&](uint32_t p) {
    const uint8_t* pg = r.page(p);
    for (uint16_t i = 0; i < page_nlines(pg); ++i)
      if (page_line(pg, i)) out.push_back({Tid{p, i}, serial(r, pg + page_line(pg, i))});
    return true;
  });
  return out;
}

template <class Pred>
std::vector<Hit> only(const Relation& r, std::vector<Hit> hits, Pred keep) {
  std::vector<Hit> out;
  for (const Hit& h : hits)
    if (keep(r.key_of(r.tuple(h.tid)))) out.push_back(h);
  return out;
}

std::vector<Hit> full(const Relation& r) {
  std::vector<Hit> out;
  r.for_each([&](Tid t, const uint8_t* tp) { out.push_back({t, serial(r, tp)}); });
  return out;
}

std::multiset<std::vector<uint8_t>> bag(const Relation& r) {
  std::multiset<std::vector<uint8_t>> m;
  r.for_each([&](Tid, const uint8_t* t) { m.insert(std::vector<uint8_t>(t, t + r.tuple_len())); });
  return m;
}

KeyVal ik(int64_t i) {
  KeyVal k;
  k.i = i;
  return k;
}

// Checks every Eq and every Range (all bound kinds) over integer keys lo..hi
// (range ends every `step` keys, to keep wide spans quick).
void check_int_paths(const Relation& r, int lo, int hi, int step = 1) {
  const auto all = full(r);
  ASSERT_EQ(fetched(r, KeyBounds{}), all);
  for (int k = lo; k <= hi; ++k) {
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo = ik(k);
    auto want = only(r, all, [&](const KeyVal& x) { return x.i == k; });
    EXPECT_EQ(only(r, fetched(r, b), [&](const KeyVal& x) { return x.i == k; }), want) << "eq " << k;
  }
  for (int a = lo; a <= hi; a += step)
    for (int z = a; z <= hi; z += step)
      for (int mask = 0; mask < 16; ++mask) {
        KeyBounds b;
        b.kind = KeyBounds::Range;
        b.has_lo = mask & 1, b.has_hi = mask & 2, b.lo_incl = mask & 4, b.hi_incl = mask & 8;
        b.lo = ik(a), b.hi = ik(z);
        auto in = [&](const KeyVal& x) {
          if (b.has_lo && (b.lo_incl ? x.i < a : x.i <= a)) return false;
          if (b.has_hi && (b.hi_incl ? x.i > z : x.i >= z)) return false;
          return true;
        };
        EXPECT_EQ(only(r, fetched(r, b), in), only(r, all, in)) << "range " << a << ".." << z << " " << mask;
      }
}

TEST(Page, TuplesPerPage) {
  EXPECT_EQ(tuples_per_page(1024, 34), 28u);
  EXPECT_EQ(tuples_per_page(1024, 200), 5u);
  Relation r("r", kv_schema(Type::i4()), 1024);
  EXPECT_EQ(r.tuples_per_page(), (1024u - 12) / (18 + 2));
}

TEST(Heap, AppendsPagesAndWritesTheDocumentedHeader) {
  Schema s = kv_schema(Type::i4());  // 18 bytes: 50 per 1024-byte page
  Relation r("r", s);
  EXPECT_EQ(r.npages(), 0u);
  for (int i = 0; i < 120; ++i) {
    Tid t = r.insert(kv_tuple(s, "", i, 0, i).data());
    EXPECT_EQ(t.page, uint32_t(i / 50));
    EXPECT_EQ(t.line, uint16_t(i % 50));
  }
  EXPECT_EQ(r.npages(), 3u);
  EXPECT_EQ(r.nprimary(), 3u);
  EXPECT_EQ(r.noverflow(), 0u);
  EXPECT_EQ(r.ntuples(), 120u);
  for (uint32_t p = 0; p < 3; ++p) {
    const uint8_t* pg = r.page(p);
    EXPECT_EQ(page_next(pg), kNoPage);
    EXPECT_EQ(load<uint32_t>(pg + kPageOffSelf), p);
    EXPECT_EQ(load<uint16_t>(pg + kPageOffFlags), 0);
    EXPECT_EQ(page_nlines(pg), p < 2 ? 50 : 20);
    // Tuples grow down from the page end, line i at a fixed place.
    EXPECT_EQ(page_line(pg, 0), 1024 - 18);
    EXPECT_EQ(page_line(pg, 1), 1024 - 2 * 18);
  }
  int want = 0;
  r.for_each([&](Tid, const uint8_t* t) { EXPECT_EQ(serial(r, t), want++); });
  EXPECT_EQ(want, 120);
}

TEST(Heap, EraseAndOverwrite) {
  Schema s = kv_schema(Type::i4());
  Relation r("r", s);
  std::vector<Tid> tids;
  for (int i = 0; i < 60; ++i) tids.push_back(r.insert(kv_tuple(s, "", i, 0, i).data()));
  r.erase(tids[3]);
  r.erase(tids[55]);
  r.erase(tids[55]);  // twice counts once
  EXPECT_EQ(r.ntuples(), 58u);
  EXPECT_EQ(page_line(r.page(0), 3), 0);
  r.overwrite(tids[10], kv_tuple(s, "", 10, 0, 1000).data());
  std::vector<int32_t> seen;
  r.for_each([&](Tid, const uint8_t* t) { seen.push_back(serial(r, t)); });
  ASSERT_EQ(seen.size(), 58u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 3), 0);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 55), 0);
  EXPECT_EQ(seen[9], 1000);  // serial 10 was the tenth survivor (3 is gone)
  // Deleted lines are not reused: a new tuple still goes to the end.
  Tid t = r.insert(kv_tuple(s, "", 99, 0, 99).data());
  EXPECT_EQ(t.page, 1u);
  EXPECT_EQ(t.line, 10);
  EXPECT_EQ(r.ntuples(), 59u);
}

TEST(Heap, RejectsTuplesThatDoNotFitAPage) {
  Schema s = Schema::packed({{"a", Type::c(255)}, {"b", Type::c(255)}, {"c", Type::c(255)},
                             {"d", Type::c(255)}, {"e", Type::c(255)}});
  EXPECT_THROW(Relation("r", s, 1024), std::invalid_argument);
  EXPECT_NO_THROW(Relation("r", s, 2048));
}

TEST(Isam, SortsStablyFillsToTheFillfactorAndBuildsTheDirectory) {
  Schema s = kv_schema(Type::i4());  // tpp 50
  Relation r("r", s);
  // Keys 9..0 repeated: equal keys keep their heap order (serials increase).
  for (int i = 0; i < 200; ++i) r.insert(kv_tuple(s, "", 9 - i % 10, 0, i).data());
  uint64_t v0 = r.version();
  r.modify(Structure::Isam, 0, 30);  // fill 15 per page
  EXPECT_GT(r.version(), v0);
  EXPECT_EQ(r.structure(), Structure::Isam);
  EXPECT_EQ(r.fillfactor(), 30);
  EXPECT_EQ(r.key_attr(), 0);
  EXPECT_EQ(r.nprimary(), 14u);  // ceil(200 / 15)
  EXPECT_EQ(r.noverflow(), 0u);
  int64_t prev_k = -1;
  int32_t prev_v = -1;
  r.for_each([&](Tid, const uint8_t* t) {
    int64_t k = r.key_of(t).i;
    int32_t v = serial(r, t);
    ASSERT_GE(k, prev_k);
    if (k == prev_k) {
      EXPECT_GT(v, prev_v);
    }
    prev_k = k, prev_v = v;
  });
  for (uint32_t p = 0; p < 13; ++p) EXPECT_EQ(page_nlines(r.page(p)), 15);
  EXPECT_EQ(page_nlines(r.page(13)), 200 - 13 * 15);

  // Default fillfactor is 100.
  r.modify(Structure::Isam, 0, 0);
  EXPECT_EQ(r.fillfactor(), 100);
  EXPECT_EQ(r.nprimary(), 4u);
}

TEST(Isam, LookupsAndRangesMatchAFilteredFullScan) {
  Schema s = kv_schema(Type::i4());
  // A 232-byte page holds 11 tuples: equal keys (20 of each) span pages.
  Relation r("r", s, 232);
  ASSERT_EQ(r.tuples_per_page(), 11u);
  for (int i = 0; i < 100; ++i) r.insert(kv_tuple(s, "", (i * 7) % 5 * 2, 0, i).data());  // keys 0,2,4,6,8
  r.modify(Structure::Isam, 0, 100);
  EXPECT_EQ(r.nprimary(), 10u);
  EXPECT_EQ(r.noverflow(), 0u);
  check_int_paths(r, -2, 10);

  // Inserts: below every key (page 0), between keys, equal to a key that
  // spans pages, above every key; enough of them to make multi-page chains.
  int serial_no = 1000;
  for (int round = 0; round < 25; ++round)
    for (int k : {-1, 0, 3, 4, 9, 12}) r.insert(kv_tuple(s, "", k, 0, serial_no++).data());
  EXPECT_EQ(r.ntuples(), 250u);
  EXPECT_EQ(r.nprimary(), 10u);
  EXPECT_GT(r.noverflow(), 10u);
  // Overflow pages carry the flag and are reached only through chains.
  uint32_t flagged = 0;
  for (uint32_t p = 0; p < r.npages(); ++p) {
    EXPECT_EQ(load<uint32_t>(r.page(p) + kPageOffSelf), p);
    flagged += load<uint16_t>(r.page(p) + kPageOffFlags) & 1;
  }
  EXPECT_EQ(flagged, r.noverflow());
  EXPECT_EQ(full(r).size(), 250u);
  check_int_paths(r, -2, 13);

  // Erased tuples vanish from lookups too.
  auto all = full(r);
  for (size_t i = 0; i < all.size(); i += 3) r.erase(all[i].tid);
  check_int_paths(r, -2, 13);
}

TEST(Isam, InsertsGoToThePagesOverflowChainInOrder) {
  Schema s = kv_schema(Type::i4());
  Relation r("r", s, 232);  // 11 per page
  for (int i = 0; i < 33; ++i) r.insert(kv_tuple(s, "", i, 0, i).data());
  r.modify(Structure::Isam, 0, 0);
  ASSERT_EQ(r.nprimary(), 3u);
  // 23 keys for the middle page (first key 11): two full overflow pages + 1.
  for (int i = 0; i < 23; ++i) r.insert(kv_tuple(s, "", 15, 0, 100 + i).data());
  EXPECT_EQ(r.noverflow(), 3u);
  uint32_t p = page_next(r.page(1));
  std::vector<uint16_t> counts;
  while (p != kNoPage) {
    EXPECT_EQ(load<uint16_t>(r.page(p) + kPageOffFlags), 1);
    counts.push_back(page_nlines(r.page(p)));
    p = page_next(r.page(p));
  }
  EXPECT_EQ(counts, (std::vector<uint16_t>{11, 11, 1}));
  EXPECT_EQ(page_next(r.page(0)), kNoPage);
  EXPECT_EQ(page_next(r.page(2)), kNoPage);
  // Scan order: page 0, page 1, its chain, page 2.
  std::vector<int32_t> order;
  r.for_each([&](Tid, const uint8_t* t) { order.push_back(serial(r, t)); });
  ASSERT_EQ(order.size(), 56u);
  EXPECT_EQ(order[21], 21);
  EXPECT_EQ(order[22], 100);
  EXPECT_EQ(order[44], 122);
  EXPECT_EQ(order[45], 22);
}

// pages_within (what a scan's outlook says it will visit) counts the primary
// pages scan_pages walks, for ranges of every shape, on a heap, ISAM and hash.
TEST(Isam, PagesWithinCountsThePagesAScanVisits) {
  Schema s = kv_schema(Type::i4());  // tpp 50
  Relation r("r", s);
  for (int i = 0; i < 1000; ++i) r.insert(kv_tuple(s, "", i, 0, i).data());
  EXPECT_EQ(r.pages_within(KeyBounds{}), r.npages());  // heap
  r.modify(Structure::Isam, 0, 0);
  ASSERT_EQ(r.noverflow(), 0u);
  auto walked = [&](const KeyBounds& b) {
    uint64_t n = 0;
    r.scan_pages(b, [&](uint32_t) { return ++n, true; });
    return n;
  };
  for (int lo : {-5, 0, 49, 50, 51, 499, 990}) {
    for (int hi : {-1, 0, 49, 50, 100, 501, 999, 5000}) {
      for (bool incl : {true, false}) {
        KeyBounds b;
        b.kind = KeyBounds::Range;
        b.has_lo = b.has_hi = true;
        b.lo.i = lo;
        b.hi.i = hi;
        b.hi_incl = incl;
        EXPECT_EQ(r.pages_within(b), std::max<uint64_t>(walked(b), 1)) << lo << ".." << hi << " " << incl;
        // And the walk is the range's pages, not more: keys 0..999 sorted 50
        // to a page, [lo, hi] lies on pages lo/50 .. hi/50; the walk may start
        // one page early (a key equal to lo could end the page before).
        const int first = std::clamp(lo, 0, 999) / 50, last = std::clamp(hi, 0, 999) / 50;
        if (lo <= hi && hi >= 0 && lo <= 999) {
          EXPECT_LE(walked(b), uint64_t(last - first + 2)) << lo << ".." << hi << " " << incl;
        }
        b.has_lo = false;
        EXPECT_EQ(r.pages_within(b), std::max<uint64_t>(walked(b), 1)) << ".." << hi;
        if (hi >= 0) {
          EXPECT_LE(walked(b), uint64_t(std::min(hi, 999) / 50 + 1)) << ".." << hi;
        }
      }
    }
    KeyBounds b;
    b.kind = KeyBounds::Range;
    b.has_lo = true;
    b.lo.i = lo;
    EXPECT_EQ(r.pages_within(b), walked(b)) << lo << "..";
    EXPECT_LE(walked(b), uint64_t(20 - std::max(lo, 0) / 50 + 1)) << lo << "..";
  }
  KeyBounds eq;
  eq.kind = KeyBounds::Eq;
  eq.lo.i = 70;
  EXPECT_EQ(r.pages_within(eq), 1u);
  EXPECT_EQ(r.pages_within(KeyBounds{}), r.npages());
  r.modify(Structure::Hash, 0, 0);
  EXPECT_EQ(r.pages_within(eq), 1u);
  EXPECT_EQ(r.pages_within(KeyBounds{}), r.npages());
}

TEST(Isam, CharAndFloatKeys) {
  {
    Schema s = kv_schema(Type::c(6));
    Relation r("r", s, 232);
    const char* names[] = {"bolt", "nut", "cam", "bolt  ", "nu", "", "nut", "z", "cam"};
    for (int i = 0; i < 90; ++i) r.insert(kv_tuple(s, names[i % 9], 0, 0, i).data());
    r.modify(Structure::Isam, 0, 0);
    for (int i = 0; i < 20; ++i) r.insert(kv_tuple(s, names[(i * 5) % 9], 0, 0, 500 + i).data());
    const auto all = full(r);
    for (std::string k : {"", "bolt", "cam", "nu", "nut", "z", "a", "zz", "bolt "}) {
      KeyBounds b;
      b.kind = KeyBounds::Eq;
      b.lo.s = k;
      std::string stripped(rt::strip(k));
      auto eq = [&](const KeyVal& x) { return x.s == stripped; };
      EXPECT_EQ(only(r, fetched(r, b), eq), only(r, all, eq)) << k;
    }
    KeyBounds b;
    b.kind = KeyBounds::Range;
    b.has_lo = b.has_hi = true;
    b.lo.s = "c";
    b.hi.s = "nut";
    b.hi_incl = false;
    auto in = [&](const KeyVal& x) { return x.s >= "c" && x.s < "nut"; };
    EXPECT_EQ(only(r, fetched(r, b), in), only(r, all, in));
    EXPECT_EQ(only(r, all, in).size(), 36u);  // cam x20 + nu x10 + 6 inserted
  }
  {
    Schema s = kv_schema(Type::f8());
    Relation r("r", s, 232);
    const double vals[] = {0.0, -0.0, 1.5, -2.25, 1e300, 1.5};
    for (int i = 0; i < 60; ++i) r.insert(kv_tuple(s, "", 0, vals[i % 6], i).data());
    r.modify(Structure::Isam, 0, 0);
    const auto all = full(r);
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo.f = -0.0;
    auto zero = [](const KeyVal& x) { return x.f == 0.0; };
    EXPECT_EQ(only(r, fetched(r, b), zero), only(r, all, zero));
    EXPECT_EQ(only(r, all, zero).size(), 20u);
  }
}

TEST(Hash, BucketsAndLookups) {
  Schema s = kv_schema(Type::i4());
  Relation r("r", s, 232);  // tpp 11; ff 50 -> 5 per bucket
  for (int i = 0; i < 103; ++i) r.insert(kv_tuple(s, "", i % 40, 0, i).data());
  r.modify(Structure::Hash, 0, 0);
  EXPECT_EQ(r.structure(), Structure::Hash);
  EXPECT_EQ(r.fillfactor(), 50);
  EXPECT_EQ(r.nprimary(), 21u);  // ceil(103 / 5)
  EXPECT_EQ(r.ntuples(), 103u);
  for (int round = 0; round < 10; ++round)
    for (int k = -3; k < 45; k += 4) r.insert(kv_tuple(s, "", k, 0, 1000 + round * 100 + k).data());
  EXPECT_GT(r.noverflow(), 0u);
  const auto all = full(r);
  for (int k = -5; k < 50; ++k) {
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo = ik(k);
    auto eq = [&](const KeyVal& x) { return x.i == k; };
    auto got = fetched(r, b);
    EXPECT_EQ(only(r, got, eq), only(r, all, eq)) << k;
    // A lookup reads one bucket's chain, not the relation.
    uint32_t bucket = uint32_t(quelkit::rt::mix64(uint64_t(int64_t(k))) % r.nprimary());
    uint32_t first = 0;
    r.scan_pages(b, [&](uint32_t p) { first = p; return false; });
    EXPECT_EQ(first, bucket) << k;
  }
  // Ranges cannot use a hash: every page.
  KeyBounds range;
  range.kind = KeyBounds::Range;
  range.has_lo = true;
  range.lo = ik(10);
  EXPECT_EQ(fetched(r, range), all);
}

TEST(Hash, FloatZeroAndCharBlanksHashAlike) {
  {
    Schema s = kv_schema(Type::f4());
    Relation r("r", s);
    for (int i = 0; i < 40; ++i) r.insert(kv_tuple(s, "", 0, i % 2 ? -0.0 : 0.0, i).data());
    r.modify(Structure::Hash, 0, 0);
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo.f = -0.0;
    EXPECT_EQ(fetched(r, b).size(), 40u);
  }
  {
    Schema s = kv_schema(Type::c(8));
    Relation r("r", s);
    for (int i = 0; i < 40; ++i) r.insert(kv_tuple(s, i % 2 ? "abc" : "abc     ", 0, 0, i).data());
    r.modify(Structure::Hash, 0, 0);
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo.s = "abc";
    EXPECT_EQ(fetched(r, b).size(), 40u);
    uint8_t abc[3] = {'a', 'b', 'c'};
    uint32_t bucket = uint32_t(quelkit::rt::mix64(quelkit::rt::fnv1a64(abc, 3, QK_FNV_OFFSET)) % r.nprimary());
    uint32_t first = kNoPage;
    r.scan_pages(b, [&](uint32_t p) { first = p; return false; });
    EXPECT_EQ(first, bucket);
  }
}

TEST(Modify, BetweenStructuresKeepsTheMultisetAndBumpsTheVersion) {
  Schema s = kv_schema(Type::i2());
  Relation r("r", s, 512);
  for (int i = 0; i < 500; ++i) r.insert(kv_tuple(s, "", (i * 37) % 91 - 45, 0, i).data());
  const auto before = bag(r);
  std::vector<uint64_t> versions{r.version()};
  for (Structure st : {Structure::Isam, Structure::Hash, Structure::Heap, Structure::Hash, Structure::Isam,
                       Structure::Heap}) {
    r.modify(st, 0, 0);
    EXPECT_EQ(r.structure(), st);
    EXPECT_EQ(bag(r), before) << structure_name(st);
    EXPECT_EQ(r.ntuples(), 500u);
    EXPECT_GT(r.version(), versions.back());
    versions.push_back(r.version());
    if (st == Structure::Heap) {
      EXPECT_EQ(r.key_attr(), -1);
      EXPECT_EQ(r.noverflow(), 0u);
    }
  }
  // Erasures before a modify are dropped by it.
  auto all = full(r);
  for (size_t i = 0; i < all.size(); i += 2) r.erase(all[i].tid);
  r.modify(Structure::Isam, 0, 0);
  EXPECT_EQ(r.ntuples(), 250u);
  EXPECT_EQ(full(r).size(), 250u);
  check_int_paths(r, -46, 46, 5);
  // Inserts and erases leave the version alone; a new relation gets a new one.
  uint64_t v = r.version();
  r.insert(kv_tuple(s, "", 1, 0, 1).data());
  EXPECT_EQ(r.version(), v);
  Relation other("r", s);
  EXPECT_NE(other.version(), v);
}

TEST(Modify, EmptyRelations) {
  Schema s = kv_schema(Type::i4());
  Relation r("r", s);
  r.modify(Structure::Isam, 0, 0);
  EXPECT_EQ(r.nprimary(), 1u);
  EXPECT_EQ(r.ntuples(), 0u);
  r.insert(kv_tuple(s, "", 5, 0, 5).data());
  EXPECT_EQ(r.ntuples(), 1u);
  r.modify(Structure::Hash, 0, 0);
  EXPECT_EQ(r.nprimary(), 1u);
  EXPECT_EQ(full(r).size(), 1u);
  EXPECT_THROW(r.modify(Structure::Hash, 0, 101), std::invalid_argument);
  EXPECT_THROW(r.modify(Structure::Isam, 7, 0), std::invalid_argument);
}

// A Ctrl-C during an ISAM modify's sort ends it with "cancelled" and the
// relation as it was, byte for byte: the order is found before the pages go.
TEST(Modify, CancelledSortLeavesTheRelationAsItWas) {
  Schema s = kv_schema(Type::i4());
  Relation r("r", s);
  for (int i = 0; i < 3000; ++i) r.insert(kv_tuple(s, "", (i * 7919) % 3000, 0, i).data());
  r.modify(Structure::Hash, 0, 0);
  std::vector<uint8_t> pages;
  for (uint32_t p = 0; p < r.npages(); ++p) pages.insert(pages.end(), r.page(p), r.page(p) + r.page_size());
  const uint64_t version = r.version();
  request_cancel();
  int32_t code = 0;
  try {
    r.modify(Structure::Isam, 0, 0);
  } catch (QuelError& e) {
    code = e.err.code;
  }
  clear_cancel();
  EXPECT_EQ(code, QK_ERR_CANCELLED);
  EXPECT_EQ(r.structure(), Structure::Hash);
  EXPECT_EQ(r.version(), version);
  std::vector<uint8_t> after;
  for (uint32_t p = 0; p < r.npages(); ++p) after.insert(after.end(), r.page(p), r.page(p) + r.page_size());
  EXPECT_TRUE(after == pages);
  r.modify(Structure::Isam, 0, 0);  // and, uncancelled, it runs
  EXPECT_EQ(r.structure(), Structure::Isam);
  EXPECT_EQ(r.ntuples(), 3000u);
}

TEST(Relation, StructureNames) {
  EXPECT_STREQ(structure_name(Structure::Heap), "heap");
  EXPECT_STREQ(structure_name(Structure::Isam), "isam");
  EXPECT_STREQ(structure_name(Structure::Hash), "hash");
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {
using namespace harness;

// Every page's bytes, in page order: the whole state a scan can see.
std::vector<uint8_t> all_pages(const Relation& r) {
  std::vector<uint8_t> out;
  for (uint32_t p = 0; p < r.npages(); ++p) out.insert(out.end(), r.page(p), r.page(p) + r.page_size());
  return out;
}

// insert_all is one change: when the memory budget refuses a page part way
// through (append, copy from, a replace's moved keys), the relation is
// exactly as it was, byte for byte, and takes inserts again afterwards.
TEST(Relation, InsertAllThatFailsLeavesTheRelationAsItWas) {
  for (Structure st : {Structure::Heap, Structure::Isam, Structure::Hash}) {
    SCOPED_TRACE(structure_name(st));
    Schema s = kv_schema(Type::i4());  // tpp 50 on 1024-byte pages
    Relation r("r", s);
    for (int i = 0; i < 300; ++i) r.insert(kv_tuple(s, "", i * 7 % 300, 0, i).data());
    if (st != Structure::Heap) r.modify(st, 0, 0);
    const auto pages = all_pages(r);
    const uint64_t tuples = r.ntuples();
    const uint32_t primary = r.nprimary();
    // Room for a few more pages, not for the 2000 tuples' 40 or more.
    MemoryBudget& b = memory_budget();
    const uint64_t limit = b.limit();
    b.set_limit(b.used() + 4 * r.page_size());
    std::vector<std::vector<uint8_t>> more;
    for (int i = 0; i < 2000; ++i) more.push_back(kv_tuple(s, "", i % 400, 0, 1000 + i));
    bool refused = false;
    try {
      r.insert_all(more.size(), [&](size_t i) { return more[i].data(); });
    } catch (QuelError& e) {
      refused = e.err.code == QK_ERR_MEMORY;
    }
    b.set_limit(limit);
    ASSERT_TRUE(refused);
    EXPECT_EQ(r.ntuples(), tuples);
    EXPECT_EQ(r.nprimary(), primary);
    EXPECT_TRUE(all_pages(r) == pages);  // lines, next links and tuples
    // And the relation works on: the same inserts, with room, all land.
    r.insert_all(more.size(), [&](size_t i) { return more[i].data(); });
    EXPECT_EQ(r.ntuples(), tuples + more.size());
    EXPECT_EQ(full(r).size(), tuples + more.size());
    KeyBounds eq;
    eq.kind = KeyBounds::Eq;
    eq.lo.i = 399;  // only among the inserts: 5 of them, found through the key
    if (st != Structure::Heap) {
      EXPECT_EQ(only(r, fetched(r, eq), [](const KeyVal& k) { return k.i == 399; }).size(), 5u);
    }
  }
}

}  // namespace
}  // namespace quelkit::test
