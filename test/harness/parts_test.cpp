// The PARTS generator and the paper's page counts. The expected rows come from
// a splitmix64 written out here from DESIGN.md's definition, not from the
// generator under test, and the overflow count of the keyed setup is derived
// independently from the held-back keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/workloads/parts.h"
#include "runtime/runtime_inline.h"

namespace quelkit::test {
namespace {

using namespace harness;

struct RefRng {  // DESIGN.md's splitmix64, spelled out
  uint64_t s = 1981;
  uint64_t next() {
    s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

const char* kNames[] = {"processor", "bolt",  "nut",  "screw",  "washer", "gear",  "cam",
                        "cog",       "spring", "bearing", "shaft", "pulley", "valve", "gasket",
                        "piston",    "rotor", "sensor", "relay", "switch", "fuse"};
const char* kColors[] = {"red", "green", "blue", "white", "yellow", "gray", "brown"};

std::string chars(const uint8_t* p, size_t n) {
  return std::string(reinterpret_cast<const char*>(p), rt::strip(p, uint32_t(n)));
}

TEST(Parts, FirstDrawsAndRows) {
  SplitMix64 g;
  EXPECT_EQ(g.next(), 0x18c93304f1fb32b6ULL);  // computed by hand (oracle.py agrees)
  EXPECT_EQ(g.next(), 0x0b758247a881af31ULL);

  auto rows = parts_rows(500);
  ASSERT_EQ(rows.size(), 500u);
  EXPECT_EQ(rows[0].pname, "piston");
  EXPECT_EQ(rows[0].color, "yellow");
  EXPECT_EQ(rows[0].weight, 55);
  EXPECT_EQ(rows[0].qoh, 374);
  EXPECT_EQ(rows[2].pname, "valve");
  EXPECT_EQ(rows[2].color, "brown");
  EXPECT_EQ(rows[2].weight, 61);
  EXPECT_EQ(rows[2].qoh, 483);

  RefRng ref;
  int black = 0;
  for (const PartsRow& r : rows) {
    uint64_t a = ref.next(), b = ref.next(), c = ref.next(), d = ref.next();
    EXPECT_EQ(r.pname, kNames[a % 20]);
    EXPECT_EQ(r.color, b % 100 == 0 ? "black" : kColors[(b % 100) % 7]);
    EXPECT_EQ(r.weight, int(1 + c % 100));
    EXPECT_EQ(r.qoh, int(d % 500));
    black += r.color == "black";
  }
  EXPECT_EQ(rows.back().pnum, 500);
  EXPECT_GT(black, 0);
}

TEST(Parts, Schemas) {
  Schema n = parts_schema(3360, false), w = parts_schema(3360, true), big = parts_schema(40000, false);
  EXPECT_EQ(n.tuple_len, 34u);
  EXPECT_EQ(w.tuple_len, 200u);
  EXPECT_EQ(n.attrs[0].type, Type::i2());
  EXPECT_EQ(parts_schema(32767, false).attrs[0].type, Type::i2());
  EXPECT_EQ(parts_schema(32768, false).attrs[0].type, Type::i4());
  EXPECT_EQ(big.tuple_len, 36u);
  const char* names[] = {"pnum", "pname", "color", "weight", "qoh", "filler"};
  for (size_t i = 0; i < w.attrs.size(); ++i) EXPECT_EQ(w.attrs[i].name, names[i]);
  EXPECT_EQ(w.attrs[5].type, Type::c(166));
}

TEST(Parts, PackedTuples) {
  Schema w = parts_schema(3360, true);
  auto rel = make_parts(3360, true, Structure::Heap);
  auto rows = parts_rows(3360);
  size_t i = 0;
  rel->for_each([&](Tid, const uint8_t* t) {
    const PartsRow& r = rows[i++];
    EXPECT_EQ(load<int16_t>(t), r.pnum);
    EXPECT_EQ(chars(t + 2, 20), r.pname);
    EXPECT_EQ(chars(t + 22, 8), r.color);
    EXPECT_EQ(load<int16_t>(t + 30), r.weight);
    EXPECT_EQ(load<int16_t>(t + 32), r.qoh);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(t + 34), 166), std::string(166, ' '));
  });
  EXPECT_EQ(i, 3360u);
}

TEST(Parts, HeldBack) {
  EXPECT_EQ(parts_held_back_count(3360), 130u);
  EXPECT_EQ(parts_held_back_count(1), 0u);
  EXPECT_EQ(parts_held_back_count(210), 8u);  // 8.125
  EXPECT_EQ(parts_held_back_count(1000000), 38690u);
  EXPECT_EQ(parts_held_back(210), (std::vector<int32_t>{97, 75, 54, 20, 50, 153, 170, 152}));
  EXPECT_TRUE(parts_held_back(1).empty());

  // Continue the reference generator after the 4n row draws.
  RefRng ref;
  for (int i = 0; i < 4 * 3360; ++i) ref.next();
  std::vector<int32_t> want;
  std::set<int32_t> seen;
  while (want.size() < 130) {
    int32_t k = int32_t(1 + ref.next() % 3360);
    if (seen.insert(k).second) want.push_back(k);
  }
  EXPECT_EQ(parts_held_back(3360), want);
}

TEST(Parts, HeapPageCounts) {
  for (auto [n, pages] : {std::pair{1, 1}, {210, 8}, {3360, 120}}) {
    auto r = make_parts(uint64_t(n), false, Structure::Heap);
    EXPECT_EQ(r->tuples_per_page(), 28u);
    EXPECT_EQ(r->npages(), uint32_t(pages)) << n;
    EXPECT_EQ(r->ntuples(), uint64_t(n));
    EXPECT_EQ(r->structure(), Structure::Heap);
  }
  auto w = make_parts(3360, true, Structure::Heap);
  EXPECT_EQ(w->tuples_per_page(), 5u);
  EXPECT_EQ(w->npages(), 672u);
}

TEST(Parts, KeyedIsamSetup) {
  auto r = make_parts(3360, true, Structure::Isam);
  EXPECT_EQ(r->structure(), Structure::Isam);
  EXPECT_EQ(r->key_attr(), 0);
  EXPECT_EQ(r->fillfactor(), 100);
  EXPECT_EQ(r->ntuples(), 3360u);
  EXPECT_EQ(r->nprimary(), 646u);

  // Independently: primary page j holds the 5 sorted kept keys 5j..5j+4; a
  // held-back key belongs to the last page whose first key is <= it (page 0
  // below all). Every primary page is full, so a page that receives c
  // held-back tuples grows ceil(c / 5) overflow pages.
  auto held = parts_held_back(3360);
  std::set<int32_t> held_set(held.begin(), held.end());
  std::vector<int32_t> kept;
  for (int32_t k = 1; k <= 3360; ++k)
    if (!held_set.count(k)) kept.push_back(k);
  ASSERT_EQ(kept.size(), 3230u);
  std::map<size_t, int> per_page;
  for (int32_t k : held) {
    size_t j = 0;
    for (size_t p = 0; p < 646; ++p)
      if (kept[5 * p] <= k) j = p;
    ++per_page[j];
  }
  uint32_t expect_overflow = 0;
  for (auto [page, c] : per_page) expect_overflow += uint32_t((c + 4) / 5);
  EXPECT_EQ(r->noverflow(), expect_overflow);
  EXPECT_EQ(r->noverflow(), 121u);  // measured; the derivation above is the check
  EXPECT_EQ(r->npages(), 646u + expect_overflow);

  // The held-back tuples are exactly the ones on overflow pages.
  std::set<int32_t> on_overflow;
  r->for_each([&](Tid t, const uint8_t* tp) {
    if (load<uint16_t>(r->page(t.page) + kPageOffFlags) & 1) on_overflow.insert(load<int16_t>(tp));
  });
  EXPECT_EQ(on_overflow, held_set);

  // Primary pages in key order.
  int32_t prev = 0;
  for (uint32_t p = 0; p < 646; ++p) {
    const uint8_t* pg = r->page(p);
    ASSERT_EQ(page_nlines(pg), 5);
    for (uint16_t i = 0; i < 5; ++i) {
      int32_t k = load<int16_t>(pg + page_line(pg, i));
      EXPECT_GT(k, prev);
      prev = k;
    }
  }
}

TEST(Parts, KeyedHashSetup) {
  auto r = make_parts(3360, true, Structure::Hash);
  EXPECT_EQ(r->structure(), Structure::Hash);
  EXPECT_EQ(r->fillfactor(), 50);
  // floor(5 * 50 / 100) = 2 per bucket: ceil(3230 / 2) buckets.
  EXPECT_EQ(r->nprimary(), 1615u);
  EXPECT_EQ(r->ntuples(), 3360u);
  for (int32_t k : {1, 77, 2354, 3360}) {
    KeyBounds b;
    b.kind = KeyBounds::Eq;
    b.lo.i = k;
    int hits = 0;
    r->scan_pages(b, [&](uint32_t p) {
      const uint8_t* pg = r->page(p);
      for (uint16_t i = 0; i < page_nlines(pg); ++i) hits += load<int16_t>(pg + page_line(pg, i)) == k;
      return true;
    });
    EXPECT_EQ(hits, 1) << k;
  }
}

TEST(Parts, OtherSizesAndPageSizes) {
  auto r = make_parts(210, false, Structure::Isam, 1024, "p210");
  EXPECT_EQ(r->name(), "p210");
  EXPECT_EQ(r->ntuples(), 210u);
  EXPECT_EQ(r->nprimary(), 8u);  // ceil(202 / 28)
  auto big = make_parts(40000, false, Structure::Heap, 4096);
  EXPECT_EQ(big->tuple_len(), 36u);
  EXPECT_EQ(big->tuples_per_page(), (4096u - 12) / 38);
  EXPECT_EQ(big->ntuples(), 40000u);
  int32_t last = 0;
  big->for_each([&](Tid, const uint8_t* t) { last = load<int32_t>(t); });
  EXPECT_EQ(last, 40000);
}

}  // namespace
}  // namespace quelkit::test
