// The undo log of a transaction (undo.h): records appended as the changes
// are made, applied in reverse by undo().
#include "storage/undo.h"

#include <cstring>

namespace quelkit::harness {

namespace {
const std::string kWhat = "a transaction's undo log";
}

void UndoLog::reserve(size_t entries, size_t image_bytes) {
  reserve_charged(records_, records_.size() + entries, records_charge_, kWhat);
  reserve_charged(images_, images_.size() + image_bytes, images_charge_, kWhat);
}

void UndoLog::reserve_whole() {
  reserve(1, 0);
  wholes_.reserve(wholes_.size() + 1);
}

void UndoLog::inserted(Relation* rel, Tid t) { records_.push_back({Kind::Inserted, t, rel, 0}); }

void UndoLog::erased(Relation* rel, Tid t) { records_.push_back({Kind::Erased, t, rel, 0}); }

void UndoLog::overwriting(Relation* rel, Tid t) {
  const size_t at = images_.size();
  const uint8_t* old = rel->tuple(t);
  images_.insert(images_.end(), old, old + rel->tuple_len());
  records_.push_back({Kind::Overwritten, t, rel, at});
}

Relation* UndoLog::create(Catalog& cat, std::unique_ptr<Relation> rel) {
  reserve(1, 0);
  Relation* r = cat.add(std::move(rel));
  records_.push_back({Kind::Created, {}, r, 0});
  return r;
}

void UndoLog::destroy(Catalog& cat, std::string_view name) {
  reserve_whole();
  std::unique_ptr<Relation> r = cat.remove(name);
  if (!r) return;  // gone already (`destroy a, a`): nothing to bring back
  records_.push_back({Kind::Destroyed, {}, r.get(), wholes_.size()});
  wholes_.push_back(std::move(r));
}

void UndoLog::modifying(Relation& rel) {
  reserve_whole();
  // The copy's pages are charged as they are copied (MemCharge's copy), so
  // they are checked against the budget here, before.
  memory_budget().check(uint64_t(rel.npages()) * rel.page_size(), kWhat);
  wholes_.push_back(std::make_unique<Relation>(rel));
  records_.push_back({Kind::Modified, {}, &rel, wholes_.size() - 1});
}

std::vector<std::string> UndoLog::undo(Catalog& cat) {
  std::vector<std::string> stale;
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    Relation* rel = it->rel;
    switch (it->kind) {
      case Kind::Inserted: rel->undo_insert(it->tid); break;
      case Kind::Erased: rel->undo_erase(it->tid); break;
      case Kind::Overwritten: rel->overwrite(it->tid, images_.data() + it->aux); break;
      case Kind::Created:
        stale.push_back(rel->name());
        cat.remove(rel->name());
        break;
      case Kind::Destroyed:
        stale.push_back(rel->name());
        cat.add(std::move(wholes_[it->aux]));
        break;
      case Kind::Modified:
        // The same object takes its old pages back, so the records before
        // this one still name it.
        stale.push_back(rel->name());
        *rel = std::move(*wholes_[it->aux]);
        rel->new_stamp();  // the old tuples again, under a stamp of their own (index.h)
        break;
    }
  }
  clear();
  return stale;
}

void UndoLog::clear() {
  records_.clear();
  images_.clear();
  wholes_.clear();
  // A short transaction's room is kept for the next (no allocation per
  // transaction of a TP1 run); a large one's is given back.
  constexpr size_t kKeptBytes = 1 << 20;
  if (records_.capacity() * sizeof(Record) > kKeptBytes) {
    std::vector<Record>().swap(records_);
    records_charge_.reset();
  }
  if (images_.capacity() > kKeptBytes) {
    std::vector<uint8_t>().swap(images_);
    images_charge_.reset();
  }
}

}  // namespace quelkit::harness
