// Parsing copy's INGRES formats (frontend/copy_format.h).
#include "frontend/copy_format.h"

#include <cctype>

namespace quelkit {

int copy_delimiter_named(std::string_view name) {
  static constexpr struct {
    const char* name;
    char byte;
  } kNamed[] = {{"nl", '\n'},    {"tab", '\t'},   {"sp", ' '},     {"nul", '\0'},    {"null", '\0'},
                {"comma", ','},  {"colon", ':'},  {"dash", '-'},   {"lparen", '('},  {"rparen", ')'}};
  for (const auto& n : kNamed)
    if (name == n.name) return static_cast<unsigned char>(n.byte);
  if (name.size() == 1) return static_cast<unsigned char>(name[0]);
  return -1;
}

std::optional<CopyFormat> parse_copy_format(std::string_view text) {
  if (auto t = parse_format(text)) return CopyFormat{CopyFormat::Fixed, *t, 0, CopyFormat::kAnyEnd};
  if (text.size() < 2) return std::nullopt;
  const char k = char(std::tolower(static_cast<unsigned char>(text[0])));
  if (k != 'c' && k != 'd') return std::nullopt;
  size_t i = 1;
  unsigned n = 0;
  while (i < text.size() && i < 4 && std::isdigit(static_cast<unsigned char>(text[i])))
    n = n * 10 + unsigned(text[i++] - '0');
  if (i == 1 || (text[1] == '0' && i > 2)) return std::nullopt;  // no digits, or "c01"
  std::string_view rest = text.substr(i);
  if (n != 0) {  // cN is parse_format's; dN takes no delimiter
    if (k == 'c' || !rest.empty() || n > 255) return std::nullopt;
    return CopyFormat{CopyFormat::Dummy, Type::c(n), n, CopyFormat::kAnyEnd};
  }
  CopyFormat f{k == 'c' ? CopyFormat::Var : CopyFormat::Dummy, Type::c(0), 0, CopyFormat::kAnyEnd};
  if (!rest.empty() && rest[0] == '"') {  // c0"Z": exactly the quoted character
    if (rest.size() != 2) return std::nullopt;
    f.delim = static_cast<unsigned char>(rest[1]);
  } else if (!rest.empty()) {
    std::string lower(rest);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    // One character is taken as written ("c0&" in quotes); a name in any case.
    f.delim = rest.size() == 1 ? static_cast<unsigned char>(rest[0]) : copy_delimiter_named(lower);
    if (f.delim < 0) return std::nullopt;
  }
  return f;
}

}  // namespace quelkit
