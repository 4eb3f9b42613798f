// The session's relations by name. Implements the binder's CatalogView, so the
// front end sees schemas without knowing about pages or storage structures.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/schema.h"
#include "storage/relation.h"

namespace quelkit::harness {

class Catalog : public CatalogView {
 public:
  const Schema* find_schema(std::string_view relation) const override;
  // A secondary index found is first rebuilt if its base changed (index.h).
  Relation* find(std::string_view name) const;
  // The relation as it is, an index not brought up to its base: for what
  // needs only its name and notes (destroy, the catalogs' relindxd).
  Relation* find_as_is(std::string_view name) const;
  // Takes ownership; replaces nothing (caller checks the name is free).
  Relation* add(std::unique_ptr<Relation> rel);
  std::unique_ptr<Relation> remove(std::string_view name);
  std::vector<std::string> names() const;
  // Moves on at every add and remove: what was bound against the catalog
  // (the statement cache's bindings, engine/statement_cache.h) is stale
  // once it has, whoever changed it.
  uint64_t version() const { return version_; }
  std::string usercode() const override { return user_; }
  void set_usercode(std::string user) { user_ = std::move(user); }

 private:
  uint64_t version_ = 0;
  // The last name found and its relation, at version_: a statement asks for
  // its relation three times or so (execution, result, apply), and a
  // string's comparison is a tenth of the map's walk. Any add or remove
  // changes version_, and so forgets it.
  mutable std::string last_name_;
  mutable Relation* last_ = nullptr;
  mutable uint64_t last_version_ = 0;
  std::string user_ = "ingres";
  std::map<std::string, std::unique_ptr<Relation>, std::less<>> rels_;
};

}  // namespace quelkit::harness
