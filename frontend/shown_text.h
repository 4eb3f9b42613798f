// Text as a terminal shows it: the one place that decides how the kit prints
// bytes it did not write itself (a quoted source line under an error, a value
// in the terminal table). UTF-8 characters are kept and take the columns a
// terminal gives them; control bytes and bytes that are not UTF-8 are
// escaped as \xNN, so printed data can neither move the cursor nor break a
// table's borders.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace quelkit {

// The length of the well-formed multi-byte UTF-8 sequence at p (n bytes
// left, n > 0) and its code point, or 0 where the bytes are not one (an
// ASCII byte is not: callers take it alone): overlong forms, surrogates and
// sequences cut short are not characters. (--format json
// escapes the bytes that are not, engine/rows.cpp.)
size_t utf8_sequence(const unsigned char* p, size_t n, char32_t& cp);

// One character of a text: where its bytes start, how it is shown, and the
// columns that takes (0 for combining marks, 2 for wide characters, 4 for
// an escape).
struct ShownChar {
  size_t byte;
  std::string text;
  size_t width;
};

// keep_tabs: a tab stays a tab of width 1 (the error echo, whose caret line
// copies it so the caret lines up); otherwise it is escaped as \x09.
std::vector<ShownChar> shown_chars(std::string_view text, bool keep_tabs);

// The text as shown, and the sum of its widths.
struct ShownText {
  std::string text;
  size_t width = 0;
};
ShownText shown_text(std::string_view text);

// A token a message quotes, cut to one readable line: past kQuotedWidth
// bytes, its first kQuotedWidth - 3 (whole UTF-8 characters) and "...".
// Syntax errors name the token found so (lexer.re's describe), and
// Error::format cuts every quoted name of a message the same way (a 100 KB
// identifier printed whole filled the terminal).
constexpr size_t kQuotedWidth = 32;
std::string cut_token(std::string_view token);
// `message` with each 'quoted' run that holds no blank (a name, a number,
// a token) cut by cut_token; prose between quotes is left alone.
std::string cut_quoted(std::string_view message);

}  // namespace quelkit
