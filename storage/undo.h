// A transaction's undo log (docs/DESIGN.md, "Transactions"): what each change
// made between `begin` and `end` replaced, so that `abort`, a failed
// statement or a cancel can take the changes back, latest first. Tuples are
// logged by Tid (an insert's, an erase's) or with their old image (an
// overwrite's); whole relations only where a statement replaces one (create,
// destroy, modify, retrieve into), since those change the catalog or every page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/budget.h"
#include "storage/catalog.h"
#include "storage/relation.h"

namespace quelkit::harness {

class UndoLog {
 public:
  // Room for `entries` more records and `image_bytes` more bytes of old
  // tuple images, charged to the memory budget: a statement reserves before
  // it changes anything, so that logging its changes cannot fail halfway
  // (throws the budget's statement error, changing nothing).
  void reserve(size_t entries, size_t image_bytes);

  // Each records one change, in the reserved room; the relation is the
  // catalog's object, which stays the same object until the log ends.
  void inserted(Relation* rel, Tid t);  // after the insert
  void erased(Relation* rel, Tid t);    // after an erase that deleted the line
  void overwriting(Relation* rel, Tid t);  // before the overwrite: its old image
  // Whole relations, each doing the catalog's change itself so that the
  // change and its record are one: adds `rel` (create, retrieve into);
  // takes `name` out of the catalog and keeps it (destroy); keeps a copy of
  // `rel` before a modify rebuilds it (charged to the budget first).
  Relation* create(Catalog& cat, std::unique_ptr<Relation> rel);
  void destroy(Catalog& cat, std::string_view name);
  void modifying(Relation& rel);

  // Applies every record in reverse, leaving the catalog and its relations
  // as they were when the log began (a relation's pages byte for byte), and
  // empties the log. Returns the relations whose schema or structure it
  // changed back (created, destroyed, modified): their plans are stale.
  std::vector<std::string> undo(Catalog& cat);
  // Forgets every record (end: the changes stay).
  void clear();
  size_t size() const { return records_.size(); }

 private:
  enum class Kind : uint8_t { Inserted, Erased, Overwritten, Created, Destroyed, Modified };
  struct Record {
    Kind kind;
    Tid tid;
    Relation* rel;
    size_t aux;  // Overwritten: offset of the image; Destroyed, Modified: index in wholes_
  };
  // Room for one more whole relation (before the change it records).
  void reserve_whole();
  std::vector<Record> records_;
  std::vector<uint8_t> images_;
  std::vector<std::unique_ptr<Relation>> wholes_;
  // records_' and images_' capacity in the budget (wholes charge their own pages).
  MemCharge records_charge_, images_charge_;
};

}  // namespace quelkit::harness
