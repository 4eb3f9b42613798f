// A relation's attributes and their packed tuple layout. The binder resolves
// names against Schemas (through CatalogView); the harness stores tuples in
// exactly this layout; back ends read attributes at these offsets.
// Tuples are packed and unaligned: attribute i starts where i-1 ends.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/types.h"

namespace quelkit {

struct Attribute {
  std::string name;  // lower case
  Type type;
  uint32_t offset = 0;
};

struct Schema {
  std::vector<Attribute> attrs;
  uint32_t tuple_len = 0;

  // Packs attributes in order. Names are lower-cased.
  static Schema packed(const std::vector<std::pair<std::string, Type>>& cols);
  // Appends an attribute after the last (packed's step, for a caller that
  // has its columns in another form and reserves attrs first).
  void add(std::string_view name, Type t);
  int find(std::string_view name) const;  // case-insensitive; -1 if absent
};

// Names of relations, attributes and range variables are case-insensitive:
// the lexer, Schema and the catalog all keep them as this gives them. ASCII
// letters only, so no locale changes which names are equal.
std::string lowercase(std::string_view s);

// What the binder may ask of the catalog (frontend defines it, harness implements it).
class CatalogView {
 public:
  virtual ~CatalogView() = default;
  // nullptr if there is no relation of that name (case-insensitive).
  virtual const Schema* find_schema(std::string_view relation) const = 0;
  // The constant `usercode`: the session's user (engine/session.h says where it comes from).
  virtual std::string usercode() const { return "ingres"; }
};

}  // namespace quelkit
