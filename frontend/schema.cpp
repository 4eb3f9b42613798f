// Packed tuple layouts.
#include "frontend/schema.h"

namespace quelkit {

std::string lowercase(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  return r;
}

Schema Schema::packed(const std::vector<std::pair<std::string, Type>>& cols) {
  Schema s;
  for (const auto& [name, t] : cols) {
    s.attrs.push_back({lowercase(name), t, s.tuple_len});
    s.tuple_len += t.len;
  }
  return s;
}

int Schema::find(std::string_view name) const {
  std::string n = lowercase(name);
  for (size_t i = 0; i < attrs.size(); ++i)
    if (attrs[i].name == n) return int(i);
  return -1;
}

}  // namespace quelkit
