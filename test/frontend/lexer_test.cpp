// Lexer: every token kind, positions and byte ranges, literal typing limits,
// string escapes, comments, and each lexical error with its position.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/lexer.h"
#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::err_text;
using fetest::source;

std::vector<Token> lex_all(const std::string& text) {
  Lexer lx(source(text));
  std::vector<Token> out;
  for (;;) {
    out.push_back(lx.next());
    if (out.back().kind == Tok::End) return out;
  }
}

std::vector<Tok> kinds(const std::string& text) {
  std::vector<Tok> k;
  for (const auto& t : lex_all(text)) k.push_back(t.kind);
  return k;
}

std::string lex_error(const std::string& text) {
  try {
    lex_all(text);
  } catch (const QuelError& e) {
    return err_text(e.err);
  }
  return "no error";
}

TEST(Lexer, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(kinds("range of is retrieve unique into where sort by create append to delete replace "
                  "copy from modify on destroy print help and or not"),
            (std::vector<Tok>{Tok::Range, Tok::Of, Tok::Is, Tok::Retrieve, Tok::Unique, Tok::Into,
                              Tok::Where, Tok::Sort, Tok::By, Tok::Create, Tok::Append, Tok::To,
                              Tok::Delete, Tok::Replace, Tok::Copy, Tok::From, Tok::Modify, Tok::On,
                              Tok::Destroy, Tok::Print, Tok::Help, Tok::And, Tok::Or, Tok::Not,
                              Tok::End}));
  EXPECT_EQ(kinds("RETRIEVE Where aNd"), (std::vector<Tok>{Tok::Retrieve, Tok::Where, Tok::And, Tok::End}));
}

TEST(Lexer, NamesAreLowerCasedAndKeywordPrefixesAreNames) {
  auto t = lex_all("PNum _x9 ranger heap ISAM fillfactor");
  ASSERT_EQ(t.size(), 7u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t[size_t(i)].kind, Tok::Name) << i;
  EXPECT_EQ(t[0].text, "pnum");
  EXPECT_EQ(t[1].text, "_x9");
  EXPECT_EQ(t[2].text, "ranger");
  EXPECT_EQ(t[4].text, "isam");
}

TEST(Lexer, Operators) {
  EXPECT_EQ(kinds("+ - * / ** = != < <= > >= ( ) , . :"),
            (std::vector<Tok>{Tok::Plus, Tok::Minus, Tok::Star, Tok::Slash, Tok::Power, Tok::Eq, Tok::Ne,
                              Tok::Lt, Tok::Le, Tok::Gt, Tok::Ge, Tok::LParen, Tok::RParen, Tok::Comma,
                              Tok::Dot, Tok::Colon, Tok::End}));
  // Longest match, no spaces needed.
  EXPECT_EQ(kinds("a**-2<=3"), (std::vector<Tok>{Tok::Name, Tok::Power, Tok::Minus, Tok::Int, Tok::Le,
                                                  Tok::Int, Tok::End}));
  EXPECT_EQ(kinds("***"), (std::vector<Tok>{Tok::Power, Tok::Star, Tok::End}));
}

TEST(Lexer, Integers) {
  auto t = lex_all("0 32767 32768 2147483647");
  EXPECT_EQ(t[0].ival, 0);
  EXPECT_EQ(t[1].ival, 32767);
  EXPECT_EQ(t[2].ival, 32768);
  EXPECT_EQ(t[3].ival, 2147483647);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t[size_t(i)].kind, Tok::Int);
}

TEST(Lexer, Floats) {
  auto t = lex_all("1. .5 1e5 1.5e-3 2E+2 9.5");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t[size_t(i)].kind, Tok::Float) << i;
  EXPECT_EQ(t[0].fval, 1.0);
  EXPECT_EQ(t[1].fval, 0.5);
  EXPECT_EQ(t[2].fval, 1e5);
  EXPECT_EQ(t[3].fval, 1.5e-3);
  EXPECT_EQ(t[4].fval, 200.0);
  EXPECT_EQ(t[5].fval, 9.5);
  // `p.pnum` is name, dot, name; `p.5` is a name and a float.
  EXPECT_EQ(kinds("p.pnum"), (std::vector<Tok>{Tok::Name, Tok::Dot, Tok::Name, Tok::End}));
  EXPECT_EQ(kinds("p.5"), (std::vector<Tok>{Tok::Name, Tok::Float, Tok::End}));
  // `1e` is an integer then a name: the exponent needs digits.
  EXPECT_EQ(kinds("1e"), (std::vector<Tok>{Tok::Int, Tok::Name, Tok::End}));
}

TEST(Lexer, Strings) {
  auto t = lex_all(R"("abc" "" "a\"b" "a\\b" "a\*b")");
  EXPECT_EQ(t[0].kind, Tok::String);
  EXPECT_EQ(t[0].text, "abc");
  EXPECT_EQ(t[1].text, "");
  EXPECT_EQ(t[2].text, "a\"b");
  EXPECT_EQ(t[3].text, "a\\b");
  EXPECT_EQ(t[4].text, "a\\*b");  // other backslashes stay, with the next character
  EXPECT_EQ(t[5].kind, Tok::End);
}

TEST(Lexer, StringEscapedQuoteDoesNotEnd) {
  auto t = lex_all(R"("a\"" x)");
  EXPECT_EQ(t[0].text, "a\"");
  EXPECT_EQ(t[1].kind, Tok::Name);
}

TEST(Lexer, PositionsAndOffsets) {
  auto t = lex_all("retrieve (p.pnum)\n  where p.qoh >= 10");
  EXPECT_EQ(t[0].pos, (SrcPos{1, 1}));
  EXPECT_EQ(t[0].begin, 0u);
  EXPECT_EQ(t[0].end, 8u);
  EXPECT_EQ(t[1].pos, (SrcPos{1, 10}));
  EXPECT_EQ(t[3].pos, (SrcPos{1, 12}));  // the dot
  EXPECT_EQ(t[6].kind, Tok::Where);
  EXPECT_EQ(t[6].pos, (SrcPos{2, 3}));
  EXPECT_EQ(t[10].kind, Tok::Ge);
  EXPECT_EQ(t[10].pos, (SrcPos{2, 15}));
  EXPECT_EQ(t[10].end - t[10].begin, 2u);
  // The end token sits just after the last token, not after trailing text.
  Token end = t.back();
  EXPECT_EQ(end.kind, Tok::End);
  EXPECT_EQ(end.pos, (SrcPos{2, 20}));
}

TEST(Lexer, EndAfterTrailingComment) {
  auto t = lex_all("help /* trailing */\n\n");
  EXPECT_EQ(t.back().pos, (SrcPos{1, 5}));
  EXPECT_EQ(lex_all("").back().pos, (SrcPos{1, 1}));
}

TEST(Lexer, Comments) {
  EXPECT_EQ(kinds("a /* x * / y\n z */ b"), (std::vector<Tok>{Tok::Name, Tok::Name, Tok::End}));
  EXPECT_EQ(kinds("a/**/b"), (std::vector<Tok>{Tok::Name, Tok::Name, Tok::End}));
  EXPECT_EQ(kinds("/* a **/"), (std::vector<Tok>{Tok::End}));
}

TEST(Lexer, Errors) {
  EXPECT_EQ(lex_error("x = 2147483648"), "lexical 1:5 integer literal 2147483648 is too large (the largest is 2147483647)");
  EXPECT_EQ(lex_error("99999999999999999999999"),
            "lexical 1:1 integer literal 99999999999999999999999 is too large (the largest is 2147483647)");
  EXPECT_EQ(lex_error("  1e999"), "lexical 1:3 float literal 1e999 is out of range");
  // Underflow to zero is out of range too; a subnormal is still a number.
  EXPECT_EQ(lex_error("1e-400"), "lexical 1:1 float literal 1e-400 is out of range");
  EXPECT_EQ(lex_error("1e-310"), "no error");
  EXPECT_EQ(lex_error("a \"abc"), "lexical 1:3 unterminated string literal");
  EXPECT_EQ(lex_error("a \"ab\\\""), "lexical 1:3 unterminated string literal");
  EXPECT_EQ(lex_error("\n \"ab\ncd\""),
            "lexical 2:2 newline in string literal (strings end on the line they start)");
  EXPECT_EQ(lex_error("\"" + std::string(256, 'x') + "\""),
            "lexical 1:1 string literal of 256 bytes is too long (at most 255)");
  EXPECT_EQ(lex_error("a /* never\nclosed"), "lexical 1:3 unterminated comment");
  EXPECT_EQ(lex_error("a ; b"), "lexical 1:3 unexpected character ';'");
  EXPECT_EQ(lex_error("a\n  #"), "lexical 2:3 unexpected character '#'");
  EXPECT_EQ(lex_error("a !b"), "lexical 1:3 unexpected character '!'");
  EXPECT_EQ(lex_error(std::string("a \x80")), "lexical 1:3 unexpected character (byte 0x80)");
  // A UTF-8 character outside a string is shown and named by its code point;
  // a byte that starts none (cut short, overlong, a surrogate) by its value.
  EXPECT_EQ(lex_error("a \xc3\xa6 b"), "lexical 1:3 unexpected character '\xc3\xa6' (U+00E6)");
  // What would look like nothing between quotes is named, not shown.
  EXPECT_EQ(lex_error("a \xef\xbb\xbf b"),
            "lexical 1:3 unexpected byte-order mark (U+FEFF), which only the start of a text may have");
  EXPECT_EQ(lex_error("a \xc2\xa0 b"), "lexical 1:3 unexpected invisible character (U+00A0)");
  EXPECT_EQ(lex_error("a \xe2\x82\xac"), "lexical 1:3 unexpected character '\xe2\x82\xac' (U+20AC)");
  EXPECT_EQ(lex_error("a \xf0\x9f\x98\x80"), "lexical 1:3 unexpected character '\xf0\x9f\x98\x80' (U+1F600)");
  EXPECT_EQ(lex_error("a \xe6 b"), "lexical 1:3 unexpected character (byte 0xe6)");
  EXPECT_EQ(lex_error("a \xc0\xaf"), "lexical 1:3 unexpected character (byte 0xc0)");
  EXPECT_EQ(lex_error("a \xe0\x80\xaf"), "lexical 1:3 unexpected character (byte 0xe0)");
  EXPECT_EQ(lex_error("a \xed\xa0\x80"), "lexical 1:3 unexpected character (byte 0xed)");
  // A NUL byte inside the text is a stray character, not the end.
  EXPECT_EQ(lex_error(std::string("a \0 b", 5)), "lexical 1:3 unexpected character (byte 0x00)");
}

TEST(Lexer, LongestStringIsAllowed) {
  auto t = lex_all("\"" + std::string(255, 'x') + "\"");
  EXPECT_EQ(t[0].text.size(), 255u);
  // Escapes count once: 255 value characters written with 256 source bytes.
  auto u = lex_all("\"\\\"" + std::string(254, 'x') + "\"");
  EXPECT_EQ(u[0].text.size(), 255u);
}

TEST(Lexer, Describe) {
  auto src = source("where \"a long string literal that goes on and on\"");
  Lexer lx(src);
  Token w = lx.next();
  EXPECT_EQ(describe(w, *src), "'where'");
  Token s = lx.next();
  EXPECT_EQ(describe(s, *src), "'\"a long string literal that g...'");
  EXPECT_EQ(describe(lx.next(), *src), "end of input");
}

}  // namespace
}  // namespace quelkit::frontend
