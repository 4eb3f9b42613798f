// Packed tuple layouts.
#include "frontend/schema.h"

namespace quelkit {

std::string lowercase(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  return r;
}

void Schema::add(std::string_view name, Type t) {
  // Made in place, lowered there (a result's names, the lexer's, are most
  // often lower case already: no temporary to make and move).
  Attribute& a = attrs.emplace_back();
  a.name.assign(name);
  for (char& c : a.name) c = char(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  a.type = t;
  a.offset = tuple_len;
  tuple_len += t.len;
}

Schema Schema::packed(const std::vector<std::pair<std::string, Type>>& cols) {
  Schema s;
  s.attrs.reserve(cols.size());
  for (const auto& [name, t] : cols) s.add(name, t);
  return s;
}

int Schema::find(std::string_view name) const {
  // Stored names are lower case: compare with name lowered a byte at a time,
  // without a lowered copy (the binder asks this of every attribute named).
  auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); };
  for (size_t i = 0; i < attrs.size(); ++i) {
    const std::string& a = attrs[i].name;
    if (a.size() != name.size()) continue;
    size_t k = 0;
    while (k < a.size() && a[k] == lower(name[k])) ++k;
    if (k == a.size()) return int(i);
  }
  return -1;
}

}  // namespace quelkit
