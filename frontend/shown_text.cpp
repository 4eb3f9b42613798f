// Text as a terminal shows it (shown_text.h).
#include "frontend/shown_text.h"

#include <algorithm>

namespace quelkit {

size_t utf8_sequence(const unsigned char* p, size_t n, char32_t& cp) {
  const unsigned char b0 = p[0];
  const size_t len = b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (len == 0 || len > n) return 0;
  cp = b0 & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((p[k] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (p[k] & 0x3f);
  }
  constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

namespace {

// Columns a code point takes: 0 for combining marks and zero-width
// characters, 2 for East Asian wide and fullwidth forms and emoji, else 1.
// A short table in the spirit of Markus Kuhn's wcwidth, so that what the kit
// prints does not depend on the process's locale.
size_t columns_of(char32_t c) {
  if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200d) || (c >= 0xfe00 && c <= 0xfe0f))
    return 0;
  if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) || (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
      (c >= 0x20000 && c <= 0x3fffd))
    return 2;
  return 1;
}

// Format characters that move or break the text after them on a terminal,
// as controls do: bidirectional marks, embeddings, overrides and isolates
// (U+202E shows the rest of the line reversed), the line and paragraph
// separators, and the byte-order mark inside a text. Shown as their bytes.
bool moves_text(char32_t c) {
  return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0xfeff;
}

}  // namespace

std::vector<ShownChar> shown_chars(std::string_view text, bool keep_tabs) {
  static constexpr char hex[] = "0123456789abcdef";
  std::vector<ShownChar> out;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = p[i];
    if ((c >= 0x20 && c < 0x7f) || (c == '\t' && keep_tabs)) {
      out.push_back({i, std::string(1, char(c)), 1});
      ++i;
      continue;
    }
    char32_t cp = 0;
    // C1 controls (U+0080..U+009F) are well-formed UTF-8 but still controls.
    if (size_t len = c >= 0x80 ? utf8_sequence(p + i, text.size() - i, cp) : 0; len && cp >= 0xa0 && !moves_text(cp)) {
      out.push_back({i, std::string(text.substr(i, len)), columns_of(cp)});
      i += len;
      continue;
    }
    out.push_back({i, {'\\', 'x', hex[c >> 4], hex[c & 15]}, 4});
    ++i;
  }
  return out;
}

ShownText shown_text(std::string_view text) {
  // Printable ASCII, most of what a table shows, is shown as it is: no list
  // of characters built (a string each), which made formatting (d)'s rows a
  // tenth of interp's profile.
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
    return {std::string(text), text.size()};
  ShownText s;
  s.text.reserve(text.size());
  for (const ShownChar& c : shown_chars(text, false)) {
    s.text += c.text;
    s.width += c.width;
  }
  return s;
}

std::string cut_token(std::string_view token) {
  if (token.size() <= kQuotedWidth) return std::string(token);
  size_t n = kQuotedWidth - 3;
  while (n > 0 && (static_cast<unsigned char>(token[n]) & 0xC0) == 0x80) --n;  // not inside a character
  return std::string(token.substr(0, n)) + "...";
}

std::string cut_quoted(std::string_view message) {
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    const size_t open = message.find('\'', i);
    const size_t close = open == std::string_view::npos ? open : message.find('\'', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view inside = message.substr(open + 1, close - open - 1);
    if (inside.find_first_of(" \t\n") != std::string_view::npos) {  // prose: its closing quote may open a name
      out += message.substr(i, close - i);
      i = close;
      continue;
    }
    out += message.substr(i, open + 1 - i);
    out += cut_token(inside);
    out += '\'';
    i = close + 1;
  }
  out += message.substr(i);
  return out;
}

}  // namespace quelkit
