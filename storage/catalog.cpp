// Relations of a session, looked up case-insensitively.
#include "storage/catalog.h"

#include "storage/index.h"

namespace quelkit::harness {

const Schema* Catalog::find_schema(std::string_view relation) const {
  Relation* r = find(relation);
  return r ? &r->schema() : nullptr;
}

namespace {

// Names are keyed in lower case; one already so (every statement's, after
// the lexer) is looked up as it is, without a copy.
template <class Map>
auto find_lower(Map& m, std::string_view name) {
  for (const char c : name)
    if (c >= 'A' && c <= 'Z') return m.find(lowercase(name));
  return m.find(name);
}

}  // namespace

Relation* Catalog::find_as_is(std::string_view name) const {
  if (last_ && last_version_ == version_ && name == last_name_) return last_;
  auto it = find_lower(rels_, name);
  if (it == rels_.end()) return nullptr;
  last_name_.assign(name);
  last_ = it->second.get();
  last_version_ = version_;
  return last_;
}

// An index is brought up to its base's tuples before anyone reads it.
Relation* Catalog::find(std::string_view name) const {
  Relation* r = find_as_is(name);
  if (!r) return nullptr;
  if (const std::string& base = r->notes().index_of; !base.empty())
    if (auto b = find_lower(rels_, base); b != rels_.end()) refresh_index(*b->second, *r);
  return r;
}

Relation* Catalog::add(std::unique_ptr<Relation> rel) {
  std::string key = lowercase(rel->name());
  auto* p = rel.get();
  rels_[key] = std::move(rel);
  ++version_;
  return p;
}

std::unique_ptr<Relation> Catalog::remove(std::string_view name) {
  auto it = find_lower(rels_, name);
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
