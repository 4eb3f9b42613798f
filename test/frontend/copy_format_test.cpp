// copy's INGRES formats as the parser takes them: every spelling of a
// delimiter (named, one character, quoted after c0 or the whole format in
// quotes), `copy rel ()`, `with ingres`, and a bad format as a syntax error
// at its caret.
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::err_text;
using fetest::error_of;
using fetest::source;

std::string ast_of(const std::string& text) { return dump_ast(*parse(source(text)).at(0)); }
std::string syntax(const std::string& text) { return err_text(error_of(text, false)); }

TEST(CopyFormats, EverySpellingParses) {
  EXPECT_EQ(ast_of("copy emp (name=c0,comma=d1,sal=c0,nl=d1) into \"/mnt/you/yourfile\""),
            "(copy emp (name c0) (comma d1) (sal c0) (nl d1) into \"/mnt/you/yourfile\")");
  EXPECT_EQ(ast_of("copy emp (name = c0nl, a = c0TAB, b = c0\"Z\", c = \"c0&\", x = d0comma, y = d12) from \"f\""),
            "(copy emp (name c0nl) (a c0tab) (b c0\"Z) (c c0&) (x d0comma) (y d12) from \"f\")");
  EXPECT_EQ(ast_of("copy emp () from \"/mnt/thy/thyfile\""), "(copy emp from \"/mnt/thy/thyfile\")");
  EXPECT_EQ(ast_of("copy emp (sal = f4, bdate = i2) into \"f\" with ingres"),
            "(copy emp (sal f4) (bdate i2) into \"f\" with ingres)");
  // The quoted delimiter is the format's position; the next statement follows.
  auto s = parse(source("copy r (a = c0 \"%\") into \"f\" print r"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0]->columns[0].format, "c0\"%");
  EXPECT_EQ(s[0]->columns[0].format_pos, (SrcPos{1, 13}));
}

TEST(CopyFormats, ABadFormatIsASyntaxErrorAtIt) {
  const std::string list = " is not a copy format (i1 i2 i4 f4 f8 c1..c255, c0 or d0 with an optional delimiter, d1..d255)";
  EXPECT_EQ(syntax("copy r (a = c0newline) into \"f\""), "syntax 1:13 'c0newline'" + list);
  EXPECT_EQ(syntax("copy r (a = i2, b = d1nl) into \"f\""), "syntax 1:21 'd1nl'" + list);
  EXPECT_EQ(syntax("copy r (a = c0\"ab\") into \"f\""), "syntax 1:13 'c0\"ab'" + list);
  EXPECT_EQ(syntax("copy r (a = \"c1&\") into \"f\""), "syntax 1:13 'c1&'" + list);
  EXPECT_EQ(syntax("copy r (a = c0) into \"f\" with csv"), "syntax 1:31 expected 'ingres' (INGRES's formats for this list) but found 'csv'");
  // create keeps its own formats: c0 is no attribute's.
  EXPECT_EQ(syntax("create r (a = c0)"), "syntax 1:15 'c0' is not a format (i1 i2 i4 f4 f8 c1..c255)");
}

}  // namespace
}  // namespace quelkit::frontend
