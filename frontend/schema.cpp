// Packed tuple layouts.
#include "frontend/schema.h"

#include <algorithm>
#include <cctype>

namespace quelkit {

static std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return r;
}

Schema Schema::packed(const std::vector<std::pair<std::string, Type>>& cols) {
  Schema s;
  for (const auto& [name, t] : cols) {
    s.attrs.push_back({lower(name), t, s.tuple_len});
    s.tuple_len += t.len;
  }
  return s;
}

int Schema::find(std::string_view name) const {
  std::string n = lower(name);
  for (size_t i = 0; i < attrs.size(); ++i)
    if (attrs[i].name == n) return int(i);
  return -1;
}

}  // namespace quelkit
