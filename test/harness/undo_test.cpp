// The undo log of a transaction (storage/undo.h): after inserts that add
// heap and overflow pages, erases, overwrites, a modify, a destroy and a
// create, undo leaves every relation's pages byte for byte as they were and
// the catalog as it was, on each storage structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/page.h"
#include "storage/relation.h"
#include "storage/undo.h"

namespace quelkit::test {
namespace {

using namespace harness;

Schema kv() { return Schema::packed({{"k", Type::i4()}, {"v", Type::i4()}, {"pad", Type::c(20)}}); }

std::vector<uint8_t> tuple(int32_t k, int32_t v) {
  std::vector<uint8_t> t(kv().tuple_len, ' ');
  store<int32_t>(t.data(), k);
  store<int32_t>(t.data() + 4, v);
  return t;
}

// Everything a scan, a lookup or help reads of a relation.
struct Image {
  std::vector<uint8_t> pages;
  uint64_t ntuples;
  uint32_t nprimary;
  Structure structure;
  int key;
  friend bool operator==(const Image&, const Image&) = default;
};
Image image(const Relation& r) {
  return {std::vector<uint8_t>(r.page(0), r.page(0) + size_t(r.npages()) * r.page_size()), r.ntuples(), r.nprimary(),
          r.structure(), r.key_attr()};
}

// A relation of 40 tuples (keys 0..39) in structure s.
std::unique_ptr<Relation> made(const std::string& name, Structure s) {
  auto r = std::make_unique<Relation>(name, kv(), 256);
  for (int32_t i = 0; i < 40; ++i) r->insert(tuple(i, i).data());
  if (s != Structure::Heap) r->modify(s, 0, 0);
  return r;
}

// The changes of one statement each, logged as the session logs them.
void append(UndoLog& log, Relation* r, int32_t from, int32_t n) {
  log.reserve(size_t(n), 0);
  std::vector<Tid> added;
  std::vector<uint8_t> t;
  r->insert_all(size_t(n), [&](size_t i) {
    t = tuple(from + int32_t(i) % 3, 1000 + int32_t(i));  // few keys: isam and hash chains overflow
    return t.data();
  }, &added);
  for (Tid tid : added) log.inserted(r, tid);
}

void delete_some(UndoLog& log, Relation* r, int every) {
  std::vector<Tid> tids;
  int i = 0;
  r->for_each([&](Tid t, const uint8_t*) {
    if (i++ % every == 0) tids.push_back(t);
  });
  log.reserve(tids.size(), 0);
  for (Tid t : tids)
    if (r->erase(t)) log.erased(r, t);
}

void replace_all(UndoLog& log, Relation* r, int32_t v) {
  std::vector<Tid> tids;
  r->for_each([&](Tid t, const uint8_t*) { tids.push_back(t); });
  log.reserve(tids.size(), tids.size() * r->tuple_len());
  for (Tid t : tids) {
    std::vector<uint8_t> nt(r->tuple(t), r->tuple(t) + r->tuple_len());
    store<int32_t>(nt.data() + 4, v);
    log.overwriting(r, t);
    r->overwrite(t, nt.data());
  }
}

class Undo : public ::testing::TestWithParam<Structure> {};

TEST_P(Undo, TupleChangesAreTakenBackByteForByte) {
  Catalog cat;
  Relation* r = cat.add(made("r", GetParam()));
  const Image before = image(*r);
  UndoLog log;
  append(log, r, 5, 60);  // new heap pages, overflow pages
  delete_some(log, r, 3);
  replace_all(log, r, -1);
  append(log, r, 7, 30);
  delete_some(log, r, 2);  // erases of tuples this log inserted too
  ASSERT_NE(image(*r), before);
  EXPECT_TRUE(log.undo(cat).empty()) << "no relation's schema or structure changed";
  EXPECT_EQ(cat.find("r"), r);
  EXPECT_TRUE(image(*r) == before);
  EXPECT_EQ(log.size(), 0u);
  // The relation goes on as before: an insert lands where it would have.
  Relation fresh = *made("r", GetParam());
  EXPECT_EQ(r->insert(tuple(3, 3).data()), fresh.insert(tuple(3, 3).data()));
}

TEST_P(Undo, WholeRelationsComeBack) {
  Catalog cat;
  Relation* r = cat.add(made("r", GetParam()));
  cat.add(made("gone", GetParam()));
  const Image before = image(*r), gone = image(*cat.find("gone"));
  UndoLog log;
  append(log, r, 1, 20);
  log.modifying(*r);
  r->modify(GetParam() == Structure::Hash ? Structure::Isam : Structure::Hash, 1, 0);
  append(log, r, 2, 20);  // on the new structure
  log.destroy(cat, "gone");
  EXPECT_EQ(cat.find("gone"), nullptr);
  Relation* made_here = log.create(cat, made("gone", Structure::Heap));  // a new one of the name
  append(log, made_here, 0, 5);
  log.create(cat, made("new", GetParam()));
  log.destroy(cat, "r");
  std::vector<std::string> stale = log.undo(cat);
  std::sort(stale.begin(), stale.end());
  EXPECT_EQ(stale, (std::vector<std::string>{"gone", "gone", "new", "r", "r"}));
  EXPECT_EQ(cat.names(), (std::vector<std::string>{"gone", "r"}));
  EXPECT_EQ(cat.find("r"), r) << "the same object: records before the modify name it";
  EXPECT_TRUE(image(*r) == before);
  EXPECT_TRUE(image(*cat.find("gone")) == gone);
}

INSTANTIATE_TEST_SUITE_P(Structures, Undo, ::testing::Values(Structure::Heap, Structure::Isam, Structure::Hash),
                         [](const auto& i) { return std::string(structure_name(i.param)); });

}  // namespace
}  // namespace quelkit::test
