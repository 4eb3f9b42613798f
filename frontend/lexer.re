// The QUEL lexer, compiled by re2c 3.0 (`re2c -W --case-ranges`). The source
// text is a std::string, so its terminating NUL is the sentinel; the `$` rule
// (re2c:eof) tells the real end from a NUL byte inside the text, which is an
// "unexpected character" like any other stray byte.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "frontend/frontend.h"
#include "frontend/lexer.h"
#include "frontend/shown_text.h"
#include "frontend/schema.h"

namespace quelkit::frontend {

namespace {

// The bytes of the well-formed UTF-8 character of 2-4 bytes at p, or 0. The
// text ends in a NUL, which no continuation byte is, so no read runs past it.
size_t utf8_length(const char* p) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(p[i]); };
  const size_t n = b(0) >= 0xc2 && b(0) <= 0xdf ? 2 : b(0) >= 0xe0 && b(0) <= 0xef ? 3 : b(0) >= 0xf0 && b(0) <= 0xf4 ? 4 : 0;
  for (size_t i = 1; i < n; ++i)
    if ((b(i) & 0xc0) != 0x80) return 0;
  // Overlong forms, surrogates and code points past U+10FFFF are not characters.
  if ((n == 3 && b(0) == 0xe0 && b(1) < 0xa0) || (n == 3 && b(0) == 0xed && b(1) >= 0xa0) ||
      (n == 4 && b(0) == 0xf0 && b(1) < 0x90) || (n == 4 && b(0) == 0xf4 && b(1) >= 0x90))
    return 0;
  return n;
}

uint32_t utf8_code_point(const char* p, size_t n) {
  uint32_t cp = static_cast<unsigned char>(p[0]) & (0x7f >> n);
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(p[i]) & 0x3f);
  return cp;
}

}  // namespace

std::string tok_kind_name(Tok k) {
  switch (k) {
    case Tok::End: return "end of input";
    case Tok::Name: return "name";
    case Tok::Int: return "integer";
    case Tok::Float: return "number";
    case Tok::String: return "string";
    case Tok::Command: return "monitor command";
    case Tok::Error: return "text that does not lex";
#define QK_TOK_NAME(ID, SPELL) \
  case Tok::ID:                \
    return std::string("'") + SPELL + "'";
      QK_KEYWORDS(QK_TOK_NAME) QK_PUNCT(QK_TOK_NAME)
#undef QK_TOK_NAME
  }
  return "?";
}

bool reserved_word(std::string_view word) {
  static constexpr const char* kWords[] = {
#define QK_TOK_WORD(ID, SPELL) SPELL,
      QK_KEYWORDS(QK_TOK_WORD)
#undef QK_TOK_WORD
  };
  for (const char* k : kWords)
    if (word.size() == std::strlen(k) &&
        std::equal(word.begin(), word.end(), k, [](char a, char b) { return std::tolower((unsigned char)a) == b; }))
      return true;
  return false;
}

std::string describe(const Token& t, const Source& src) {
  if (t.kind == Tok::End) return "end of input";
  // Long tokens are cut so the message stays one readable line.
  return "'" + cut_token(std::string_view(src.text()).substr(t.begin, t.end - t.begin)) + "'";
}

Lexer::Lexer(SourceRef src) : src_(std::move(src)) {
  base_ = src_->text().c_str();
  cur_ = base_;
  lim_ = base_ + src_->text().size();
}

void Lexer::fail(const char* at, std::string msg, const char* resume) {
  resume_ = std::min(resume ? resume : at + 1, lim_);
  error_at_ = at;
  throw_error(ErrKind::Lexical, src_->pos_of(size_t(at - base_)), src_, std::move(msg));
}

Token Lexer::make(Tok k, const char* b, const char* e) const {
  Token t;
  t.kind = k;
  t.begin = size_t(b - base_);
  t.end = size_t(e - base_);
  t.pos = pos_at(t.begin);
  return t;
}

SrcPos Lexer::pos_at(size_t off) const {
  if (off < pos_off_) return src_->pos_of(off);  // behind the last one (skip_to): the table
  const char* p = base_ + pos_off_;
  const char* e = base_ + off;
  while ((p = static_cast<const char*>(std::memchr(p, '\n', size_t(e - p))))) {
    ++pos_line_;
    pos_line_begin_ = size_t(++p - base_);
  }
  pos_off_ = off;
  return {pos_line_, uint32_t(off - pos_line_begin_ + 1)};
}

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  digit = [0-9];
  letter = [a-zA-Z_];
  exponent = [eE] [+-]? digit+;
*/

// Called with `start` at the opening quote. Only \" and \\ are escapes; any
// other backslash stays in the value together with the character after it
// (that character is scanned on the next round). `raw` keeps \\ as written
// too: an expression's literal is bound from it (the manual's rule, where a
// backslash makes the next character ordinary, binder.cpp).
Token Lexer::string_literal(const char* start) {
  const unsigned char* YYCURSOR = reinterpret_cast<const unsigned char*>(start) + 1;
  const unsigned char* YYLIMIT = reinterpret_cast<const unsigned char*>(lim_);
  std::string value, raw;
  for (;;) {
    const unsigned char* run = YYCURSOR;
    /*!re2c
      $           { fail(start, "unterminated string literal", lim_); }
      "\n"        { fail(start, "newline in string literal (strings end on the line they start)",
                         reinterpret_cast<const char*>(YYCURSOR)); }
      "\\\""      { value += '"'; raw += '"'; continue; }
      "\\\\"      { value += '\\'; raw += "\\\\"; continue; }
      "\\"        { value += '\\'; raw += '\\'; continue; }
      "\""        { break; }
      [^"\\\n]+   { value.append(reinterpret_cast<const char*>(run), size_t(YYCURSOR - run));
                     raw.append(reinterpret_cast<const char*>(run), size_t(YYCURSOR - run)); continue; }
    */
  }
  const char* end = reinterpret_cast<const char*>(YYCURSOR);
  if (value.size() > 255)
    // Bytes: a value is stored in a cN of N bytes, whatever characters they encode.
    fail(start, "string literal of " + std::to_string(value.size()) + " bytes is too long (at most 255)",
         reinterpret_cast<const char*>(YYCURSOR));
  cur_ = end;
  last_end_ = size_t(end - base_);
  Token t = make(Tok::String, start, end);
  t.text = std::move(value);
  t.raw = std::move(raw);
  return t;
}

Token Lexer::next() {
  const unsigned char* YYCURSOR = reinterpret_cast<const unsigned char*>(cur_);
  const unsigned char* YYLIMIT = reinterpret_cast<const unsigned char*>(lim_);
  const unsigned char* YYMARKER = nullptr;
  for (;;) {
    const char* tok = reinterpret_cast<const char*>(YYCURSOR);
    // Every rule that produces a token goes through here: it moves cur_ past it.
    auto emit = [&](Tok k) {
      cur_ = reinterpret_cast<const char*>(YYCURSOR);
      last_end_ = size_t(cur_ - base_);
      Token t = make(k, tok, cur_);
      if (k != Tok::Int && k != Tok::Float) {
        t.text = lowercase(std::string_view(tok, size_t(cur_ - tok)));
      }
      return t;
    };
    /*!re2c
      $ {
        // Placed just after the last token, so "unexpected end of input"
        // points at the line where the statement stopped, not past comments.
        cur_ = lim_;
        return make(Tok::End, base_ + last_end_, base_ + last_end_);
      }

      [ \t\r\n\f\v]+ { continue; }

      "/*" {
        const char* close = static_cast<const char*>(
            memmem(YYCURSOR, size_t(lim_ - reinterpret_cast<const char*>(YYCURSOR)), "*/", 2));
        if (!close) fail(tok, "unterminated comment", lim_);
        YYCURSOR = reinterpret_cast<const unsigned char*>(close) + 2;
        continue;
      }

      'range'    { return emit(Tok::Range); }
      'of'       { return emit(Tok::Of); }
      'is'       { return emit(Tok::Is); }
      'retrieve' { return emit(Tok::Retrieve); }
      'unique'   { return emit(Tok::Unique); }
      'into'     { return emit(Tok::Into); }
      'where'    { return emit(Tok::Where); }
      'sort'     { return emit(Tok::Sort); }
      'by'       { return emit(Tok::By); }
      'create'   { return emit(Tok::Create); }
      'append'   { return emit(Tok::Append); }
      'to'       { return emit(Tok::To); }
      'delete'   { return emit(Tok::Delete); }
      'replace'  { return emit(Tok::Replace); }
      'copy'     { return emit(Tok::Copy); }
      'from'     { return emit(Tok::From); }
      'modify'   { return emit(Tok::Modify); }
      'on'       { return emit(Tok::On); }
      'destroy'  { return emit(Tok::Destroy); }
      'print'    { return emit(Tok::Print); }
      'help'     { return emit(Tok::Help); }
      'and'      { return emit(Tok::And); }
      'or'       { return emit(Tok::Or); }
      'not'      { return emit(Tok::Not); }
      'begin'    { return emit(Tok::Begin); }
      'end'      { return emit(Tok::EndTxn); }
      'abort'    { return emit(Tok::Abort); }
      'save'     { return emit(Tok::Save); }
      'define'   { return emit(Tok::Define); }

      letter (letter | digit)* { return emit(Tok::Name); }

      digit+ {
        // Saturate while scanning: anything above the i4 range is an error
        // however many digits it has.
        uint64_t v = 0;
        for (const char* p = tok; p != reinterpret_cast<const char*>(YYCURSOR); ++p)
          v = std::min<uint64_t>(v * 10 + uint64_t(*p - '0'), uint64_t(1) << 40);
        if (v > 2147483647)
          fail(tok, "integer literal " + std::string(tok, reinterpret_cast<const char*>(YYCURSOR)) +
                        " is too large (the largest is 2147483647)", reinterpret_cast<const char*>(YYCURSOR));
        Token t = emit(Tok::Int);
        t.ival = int64_t(v);
        return t;
      }

      digit+ "." digit* exponent? | "." digit+ exponent? | digit+ exponent {
        const char* e = reinterpret_cast<const char*>(YYCURSOR);
        double v = 0;
        auto r = std::from_chars(tok, e, v);
        // Out of range is an overflow to infinity or an underflow to zero;
        // either way the literal does not mean what it says.
        if (r.ec != std::errc() || r.ptr != e)
          fail(tok, "float literal " + std::string(tok, e) + " is out of range", e);
        Token t = emit(Tok::Float);
        t.fval = v;
        return t;
      }

      "\"" {
        cur_ = tok;
        return string_literal(tok);
      }

      // The monitor's commands: a script written for the monitor, or read
      // into it with \i, holds them (INGRES scripts end statements with \g).
      // The parser decides what each means in a script.
      "\\" letter+ {
        Token t = emit(Tok::Command);
        t.text = t.text.substr(1);
        return t;
      }

      "**" { return emit(Tok::Power); }
      "+"  { return emit(Tok::Plus); }
      "-"  { return emit(Tok::Minus); }
      "*"  { return emit(Tok::Star); }
      "/"  { return emit(Tok::Slash); }
      "="  { return emit(Tok::Eq); }
      "!=" { return emit(Tok::Ne); }
      "<"  { return emit(Tok::Lt); }
      "<=" { return emit(Tok::Le); }
      ">"  { return emit(Tok::Gt); }
      ">=" { return emit(Tok::Ge); }
      "("  { return emit(Tok::LParen); }
      ")"  { return emit(Tok::RParen); }
      ","  { return emit(Tok::Comma); }
      "."  { return emit(Tok::Dot); }
      ":"  { return emit(Tok::Colon); }

      * {
        unsigned char c = static_cast<unsigned char>(*tok);
        char buf[96];
        const size_t n = utf8_length(tok);
        if (c >= 0x21 && c < 0x7f)
          snprintf(buf, sizeof buf, "unexpected character '%c'", c);
        else if (const uint32_t cp = n ? utf8_code_point(tok, n) : 0; cp == 0xFEFF)
          // Two files joined end to end: the second one's mark, mid-text.
          snprintf(buf, sizeof buf, "unexpected byte-order mark (U+FEFF), which only the start of a text may have");
        else if (cp == 0xA0 || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2028 || cp == 0x2029 ||
                 cp == 0x2060)  // shown between quotes it would look like nothing, or a blank
          snprintf(buf, sizeof buf, "unexpected invisible character (U+%04X)", unsigned(cp));
        else if (n)  // a character of UTF-8 text outside a string: shown, and named by its code point
          snprintf(buf, sizeof buf, "unexpected character '%.*s' (U+%04X)", int(n), tok, unsigned(cp));
        else
          snprintf(buf, sizeof buf, "unexpected character (byte 0x%02x)", c);
        fail(tok, buf);
      }
    */
  }
}

}  // namespace quelkit::frontend
