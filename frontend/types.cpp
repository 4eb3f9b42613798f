// Type names and format parsing (create, copy).
#include "frontend/types.h"

#include <cctype>

namespace quelkit {

std::string type_name(Type t) {
  if (t.kind == Tk::C) return "c" + std::to_string(t.len);
  return type_info(t.kind).format;
}

std::optional<Type> parse_format(std::string_view s) {
  if (s.size() < 2) return std::nullopt;
  char k = char(std::tolower(static_cast<unsigned char>(s[0])));
  std::string_view n = s.substr(1);
  for (int i = 0; i < kNumTk; ++i) {
    const TypeInfo& ti = kTypes[i];
    if (ti.size && ti.format[0] == k && n == ti.format + 1 && Tk(i) != Tk::B) return Type{Tk(i), ti.size};
  }
  if (k == 'c' && n.size() <= 3) {
    unsigned v = 0;
    for (char ch : n) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
      v = v * 10 + unsigned(ch - '0');
    }
    if (v >= 1 && v <= 255) return Type::c(v);
  }
  return std::nullopt;
}

}  // namespace quelkit
