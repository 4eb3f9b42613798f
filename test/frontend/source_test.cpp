// The error echo (Error::format, frontend/source.cpp): a long line shows a
// window of about 120 columns around the caret with ... markers, control
// bytes are escaped, columns count UTF-8 characters, and in every case the
// caret stands under the character the error is at.
#include <gtest/gtest.h>

#include <algorithm>
#include <clocale>
#include <cwchar>
#include <locale.h>
#include <memory>
#include <wchar.h>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace quelkit::test {
namespace {

struct Echo {
  std::string head, shown, caret;  // the three lines of the message
};

// The error at byte column `col` of line 1 of `text`, formatted and split.
Echo echo(const std::string& text, uint32_t col) {
  Error e;
  e.message = "bad";
  e.pos = {1, col};
  e.src = std::make_shared<Source>("t.quel", text);
  const std::string f = e.format();
  Echo out;
  size_t a = f.find('\n'), b = f.find('\n', a + 1);
  EXPECT_NE(b, std::string::npos) << f;
  out.head = f.substr(0, a);
  out.shown = f.substr(a + 1, b - a - 1);
  out.caret = f.substr(b + 1);
  return out;
}

// Columns a terminal gives `s[0, bytes)`, as the C library's wcwidth under
// C.UTF-8 counts them (an independent judge: é one, 日 and 🎉 two).
size_t columns(const std::string& s, size_t bytes) {
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
  EXPECT_NE(utf8, locale_t(0)) << "the C.UTF-8 locale";
  const locale_t old = uselocale(utf8);
  size_t n = 0;
  std::mbstate_t st{};
  for (size_t i = 0; i < bytes && i < s.size();) {
    wchar_t wc = 0;
    const size_t len = std::mbrtowc(&wc, s.data() + i, s.size() - i, &st);
    if (len == 0 || len > 4) {  // not expected in an echo: count a byte
      st = {};
      ++n, ++i;
      continue;
    }
    n += size_t(std::max(wcwidth(wc), 0));
    i += len;
  }
  uselocale(old);
  return n;
}

// The caret's column equals the column of `mark` in the echoed line.
void expect_caret_under(const Echo& e, const std::string& mark) {
  ASSERT_EQ(e.caret.find_first_not_of(' '), e.caret.size() - 1) << e.caret;
  ASSERT_EQ(e.caret.back(), '^');
  size_t at = e.shown.find(mark);
  ASSERT_NE(at, std::string::npos) << e.shown;
  EXPECT_EQ(columns(e.shown, at), e.caret.size() - 1) << e.shown << "\n" << e.caret;
}

TEST(Echo, AHundredKilobyteLineShowsAWindowAroundTheCaret) {
  const std::string line = std::string(50000, 'a') + "@" + std::string(50000, 'b');
  Echo e = echo(line, 50001);
  EXPECT_EQ(e.head, "t.quel:1:50001: error: bad");
  EXPECT_LE(e.shown.size(), 2 + 3 + 120 + 3u) << "the window is about 120 columns";
  EXPECT_GE(e.shown.size(), 100u);
  EXPECT_EQ(e.shown.substr(0, 5), "  ...");
  EXPECT_EQ(e.shown.substr(e.shown.size() - 3), "...");
  expect_caret_under(e, "@");
  // At either end of the line only one marker.
  Echo start = echo(line, 1);
  EXPECT_EQ(start.shown.substr(0, 3), "  a");
  EXPECT_EQ(start.shown.substr(start.shown.size() - 3), "...");
  EXPECT_EQ(start.caret, "  ^");
  Echo end = echo(line, uint32_t(line.size()));
  EXPECT_EQ(end.shown.substr(0, 5), "  ...");
  EXPECT_EQ(end.shown.back(), 'b');
  // A short line is shown whole.
  Echo whole = echo("retrieve (a = 1 +)", 18);
  EXPECT_EQ(whole.shown, "  retrieve (a = 1 +)");
  expect_caret_under(whole, ")");
}

TEST(Echo, ControlBytesAreEscaped) {
  const std::string line = "retrieve (a = \x01\x1b[31m\x7f @)";
  Echo e = echo(line, uint32_t(line.find('@') + 1));
  EXPECT_EQ(e.shown, "  retrieve (a = \\x01\\x1b[31m\\x7f @)");
  EXPECT_EQ(e.shown.find('\x1b'), std::string::npos);
  expect_caret_under(e, "@");
  // Malformed UTF-8 is escaped byte by byte; a tab is kept (the caret line
  // keeps it too, so both line up in any terminal).
  Echo bad = echo(std::string("\xff\xc3 @"), 4);
  EXPECT_EQ(bad.shown, "  \\xff\\xc3 @");
  expect_caret_under(bad, "@");
  Echo tab = echo("\tretrieve @", 11);
  EXPECT_EQ(tab.caret, "  \t         ^");
}

TEST(Echo, ColumnsCountCharactersNotBytes) {
  // é is two bytes, 日本 three each, 🎉 four; 日, 本 and 🎉 take two columns
  // on a terminal: the caret must not drift.
  const std::string line = "retrieve (s = \"été 日本 🎉\") @";
  Echo e = echo(line, uint32_t(line.find('@') + 1));
  // The column in the head counts characters, as an editor does (26 before @).
  EXPECT_EQ(e.head, "t.quel:1:27: error: bad");
  EXPECT_EQ(columns(line, line.find('@')), 29u);  // and the terminal gives them 29 columns
  expect_caret_under(e, "@");
  // A long multibyte line: the window is counted in characters too.
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += "é";
  wide += "@";
  for (int i = 0; i < 300; ++i) wide += "日";
  Echo w = echo(wide, uint32_t(wide.find('@') + 1));
  EXPECT_EQ(w.head, "t.quel:1:301: error: bad");
  EXPECT_LE(columns(w.shown, w.shown.size()), 2 + 3 + 120 + 3u);
  expect_caret_under(w, "@");
}

TEST(Echo, AByteOrderMarkIsNotText) {
  EXPECT_EQ(strip_bom("\xef\xbb\xbfretrieve"), "retrieve");
  EXPECT_EQ(strip_bom("retrieve"), "retrieve");
  EXPECT_EQ(strip_bom("\xef\xbb"), "\xef\xbb");
}

}  // namespace
}  // namespace quelkit::test
