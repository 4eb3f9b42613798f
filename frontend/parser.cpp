// The QUEL parser: hand-written recursive descent for statements, precedence
// climbing for expressions. It pulls tokens from the lexer on demand with at
// most two tokens of lookahead (`name =` vs `v.attr` in a target list), so the
// first error in the text, lexical or syntactic, is the one reported.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <deque>

#include <iterator>

#include "frontend/copy_format.h"
#include "frontend/frontend.h"
#include "frontend/ir.h"
#include "frontend/lexer.h"
#include "frontend/types.h"

namespace quelkit::frontend {

namespace {

using ast::Expr;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;

// Binding powers. Prefix `not` sits between `and` and the comparisons, prefix
// `-`/`+` between `*`/`/` and `**`, so `not a = b` is not (a = b) and `-2**2`
// is -(2**2). Each operator's power is in the operator catalogue (ops.def).
struct Prec {
  enum : int { None = 0, Or = 1, And = 2, Not = 3, Cmp = 4, Add = 5, Mul = 6, Unary = 7, Pow = 8 };
};

struct BinOp {
  const char* op;
  int prec;
};

// The binary operators: the catalogue's rows of two operands with a token.
bool binop(Tok k, BinOp* out) {
  struct Row {
    Tok tok;
    int arity;
    const char* quel;
    int prec;
  };
  using enum Tok;
  static constexpr Tok None = End;  // the TOKEN column's "no token"
  static constexpr Row kRows[] = {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) {TOKEN, AR, QUEL, Prec::PREC},
#include "frontend/ops.def"
  };
  static_assert(std::size(kRows) == size_t(ir::kNumGenerics));
  // Indexed by token once, the first row of a token kept: the parser asks
  // after every operand, and scanning the catalogue each time was a share
  // of every short statement's parse.
  static const auto kByTok = [] {
    std::array<BinOp, 256> t{};
    for (const Row& r : kRows)
      if (r.tok != None && r.arity == 2 && !t[uint8_t(r.tok)].op) t[uint8_t(r.tok)] = {r.quel, r.prec};
    return t;
  }();
  const BinOp& b = kByTok[uint8_t(k)];
  if (!b.op) return false;
  *out = b;
  return true;
}

bool starts_statement(Tok k) {
  switch (k) {
    case Tok::Range: case Tok::Retrieve: case Tok::Create: case Tok::Append: case Tok::Delete:
    case Tok::Replace: case Tok::Copy: case Tok::Modify: case Tok::Destroy: case Tok::Print:
    case Tok::Help: case Tok::Begin: case Tok::EndTxn: case Tok::Abort: case Tok::Save:
    case Tok::Define:
      return true;
    default:
      return false;
  }
}

class Parser {
 public:
  explicit Parser(const SourceRef& src) : src_(src), lex_(src) {}

  // Without `errors`, the first error is thrown. With it, each statement's
  // first error is collected, parsing goes on at the next statement keyword,
  // and every statement that parsed is returned.
  std::vector<StmtPtr> parse_all(std::vector<Error>* errors = nullptr) {
    std::vector<StmtPtr> out;
    SrcPos last_error;  // where the previous statement's error was reported
    for (;;) {
      size_t begin = kNoBegin, second = std::string::npos;
      // A statement's lex and parse time (--stats' parse_ns), from its
      // first token's lexing to its last's.
      const auto t0 = std::chrono::steady_clock::now();
      try {
        if (peek().kind == Tok::End) break;
        begin = peek().begin;
        if (peek().kind == Tok::Command) {
          if (is_include(peek())) {
            out.push_back(include());
            continue;
          }
          if (script_command()) continue;
          break;  // \q: the script ends here
        }
        // Where the statement's second token starts, if only blanks come
        // between (the source's text, so nothing more is lexed here).
        second = src_->text().find_first_not_of(" \t\r\n", peek().end);
        out.push_back(statement());
        out.back()->parse_ns =
            uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
      } catch (QuelError& e) {
        if (!errors) throw;
        // A keyword used as a name (`range of retrieve is parts`) is where
        // the error is and where recovery restarts; the "statement" it
        // starts fails at once, at its second token. That is the same
        // mistake, not a second one: it is not reported again.
        const bool cascade = begin != kNoBegin && second != std::string::npos && last_error == src_->pos_of(begin) &&
                             e.err.pos == src_->pos_of(second);
        last_error = e.err.pos;
        if (!cascade) errors->push_back(std::move(e.err));
        recover(begin);
      }
    }
    return out;
  }

 private:
  static constexpr size_t kNoBegin = ~size_t(0);

  // Skips to the next statement keyword, or monitor command, after the
  // failed statement's first token (`begin`; kNoBegin if even that did not
  // lex). Errors in the skipped text are not reported: they belong to the
  // statement already reported. A command is a boundary of its own: a \q
  // after a failed statement or a refused command still ends the script
  // (it was skipped with the text, and the statements after it ran).
  void recover(size_t begin) {
    for (;;) {
      const Token& t = peek();
      if (t.kind == Tok::End) return;
      if ((starts_statement(t.kind) || t.kind == Tok::Command || at_index_statement()) &&
          (begin == kNoBegin || t.begin > begin))
        return;
      take();
    }
  }

  // A monitor command between statements. In a script, as in the monitor,
  // \g (go) ends the statements before it, which need no terminator here,
  // so it is skipped; \q (quit) ends the script (false). The others act on
  // the monitor's buffer or the terminal and mean nothing in a script: an
  // error of their own, which costs no statement around them.
  bool script_command() {
    const Token& t = peek();
    if (t.text == "g" || t.text == "go") {
      take();
      return true;
    }
    if (t.text == "q" || t.text == "quit") return false;
    fail_at(t, "monitor command " + describe(t, *src_) +
                   " works only in the terminal monitor (a script may use \\g, \\i and \\q)");
  }

  static bool is_include(const Token& t) { return t.text == "i" || t.text == "include" || t.text == "read"; }

  // \i FILE: the rest of the line is the file's name, as in the monitor
  // (blanks around it dropped, quotes optional), taken as written: it is
  // not lexed, so any name a shell would take works.
  StmtPtr include() {
    Token t = take();
    auto s = std::make_unique<Stmt>();
    s->kind = Stmt::Include;
    s->pos = t.pos;
    s->begin = t.begin;
    const std::string& text = src_->text();
    const size_t eol = std::min(text.find('\n', t.end), text.size());
    size_t b = text.find_first_not_of(" \t", t.end);
    size_t e = text.find_last_not_of(" \t\r", eol == 0 ? 0 : eol - 1);
    if (b >= eol || e == std::string::npos || e < b) throw_error(ErrKind::Syntax, t.pos, src_, "\\i needs a file name");
    if (e > b && text[b] == '"' && text[e] == '"') ++b, --e;
    s->file = text.substr(b, e - b + 1);
    s->file_pos = src_->pos_of(b);
    buf_.clear();  // nothing after the command was lexed but what lookahead took
    lex_.skip_to(eol);
    last_end_ = eol;
    s->end = eol;
    return s;
  }

  // ---- tokens ----
  const Token& peek(size_t k = 0) {
    while (buf_.size() <= k) buf_.push_back(next_token());
    return buf_[k];
  }
  // A lexical error becomes a token of its own (Tok::Error), its error kept
  // until the parser needs a token there (or decides by it: lookahead()), so
  // the error is raised where the parser knows what it was parsing:
  // statement()'s end says which statement does not run.
  Token next_token() {
    try {
      return lex_.next();
    } catch (QuelError& e) {
      Token t;
      t.kind = Tok::Error;
      t.begin = lex_.error_begin();
      t.end = lex_.error_end();
      t.pos = e.err.pos;
      lex_errors_.emplace_back(t.begin, std::move(e.err));
      lex_.skip_error();
      return t;
    }
  }
  Token take() {
    peek();
    Token t = std::move(buf_.front());
    buf_.pop_front();
    last_end_ = t.end;
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    take();
    return true;
  }
  // `transaction` after begin, end or abort (a name: Token::text is lower case).
  void transaction_word() {
    if (peek().kind == Tok::Name && peek().text == "transaction") take();
  }
  [[noreturn]] void fail_at(const Token& t, const std::string& msg) {
    // Text that did not lex, where a token was needed: its lexical error.
    if (t.kind == Tok::Error) throw QuelError(lex_error(t));
    throw_error(ErrKind::Syntax, t.pos, src_, msg);
  }
  // The token after the next, which decides how the next one parses (`name
  // =` or `v.attr`): where it did not lex, the decision cannot be made, and
  // its lexical error is the one to report (an invisible character after a
  // name is not "a bare name").
  const Token& lookahead() {
    const Token& t = peek(1);
    if (t.kind == Tok::Error) throw QuelError(lex_error(t));
    return t;
  }
  // The error of a Tok::Error token.
  Error lex_error(const Token& t) const {
    for (const auto& [begin, err] : lex_errors_)
      if (begin == t.begin) return err;
    return Error{};  // unreachable: every Tok::Error token has its error
  }
  // "expected ')' but found 'where'" / "unexpected end of input (expected ')')".
  [[noreturn]] void expected(const std::string& what) {
    const Token& t = peek();
    if (t.kind == Tok::End) fail_at(t, "unexpected end of input (expected " + what + ")");
    fail_at(t, "expected " + what + " but found " + describe(t, *src_));
  }
  Token expect(Tok k) {
    if (peek().kind != k) expected(tok_kind_name(k));
    return take();
  }
  Token expect_name(const char* what) {
    if (peek().kind != Tok::Name) expected(what);
    return take();
  }

  // ---- statements ----
  StmtPtr statement() {
    const Token& first = peek();
    // `index` is no keyword (relations and domains may be called index):
    // a statement starts with it only as `index on`.
    const bool index_stmt = at_index_statement();
    if (!index_stmt && !starts_statement(first.kind))
      expected("a statement (range, retrieve, create, append, delete, replace, copy, modify, "
               "destroy, print, help, save, define, begin, end, abort)");
    auto s = std::make_unique<Stmt>();
    s->pos = first.pos;
    s->begin = first.begin;
    Token kw = take();
    if (index_stmt) index(*s);
    else switch (kw.kind) {
      case Tok::Range: range(*s); break;
      case Tok::Retrieve: retrieve(*s); break;
      case Tok::Create: create_or_copy(*s, Stmt::Create); break;
      case Tok::Append: append(*s); break;
      case Tok::Delete: delete_(*s); break;
      case Tok::Replace: replace(*s); break;
      case Tok::Copy: create_or_copy(*s, Stmt::Copy); break;
      case Tok::Modify: modify(*s); break;
      case Tok::Destroy: destroy(*s); break;
      case Tok::Define: define(*s); break;
      case Tok::Print: relation_list(*s, Stmt::Print); break;
      case Tok::Help: help(*s); break;
      case Tok::Save: save(*s); break;
      // begin, end, abort, each optionally followed by `transaction` as
      // POSTQUEL wrote them (the session keeps the transaction,
      // engine/session.h). No statement starts with a name, so the word
      // after the keyword can only be this one.
      case Tok::Begin: s->kind = Stmt::Begin; transaction_word(); break;
      case Tok::EndTxn: s->kind = Stmt::End; transaction_word(); break;
      case Tok::Abort: s->kind = Stmt::Abort; transaction_word(); break;
      default: break;  // unreachable: starts_statement() checked the kind
    }
    s->end = last_end_;
    // Statements need no terminator, so whatever follows must start the next
    // one. Text after it that does not lex leaves the statement unfinished,
    // as a stray name does (`delete p $where ...` must not delete every
    // tuple); its error says so, since the bad text may be lines further on
    // (an unterminated comment meant to hide the rest of a file).
    if (peek().kind == Tok::Error) {
      Error e = lex_error(peek());
      e.message += std::string(": the ") + stmt_word(s->kind) + " statement before it does not run";
      throw QuelError(std::move(e));
    }
    if (peek().kind != Tok::End && peek().kind != Tok::Command && !starts_statement(peek().kind) &&
        !at_index_statement())
      expected(std::string("the end of the ") + stmt_word(s->kind) + " statement or a new statement");
    return s;
  }

  static const char* stmt_word(Stmt::Kind k) { return ast::statement_word(k); }
  bool at_index_statement() { return peek().kind == Tok::Name && peek().text == "index" && peek(1).kind == Tok::On; }

  void relation_name(Stmt& s) {
    Token t = expect_name("a relation name");
    s.relation = t.text;
    s.relation_pos = t.pos;
  }

  // range of v is rel
  void range(Stmt& s) {
    s.kind = Stmt::Range;
    expect(Tok::Of);
    Token v = expect_name("a range variable name");
    s.var = v.text;
    s.var_pos = v.pos;
    expect(Tok::Is);
    relation_name(s);
  }

  // retrieve [unique] [into rel] (targets) [where q] [sort by name[:a|:d], ...]
  void retrieve(Stmt& s) {
    s.kind = Stmt::Retrieve;
    s.unique = accept(Tok::Unique);
    if (accept(Tok::Into)) relation_name(s);
    target_list(s);
    where(s);
    if (accept(Tok::Sort)) {
      expect(Tok::By);
      do {
        Token n = expect_name("a target name to sort by");
        ast::SortItem item{n.text, false, n.pos};
        if (accept(Tok::Colon)) {
          Token d = expect_name("'a' or 'd' (ascending or descending)");
          if (d.text == "d") item.descending = true;
          else if (d.text != "a") fail_at(d, "expected 'a' or 'd' (ascending or descending) but found " + describe(d, *src_));
        }
        s.sort.push_back(std::move(item));
      } while (accept(Tok::Comma));
    }
  }

  // create rel (attr = fmt, ...)   copy rel (attr = fmt, ...) from|into "file"
  void create_or_copy(Stmt& s, Stmt::Kind kind) {
    s.kind = kind;
    relation_name(s);
    expect(Tok::LParen);
    // copy rel (): INGRES's bulk copy of every domain as stored
    if (kind == Stmt::Copy && accept(Tok::RParen)) return copy_direction(s);
    do {
      Token n = expect_name("an attribute name");
      if (kind == Stmt::Create && n.text == "all")
        fail_at(n, "'all' cannot be an attribute name (v.all means every attribute of v)");
      // `number is i2`, the spelling of INGRES's own scripts, or `number = i2`.
      if (!accept(Tok::Eq) && !accept(Tok::Is)) expected("'=' or 'is'");
      if (kind == Stmt::Copy) {
        s.columns.push_back(copy_format(n));
        continue;
      }
      // Formats lex as names ("i2", "c20"); checking them here puts the error
      // on the format the user wrote.
      Token f = expect_name("a format (i1 i2 i4 f4 f8 c1..c255)");
      if (!parse_format(f.text))
        fail_at(f, "'" + f.text + "' is not a format (i1 i2 i4 f4 f8 c1..c255)");
      s.columns.push_back({n.text, f.text, n.pos, f.pos});
    } while (accept(Tok::Comma));
    expect(Tok::RParen);
    if (kind == Stmt::Copy) copy_direction(s);
  }

  // A copy format (frontend/copy_format.h): a name ("c0nl", "d1"), a name
  // and its quoted delimiter (c0"Z", kept as `c0"Z`), or all in quotes ("c0&").
  ast::ColumnDef copy_format(const Token& n) {
    Token f = peek().kind == Tok::String ? take() : expect_name("a copy format");
    std::string text = f.text;
    if (f.kind == Tok::Name && peek().kind == Tok::String) text += '"' + take().text;
    if (!parse_copy_format(text)) fail_at(f, "'" + text + "' is not a copy format (" + kCopyFormatList + ")");
    return {n.text, text, n.pos, f.pos};
  }

  void copy_direction(Stmt& s) {
    if (accept(Tok::Into)) s.copy_into = true;
    else if (!accept(Tok::From)) expected("'from' or 'into'");
    Token f = expect(Tok::String);
    s.file = f.text;
    s.file_pos = f.pos;
    // `with ingres`: binary and fixed fields alone, which would be the CSV
    if (peek().kind == Tok::Name && peek().text == "with") {
      take();
      Token m = expect_name("'ingres'");
      if (m.text != "ingres") fail_at(m, "expected 'ingres' (INGRES's formats for this list) but found " + describe(m, *src_));
      s.copy_ingres = true;
    }
  }

  // append [to] rel (attr = expr, ...) [where q]
  void append(Stmt& s) {
    s.kind = Stmt::Append;
    accept(Tok::To);
    relation_name(s);
    target_list(s);
    where(s);
  }

  void update_var(Stmt& s) {
    Token v = expect_name("a range variable");
    s.var = v.text;
    s.var_pos = v.pos;
  }

  // delete v [where q]
  void delete_(Stmt& s) {
    s.kind = Stmt::Delete;
    update_var(s);
    where(s);
  }

  // replace v (attr = expr, ...) [where q]
  void replace(Stmt& s) {
    s.kind = Stmt::Replace;
    update_var(s);
    target_list(s);
    where(s);
  }

  // modify rel to structure [on key[:sortorder], ...] [where fillfactor = n, minpages = n, maxpages = n]
  // (the modify manual page: isam, cisam, hash and chash without `on` key
  // on the first domain; heap, cheap and truncated take no `on`).
  void modify(Stmt& s) {
    s.kind = Stmt::Modify;
    relation_name(s);
    expect(Tok::To);
    static constexpr const char* kStructures = "heap, cheap, heapsort, cheapsort, isam, cisam, hash, chash or truncated";
    Token st = expect_name(kStructures);
    const std::string& w = st.text;
    const bool sorted = w == "heapsort" || w == "cheapsort";
    const bool keyed = w == "isam" || w == "cisam" || w == "hash" || w == "chash";
    if (!sorted && !keyed && w != "heap" && w != "cheap" && w != "truncated")
      fail_at(st, std::string("expected ") + kStructures + " but found " + describe(st, *src_));
    s.structure = w;
    if (peek().kind == Tok::On) {
      Token on = take();
      if (!sorted && !keyed) fail_at(on, "a " + w + " has no key: 'on' is only for isam, hash and the sorted heaps");
      do {
        Token k = expect_name("a key attribute");
        ast::SortItem item{k.text, false, k.pos};
        if (accept(Tok::Colon)) {
          Token d = expect_name("'ascending' or 'descending'");
          const bool desc = d.text == "descending" || d.text == "d";
          if (!desc && d.text != "ascending" && d.text != "a")
            fail_at(d, "expected 'ascending' or 'descending' but found " + describe(d, *src_));
          if (!sorted) fail_at(d, "a sort order is only for heapsort and cheapsort: " + w + " keys have none");
          item.descending = desc;
        }
        s.keys.push_back(std::move(item));
      } while (accept(Tok::Comma));
      s.key = s.keys.front().name;
      s.key_pos = s.keys.front().pos;
    }
    if (peek().kind == Tok::Where) {
      Token where = take();
      if (!keyed) fail_at(where, "a " + w + " has no fillfactor or pages: 'where' is only for isam and hash");
      do {
        Token p = expect_name("fillfactor, minpages or maxpages");
        int* into = p.text == "fillfactor" ? &s.fillfactor : p.text == "minpages" ? &s.minpages
                  : p.text == "maxpages" ? &s.maxpages : nullptr;
        if (!into) fail_at(p, "expected fillfactor, minpages or maxpages but found " + describe(p, *src_));
        if (into != &s.fillfactor && w != "hash" && w != "chash")
          fail_at(p, p.text + " is only for hash and chash (an isam has the pages its tuples fill)");
        expect(Tok::Eq);
        Token n = expect(Tok::Int);
        if (into == &s.fillfactor && (n.ival < 1 || n.ival > 100)) fail_at(n, "fillfactor must be between 1 and 100");
        if (into != &s.fillfactor && n.ival < 1) fail_at(n, p.text + " must be at least 1");
        if (into != &s.fillfactor && n.ival > 1000000) fail_at(n, p.text + " must be at most 1000000");
        *into = int(n.ival);
      } while (accept(Tok::Comma));
      if (s.minpages && s.maxpages && s.minpages > s.maxpages)
        fail_at(where, "minpages (" + std::to_string(s.minpages) + ") cannot exceed maxpages (" +
                           std::to_string(s.maxpages) + ")");
    }
  }

  // index on rel is name (domain, ...) (the index manual page).
  void index(Stmt& s) {
    s.kind = Stmt::Index;
    expect(Tok::On);  // (at_index_statement saw it)
    relation_name(s);
    expect(Tok::Is);
    Token n = expect_name("the index's name");
    s.index_name = n.text;
    s.index_pos = n.pos;
    expect(Tok::LParen);
    do {
      Token k = expect_name("a domain to index");
      s.keys.push_back(ast::SortItem{k.text, false, k.pos});
    } while (accept(Tok::Comma));
    expect(Tok::RParen);
  }

  // save rel until month day year: month 1..12 or its name, whole or cut
  // to three letters or more (the save manual page).
  void save(Stmt& s) {
    s.kind = Stmt::Save;
    relation_name(s);
    Token u = expect_name("'until'");
    if (u.text != "until") fail_at(u, "expected 'until' but found " + describe(u, *src_));
    static constexpr const char* kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                                              "july",    "august",   "september", "october", "november", "december"};
    int month = 0;
    Token m = take();
    if (m.kind == Tok::Int && m.ival >= 1 && m.ival <= 12) month = int(m.ival);
    else if (m.kind == Tok::Name && m.text.size() >= 3)
      for (int i = 0; i < 12; ++i)
        if (std::string_view(kMonths[i]).starts_with(m.text)) month = i + 1;
    if (!month) fail_at(m, "expected a month (1 to 12, or its name) but found " + describe(m, *src_));
    Token d = expect(Tok::Int);
    Token y = expect(Tok::Int);
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y.ival % 4 == 0 && y.ival % 100 != 0) || y.ival % 400 == 0;
    if (y.ival < 1970 || y.ival > 9999) fail_at(y, "expected a year from 1970 to 9999");
    if (d.ival < 1 || d.ival > kDays[month - 1] || (month == 2 && d.ival == 29 && !leap))
      fail_at(d, "there is no day " + std::to_string(d.ival) + " in " + kMonths[month - 1] + " " + std::to_string(y.ival));
    char date[48];
    std::snprintf(date, sizeof date, "%04d-%02d-%02d", int(y.ival), month, int(d.ival));
    s.save_until = date;
  }

  // destroy rel[, rel...]; destroy permit|integrity rel n {, n} | all (the
  // destroy manual page: the numbers help permit/integrity prints, or all).
  void destroy(Stmt& s) {
    const Token& w = peek();
    if (w.kind == Tok::Name && (w.text == "permit" || w.text == "integrity") && peek(1).kind == Tok::Name) {
      s.kind = Stmt::Destroy;
      s.define_pos = w.pos;
      s.define_what = take().text;
      relation_name(s);
      s.relations.push_back(s.relation);
      s.relation_positions.push_back(s.relation_pos);
      if (peek().kind == Tok::Name && peek().text == "all") {
        take();
        s.destroy_all = true;
        return;
      }
      if (peek().kind != Tok::Int) expected("the numbers help " + s.define_what + " lists, or 'all'");
      do {
        Token n = expect(Tok::Int);
        s.destroy_numbers.push_back(int(n.ival));
        s.destroy_number_positions.push_back(n.pos);
      } while (accept(Tok::Comma));
      return;
    }
    relation_list(s, Stmt::Destroy);
  }

  // define view name (targets) [where q]; define integrity on v is q;
  // define permit ops on|of|to v [(domains)] to user [at term]
  //   [from hh:mm to hh:mm] [on day to day] [where q]
  void define(Stmt& s) {
    s.kind = Stmt::Define;
    Token w = expect_name("view, integrity or permit");
    s.define_pos = w.pos;
    s.define_what = w.text;
    if (w.text == "view") {
      relation_name(s);
      target_list(s);
      where(s);
    } else if (w.text == "integrity") {
      expect(Tok::On);
      update_var(s);
      expect(Tok::Is);
      s.where = expr(Prec::Or);
    } else if (w.text == "permit") {
      permit(s);
    } else {
      fail_at(w, "expected view, integrity or permit but found " + describe(w, *src_));
    }
  }

  void permit(Stmt& s) {
    do {
      const Token& t = peek();
      std::string op = t.kind == Tok::Retrieve ? "retrieve" : t.kind == Tok::Replace ? "replace"
                     : t.kind == Tok::Delete ? "delete" : t.kind == Tok::Append ? "append"
                     : t.kind == Tok::Name && t.text == "all" ? "all" : "";
      if (op.empty()) expected("retrieve, replace, delete, append or all");
      take();
      if (op == "all") s.permit_ops = {"retrieve", "replace", "delete", "append"};
      else if (std::find(s.permit_ops.begin(), s.permit_ops.end(), op) == s.permit_ops.end()) s.permit_ops.push_back(op);
    } while (accept(Tok::Comma));
    if (!accept(Tok::On) && !accept(Tok::Of) && !accept(Tok::To)) expected("'on', 'of' or 'to'");
    update_var(s);
    if (accept(Tok::LParen)) {
      do {
        Token d = expect_name("a domain name");
        s.permit_domains.push_back(d.text);
        s.permit_domain_positions.push_back(d.pos);
      } while (accept(Tok::Comma));
      expect(Tok::RParen);
    }
    expect(Tok::To);
    Token u = peek().kind == Tok::String ? take() : expect_name("a user name or 'all'");
    s.permit_user = u.text;
    s.permit_user_pos = u.pos;
    if (peek().kind == Tok::Name && peek().text == "at") {
      take();
      Token t = peek().kind == Tok::String ? take() : expect_name("a terminal (ttyx) or 'all'");
      if (t.text != "all" && (t.text.size() < 4 || t.text.compare(0, 3, "tty") != 0))
        fail_at(t, "bad terminal identifier '" + t.text + "' (a terminal is ttyx, or all)");
      s.permit_terminal = t.text;
      s.permit_terminal_pos = t.pos;
    }
    if (accept(Tok::From)) {
      s.permit_from = clock_time();
      expect(Tok::To);
      s.permit_to = clock_time();
    }
    if (accept(Tok::On)) {
      s.permit_day_from = week_day();
      expect(Tok::To);
      s.permit_day_to = week_day();
    }
    where(s);
  }

  // hh:mm on a 24-hour clock, as minutes after midnight (24:00 is the day's end).
  int clock_time() {
    Token h = expect(Tok::Int);
    expect(Tok::Colon);
    Token m = expect(Tok::Int);
    if (h.ival > 24 || m.ival > 59 || (h.ival == 24 && m.ival != 0))
      fail_at(h, "expected a time hh:mm from 0:00 to 24:00");
    return int(h.ival * 60 + m.ival);
  }

  // A day of the week by its first three letters (or more of its name).
  int week_day() {
    static constexpr const char* kDays[] = {"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};
    Token d = expect_name("a day of the week (sun, mon, ... sat)");
    if (d.text.size() >= 3)
      for (int i = 0; i < 7; ++i)
        if (std::string_view(kDays[i]).starts_with(d.text)) return i;
    fail_at(d, "bad day of the week '" + d.text + "' (sun, mon, tue, wed, thu, fri or sat)");
  }

  // destroy rel[, rel...]   print rel[, rel...]
  void relation_list(Stmt& s, Stmt::Kind kind) {
    s.kind = kind;
    do {
      Token t = expect_name("a relation name");
      if (s.relations.empty()) {
        s.relation = t.text;
        s.relation_pos = t.pos;
      }
      s.relations.push_back(t.text);
      s.relation_positions.push_back(t.pos);
    } while (accept(Tok::Comma));
  }

  // help [name | "section"] {, name | "section"}; help view|permit|integrity
  // rel {, rel}. A statement keyword after it on the same line is an error,
  // not a statement of its own: `help delete p` must not delete (a statement
  // after a bare help begins on a line of its own). Whether a bare word is a
  // relation or a manual section (`help quel`) the session decides.
  void help(Stmt& s) {
    s.kind = Stmt::Help;
    if (peek().kind == Tok::Name && (peek().text == "view" || peek().text == "permit" || peek().text == "integrity") &&
        peek(1).kind == Tok::Name && peek(1).pos.line == peek().pos.line)
      s.help_what = take().text;
    if (peek().kind == Tok::Name || peek().kind == Tok::String) {
      do {
        const Token& t = peek();
        if (t.kind == Tok::String) {
          if (!s.help_what.empty()) expected("a relation name");
          Token n = take();
          s.help_items.push_back({n.text, true, n.pos});
          continue;
        }
        Token n = expect_name("a relation name or a \"section\"");
        s.help_items.push_back({n.text, false, n.pos});
      } while (accept(Tok::Comma));
      for (const auto& h : s.help_items)
        if (!h.section) {
          s.relation = h.name;
          s.relation_pos = h.pos;
          break;
        }
    } else if (starts_statement(peek().kind) && peek().pos.line == s.pos.line) {
      // `help help` and `help retrieve` ask for a statement's section.
      if (peek(1).kind == Tok::End || peek(1).pos.line != s.pos.line) {
        Token n = take();
        std::string word = tok_kind_name(n.kind);  // "'retrieve'"
        s.help_items.push_back({word.substr(1, word.size() - 2), true, n.pos});
        return;
      }
      throw_error(ErrKind::Syntax, peek().pos, src_,
                  "help takes relation names, not " + tok_kind_name(peek().kind) +
                      " (a statement after help begins on a line of its own)");
    }
  }

  void where(Stmt& s) {
    if (accept(Tok::Where)) s.where = expr(Prec::Or);
  }

  // (entry, ...): `name = expr` or a bare `v.attr`, which names itself
  // (a bare `v.all` stands for all of v's attributes: the binder expands it).
  void target_list(Stmt& s) {
    expect(Tok::LParen);
    do {
      ast::Target t;
      // `sort = 1`: meant as a name, but keywords are reserved.
      if (is_keyword(peek().kind) && lookahead().kind == Tok::Eq)
        throw_error(ErrKind::Syntax, peek().pos, src_,
                    tok_kind_name(peek().kind) + " is a keyword; it cannot name a target");
      if (peek().kind == Tok::Name && lookahead().kind == Tok::Eq) {
        Token n = take();
        take();
        t.name = n.text;
        t.pos = n.pos;
        t.expr = expr(Prec::Or);
      } else {
        t.pos = peek().pos;
        t.expr = expr(Prec::Or);
        if (t.expr->kind != Expr::Attr)
          throw_error(ErrKind::Syntax, t.pos, src_,
                      "a target list entry needs a name (name = expression)");
        t.name = t.expr->attr;
        t.all = t.name == "all";
      }
      s.targets.push_back(std::move(t));
    } while (accept(Tok::Comma));
    expect(Tok::RParen);
  }

  // ---- expressions ----
  static ExprPtr node(Expr::Kind k, SrcPos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = pos;
    return e;
  }

  // Every later stage (binder, fold pass, lowering, code generation) walks
  // expression trees recursively, so their depth is bounded here, once: a
  // deeper expression is a syntax error rather than a stack overflow.
  static constexpr int kMaxDepth = 1000;
  int depth_ = 0;
  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& depth) : d(++depth) {}
    ~DepthGuard() { --d; }
  };
  void check_depth(int extra) {
    if (depth_ + extra > kMaxDepth)
      fail_at(peek(), "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
  }

  // Precedence climbing: parses operators binding at least as tightly as `min`.
  ExprPtr expr(int min) {
    DepthGuard guard(depth_);
    check_depth(0);
    ExprPtr lhs = prefix(min);
    BinOp op;
    int chain = 0;  // a left-associative chain deepens the tree without recursing here
    const Expr* nary = nullptr;  // lhs, when it is an and/or this loop built
    while (binop(peek().kind, &op) && op.prec >= min) {
      // `a or b or c` is one n-ary node (ast.h): a flat chain of and/or adds
      // operands, not depth, so it is not counted against the depth limit.
      const bool joins = nary && nary == lhs.get() && lhs->op == op.op;
      if (!joins) check_depth(++chain);
      Token t = take();
      // `**` is right associative; everything else is left associative
      // (comparisons are rejected below rather than chained).
      ExprPtr rhs = expr(op.prec == Prec::Pow ? op.prec : op.prec + 1);
      if (joins) {
        lhs->args.push_back(std::move(rhs));
        continue;
      }
      auto e = node(Expr::Binary, t.pos);
      e->op = op.op;
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      lhs = std::move(e);
      if (op.prec == Prec::And || op.prec == Prec::Or) nary = lhs.get();
      BinOp next;
      if (op.prec == Prec::Cmp && binop(peek().kind, &next) && next.prec == Prec::Cmp)
        fail_at(peek(), "comparisons do not chain: write 'a < b and b < c'");
    }
    return lhs;
  }

  ExprPtr prefix(int min) {
    const Token& t = peek();
    if (t.kind == Tok::Not) {
      // `not` may only start an operand of and/or (or the whole condition):
      // `x = not y` is a syntax error, as in the grammar.
      if (min > Prec::Not) expected("an expression");
      Token n = take();
      auto e = node(Expr::Unary, n.pos);
      e->op = "not";
      e->args.push_back(expr(Prec::Not));
      return e;
    }
    if (t.kind == Tok::Minus || t.kind == Tok::Plus) {
      // Allowed wherever an operand is, so `2 ** -1` and `a * -b` parse.
      Token n = take();
      auto e = node(Expr::Unary, n.pos);
      e->op = n.kind == Tok::Minus ? "-" : "+";
      e->args.push_back(expr(Prec::Unary));
      return e;
    }
    return primary();
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int: {
        Token n = take();
        auto e = node(Expr::Int, n.pos);
        e->ival = n.ival;
        return e;
      }
      case Tok::Float: {
        Token n = take();
        auto e = node(Expr::Float, n.pos);
        e->fval = n.fval;
        return e;
      }
      case Tok::String: {
        Token n = take();
        auto e = node(Expr::String, n.pos);
        e->text = std::move(n.raw);  // its escapes resolved when bound
        return e;
      }
      case Tok::LParen: {
        take();
        ExprPtr e = expr(Prec::Or);
        expect(Tok::RParen);
        return e;
      }
      case Tok::Name: {
        Token n = take();
        if (accept(Tok::Dot)) {
          Token a = expect_name("an attribute name after '.'");
          auto e = node(Expr::Attr, n.pos);
          e->text = n.text;
          e->attr = a.text;
          return e;
        }
        if (is_aggregate_name(n.text) && peek().kind == Tok::LParen) return aggregate(std::move(n));
        if (accept(Tok::LParen)) {
          auto e = node(Expr::Call, n.pos);
          e->text = n.text;
          if (!accept(Tok::RParen)) {
            do e->args.push_back(expr(Prec::Or));
            while (accept(Tok::Comma));
            expect(Tok::RParen);
          }
          return e;
        }
        // `usercode`: the session's user, a constant (the binder gives its value).
        if (n.text == "usercode") {
          auto e = node(Expr::Call, n.pos);
          e->text = "usercode";
          return e;
        }
        fail_at(n, "expected v.attr but found the bare name '" + n.text +
                       "' (attributes are written variable.attribute)");
      }
      default:
        expected("an expression");
    }
  }

  // `name(arg [by e, ...] [where q])`: an aggregate (its name is taken).
  ExprPtr aggregate(Token n) {
    expect(Tok::LParen);
    auto e = node(Expr::Aggregate, n.pos);
    e->text = n.text;
    e->args.push_back(expr(Prec::Or));
    if (accept(Tok::By)) {
      do e->by.push_back(expr(Prec::Or));
      while (accept(Tok::Comma));
    }
    if (accept(Tok::Where)) e->qual = expr(Prec::Or);
    expect(Tok::RParen);
    return e;
  }

  SourceRef src_;
  Lexer lex_;
  std::deque<Token> buf_;
  std::vector<std::pair<size_t, Error>> lex_errors_;  // each Tok::Error's begin and error
  size_t last_end_ = 0;
};

}  // namespace

namespace {

// A text cut short by a line too long to read (Source::Cut) ends where that
// line starts: the error is there, after any the parser found before it
// (an "end of input" it met there is the cut's, not another), and the last
// statement does not run unless an error came after it: the line not read
// may continue it (`retrieve ... where` and a 16 MiB qualification).
void apply_cut(const SourceRef& src, std::vector<StmtPtr>& stmts, std::vector<Error>* errors) {
  const auto& cut = src->cut();
  if (!cut) return;
  const SrcPos at{src->cut_line(), 1};
  auto before = [](SrcPos a, SrcPos b) { return a.line < b.line || (a.line == b.line && a.col < b.col); };
  std::erase_if(*errors, [&](const Error& e) { return !before(e.pos, at); });
  Error e;
  e.kind = ErrKind::Lexical;
  e.pos = at;
  e.src = src;
  e.message = cut->message;
  if (!stmts.empty() && (errors->empty() || before(errors->back().pos, stmts.back()->pos))) {
    e.message += "; nor was the statement at " + position_text(src, stmts.back()->pos) + " run, which it may continue";
    stmts.pop_back();
  }
  errors->push_back(std::move(e));
}

}  // namespace

std::vector<ast::StmtPtr> parse(const SourceRef& src) {
  std::vector<Error> errors;
  std::vector<StmtPtr> stmts = Parser(src).parse_all(src->cut() ? &errors : nullptr);
  apply_cut(src, stmts, &errors);
  if (!errors.empty()) throw QuelError(std::move(errors.front()));
  return stmts;
}

std::vector<ast::StmtPtr> parse_recovering(const SourceRef& src, std::vector<Error>* errors) {
  std::vector<StmtPtr> stmts = Parser(src).parse_all(errors);
  apply_cut(src, stmts, errors);
  return stmts;
}

const std::string* RangeTable::find(std::string_view var) const {
  for (const auto& [v, r] : vars)
    if (v == var) return &r;
  return nullptr;
}

void RangeTable::set(const std::string& var, const std::string& rel) {
  for (auto& [v, r] : vars)
    if (v == var) {
      r = rel;
      return;
    }
  vars.emplace_back(var, rel);
}

}  // namespace quelkit::frontend
