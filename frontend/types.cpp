// Type names and format parsing (create, copy).
#include "frontend/types.h"

#include <cctype>

namespace quelkit {

std::string type_name(Type t) {
  switch (t.kind) {
    case Tk::I1: return "i1";
    case Tk::I2: return "i2";
    case Tk::I4: return "i4";
    case Tk::F4: return "f4";
    case Tk::F8: return "f8";
    case Tk::C: return "c" + std::to_string(t.len);
    case Tk::B: return "bool";
  }
  return "?";
}

std::optional<Type> parse_format(std::string_view s) {
  if (s.size() < 2) return std::nullopt;
  char k = char(std::tolower(static_cast<unsigned char>(s[0])));
  std::string_view n = s.substr(1);
  if (k == 'i' && n == "1") return Type::i1();
  if (k == 'i' && n == "2") return Type::i2();
  if (k == 'i' && n == "4") return Type::i4();
  if (k == 'f' && n == "4") return Type::f4();
  if (k == 'f' && n == "8") return Type::f8();
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
