// The one page walk (storage/page_walk.h): live tuples in line order, deleted
// lines skipped, a visit that stops the walk at its line, and the next-page
// span every kernel prefetches by.
#include <gtest/gtest.h>

#include <vector>

#include "storage/page_walk.h"
#include "storage/relation.h"

namespace quelkit::harness {
namespace {

Schema one_int() { return Schema::packed({{"x", Type::i4()}}); }

TEST(PageWalk, VisitsLiveTuplesInLineOrder) {
  Relation r("t", one_int(), kDefaultPageSize);
  for (int32_t i = 0; i < 10; ++i) r.insert(reinterpret_cast<const uint8_t*>(&i));
  r.erase(Tid{0, 3});
  r.erase(Tid{0, 7});
  EXPECT_TRUE(r.has_deleted());
  std::vector<uint32_t> lines;
  std::vector<int32_t> values;
  uint32_t end = walk_page(r.page(0), r.tuple_len(), [&](uint32_t line, const uint8_t* t) {
    lines.push_back(line);
    values.push_back(load<int32_t>(t));
    return true;
  });
  EXPECT_EQ(end, 10u);
  EXPECT_EQ(lines, (std::vector<uint32_t>{0, 1, 2, 4, 5, 6, 8, 9}));
  EXPECT_EQ(values, (std::vector<int32_t>{0, 1, 2, 4, 5, 6, 8, 9}));
}

TEST(PageWalk, AVisitStopsTheWalkAtItsLine) {
  Relation r("t", one_int(), kDefaultPageSize);
  for (int32_t i = 0; i < 10; ++i) r.insert(reinterpret_cast<const uint8_t*>(&i));
  uint32_t visits = 0;
  uint32_t end = walk_page(r.page(0), r.tuple_len(), [&](uint32_t line, const uint8_t*) {
    ++visits;
    return line != 5;
  });
  EXPECT_EQ(end, 5u);
  EXPECT_EQ(visits, 6u);
}

TEST(PageWalk, TheNextPageStartsWhereLineZerosTupleEnds) {
  Relation r("t", one_int(), kDefaultPageSize);
  const uint32_t tpp = r.tuples_per_page();
  for (int32_t i = 0; i < int32_t(tpp) + 1; ++i) r.insert(reinterpret_cast<const uint8_t*>(&i));
  ASSERT_GE(r.npages(), 2u);
  // Heap pages are consecutive, and tuples fill a page from its end down.
  EXPECT_EQ(r.page(0) + next_page_span(r.page(0), r.tuple_len()), r.page(1));
}

}  // namespace
}  // namespace quelkit::harness
