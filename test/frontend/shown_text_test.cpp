// shown_text (frontend/shown_text.h), what the terminal table shows of a
// value: printable ASCII as it is (its fast path), and every other text as
// its characters (shown_chars) joined, widths summed, so the two paths agree.
#include <gtest/gtest.h>

#include <string>

#include "frontend/shown_text.h"

namespace quelkit::test {
namespace {

// The text and width by the character list alone.
ShownText by_characters(std::string_view text) {
  ShownText s;
  for (const ShownChar& c : shown_chars(text, false)) {
    s.text += c.text;
    s.width += c.width;
  }
  return s;
}

TEST(ShownText, AsciiIsShownAsItIsAndOtherTextCharacterByCharacter) {
  struct Case {
    std::string text, shown;
    size_t width;
  };
  const Case cases[] = {
      {"", "", 0},
      {"pnum 42, ~!", "pnum 42, ~!", 11},
      {"tab\there", "tab\\x09here", 11},
      {"caf\xc3\xa9", "caf\xc3\xa9", 4},
      {"\xe4\xb8\xad", "\xe4\xb8\xad", 2},      // a wide character takes two columns
      {"a\x7f" "b", "a\\x7fb", 6},             // DEL is a control byte
      {"x\xff", "x\\xff", 5},                   // not UTF-8
      // Format characters that move the text after them, as controls do:
      // a right-to-left override, a byte-order mark, a line separator.
      {"r\xe2\x80\xaes", "r\\xe2\\x80\\xaes", 14},
      {"a\xef\xbb\xbf" "b", "a\\xef\\xbb\\xbfb", 14},
      {"a\xe2\x80\xa8" "b", "a\\xe2\\x80\\xa8b", 14},
      {"a\xe2\x80\x8d" "b", "a\xe2\x80\x8d" "b", 2},  // a zero-width joiner (emoji sequences) stays
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const ShownText s = shown_text(c.text);
    EXPECT_EQ(s.text, c.shown);
    EXPECT_EQ(s.width, c.width);
    const ShownText slow = by_characters(c.text);
    EXPECT_EQ(s.text, slow.text);
    EXPECT_EQ(s.width, slow.width);
  }
}

}  // namespace
}  // namespace quelkit::test
