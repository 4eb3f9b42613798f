// Relations of a session, looked up case-insensitively.
#include "storage/catalog.h"

namespace quelkit::harness {

const Schema* Catalog::find_schema(std::string_view relation) const {
  Relation* r = find(relation);
  return r ? &r->schema() : nullptr;
}

Relation* Catalog::find(std::string_view name) const {
  auto it = rels_.find(lowercase(name));
  return it == rels_.end() ? nullptr : it->second.get();
}

Relation* Catalog::add(std::unique_ptr<Relation> rel) {
  std::string key = lowercase(rel->name());
  auto* p = rel.get();
  rels_[key] = std::move(rel);
  ++version_;
  return p;
}

std::unique_ptr<Relation> Catalog::remove(std::string_view name) {
  auto it = rels_.find(lowercase(name));
  if (it == rels_.end()) return nullptr;
  auto r = std::move(it->second);
  rels_.erase(it);
  ++version_;
  return r;
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> v;
  for (const auto& [k, r] : rels_) v.push_back(k);
  return v;
}

}  // namespace quelkit::harness
