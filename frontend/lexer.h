// Tokens of QUEL and the lexer that produces them (lexer.re, compiled by re2c
// at build time). Private to the front end: the parser pulls tokens one at a
// time, so a lexical error is reported only when parsing reaches it and the
// first error in the text is the one the user sees.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/source.h"

namespace quelkit::frontend {

// Keywords are reserved (case-insensitive); heap/isam/hash/fillfactor are not:
// the parser checks them as plain names where `modify` expects them. `end`
// (POSTQUEL's, closing a transaction) is EndTxn: End is the end of input.
#define QK_KEYWORDS(X)                                                                           \
  X(Range, "range") X(Of, "of") X(Is, "is") X(Retrieve, "retrieve") X(Unique, "unique")          \
  X(Into, "into") X(Where, "where") X(Sort, "sort") X(By, "by") X(Create, "create")              \
  X(Append, "append") X(To, "to") X(Delete, "delete") X(Replace, "replace") X(Copy, "copy")      \
  X(From, "from") X(Modify, "modify") X(On, "on") X(Destroy, "destroy") X(Print, "print")        \
  X(Help, "help") X(And, "and") X(Or, "or") X(Not, "not") X(Begin, "begin") X(EndTxn, "end")     \
  X(Abort, "abort") X(Save, "save") X(Define, "define")

#define QK_PUNCT(X)                                                                     \
  X(Plus, "+") X(Minus, "-") X(Star, "*") X(Slash, "/") X(Power, "**") X(Eq, "=")       \
  X(Ne, "!=") X(Lt, "<") X(Le, "<=") X(Gt, ">") X(Ge, ">=") X(LParen, "(")             \
  X(RParen, ")") X(Comma, ",") X(Dot, ".") X(Colon, ":")

enum class Tok : uint8_t {
  End,     // end of input
  Name,    // text = lower-cased name
  Int,     // ival (0..2147483647)
  Float,   // fval
  String,  // text = value, escapes resolved
  Command, // a terminal-monitor command, `\g`: text = its word, lower-cased
  Error,   // never from the lexer: the parser's stand-in for text that failed to lex
#define QK_TOK_ENUM(ID, SPELL) ID,
  QK_KEYWORDS(QK_TOK_ENUM) QK_PUNCT(QK_TOK_ENUM)
#undef QK_TOK_ENUM
};

// One of QK_KEYWORDS (reserved: never a name).
constexpr bool is_keyword(Tok k) {
  switch (k) {
#define QK_TOK_CASE(ID, SPELL) case Tok::ID:
    QK_KEYWORDS(QK_TOK_CASE)
#undef QK_TOK_CASE
    return true;
    default: return false;
  }
}

// "end of input", "name", "'where'", "'('": how messages name a token kind.
std::string tok_kind_name(Tok k);

struct Token {
  Tok kind = Tok::End;
  SrcPos pos;                 // of the first byte
  size_t begin = 0, end = 0;  // byte range in the source
  std::string text;           // Name: lower case; String: value
  // String: the text with only \" resolved, each other backslash kept with
  // the character after it: the escapes an expression's string literal
  // resolves when it is bound (a value, or a pattern: rt::unescape).
  std::string raw;
  int64_t ival = 0;
  double fval = 0;
};

// How a syntax error names the token it found: its spelling in quotes, or
// "end of input".
std::string describe(const Token& t, const Source& src);

class Lexer {
 public:
  explicit Lexer(SourceRef src);
  // Next token; Tok::End (repeatedly) at the end. Throws QuelError (Lexical).
  Token next();
  // After a lexical error: goes on past the bad text (the stray byte, the
  // literal, the rest of an unterminated string's line or comment's text).
  void skip_error() { cur_ = resume_; }
  // After a lexical error: the byte range of the bad text (where it starts,
  // where skip_error() goes on).
  size_t error_begin() const { return size_t(error_at_ - base_); }
  size_t error_end() const { return size_t(resume_ - base_); }
  // Goes on at byte `offset`: text the parser took whole (\i's file name,
  // the rest of its line) is not lexed.
  void skip_to(size_t offset) { cur_ = base_ + std::min(offset, size_t(lim_ - base_)); }

 private:
  // `resume`: where skip_error() goes on (nullptr: the byte after `at`).
  [[noreturn]] void fail(const char* at, std::string msg, const char* resume = nullptr);
  Token make(Tok k, const char* b, const char* e) const;
  // The line:col of a token at `off`, counted on from the last token's:
  // tokens come in text order, and a search of the line table per token
  // was a share of every short statement's parse.
  SrcPos pos_at(size_t off) const;
  Token string_literal(const char* start);

  SourceRef src_;
  const char* base_;
  const char* cur_;
  const char* lim_;
  size_t last_end_ = 0;  // end of the last token returned (where Tok::End is placed)
  const char* resume_ = nullptr;  // where skip_error() goes on
  const char* error_at_ = nullptr;  // where the last lexical error is
  mutable size_t pos_off_ = 0, pos_line_begin_ = 0;  // pos_at's last offset and its line's start
  mutable uint32_t pos_line_ = 1;
};

}  // namespace quelkit::frontend
