// Parser: every statement form (checked through dump_ast), the fields the
// harness reads directly (positions, byte ranges), expression precedence and
// associativity, and syntax errors at the offending token.
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::err_text;
using fetest::error_of;
using fetest::source;

std::string ast_of(const std::string& text) {
  auto stmts = parse(source(text));
  std::string out;
  for (const auto& s : stmts) out += (out.empty() ? "" : "\n") + dump_ast(*s);
  return out;
}

std::string where_of(const std::string& cond) {
  std::string a = ast_of("retrieve (p.a) where " + cond);
  std::string prefix = "(retrieve (targets (a p.a)) (where ";
  EXPECT_EQ(a.substr(0, prefix.size()), prefix);
  return a.substr(prefix.size(), a.size() - prefix.size() - 2);
}

std::string syntax(const std::string& text) { return err_text(error_of(text, false)); }

TEST(Parser, Range) {
  auto s = parse(source("range of P is PARTS"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]->kind, ast::Stmt::Range);
  EXPECT_EQ(s[0]->var, "p");
  EXPECT_EQ(s[0]->var_pos, (SrcPos{1, 10}));
  EXPECT_EQ(s[0]->relation, "parts");
  EXPECT_EQ(s[0]->relation_pos, (SrcPos{1, 15}));
  EXPECT_EQ(dump_ast(*s[0]), "(range p parts)");
}

TEST(Parser, RetrieveForms) {
  EXPECT_EQ(ast_of("retrieve (a = 1)"), "(retrieve (targets (a 1)))");
  EXPECT_EQ(ast_of("retrieve (p.pnum)"), "(retrieve (targets (pnum p.pnum)))");
  EXPECT_EQ(ast_of("retrieve unique into r (p.pname, w = p.weight * 2) where p.qoh > 3 "
                   "sort by pname:d, w:a, pname"),
            "(retrieve unique (into r) (targets (pname p.pname) (w (* p.weight 2))) "
            "(where (> p.qoh 3)) (sort pname:d w:a pname:a))");
  EXPECT_EQ(ast_of("retrieve (s = \"a\\\"b\", f = 1.5, g = 1e3)"),
            "(retrieve (targets (s \"a\\\"b\") (f 1.5) (g 1000.0)))");
}

TEST(Parser, RetrieveFields) {
  auto s = parse(source("retrieve unique into Tmp (X = p.pnum) sort by x:d"));
  const ast::Stmt& r = *s[0];
  EXPECT_TRUE(r.unique);
  EXPECT_EQ(r.relation, "tmp");
  EXPECT_EQ(r.relation_pos, (SrcPos{1, 22}));
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].name, "x");
  EXPECT_EQ(r.targets[0].pos, (SrcPos{1, 27}));
  EXPECT_EQ(r.targets[0].expr->pos, (SrcPos{1, 31}));
  ASSERT_EQ(r.sort.size(), 1u);
  EXPECT_TRUE(r.sort[0].descending);
  EXPECT_EQ(r.sort[0].pos, (SrcPos{1, 47}));
}

TEST(Parser, CreateAndCopy) {
  EXPECT_EQ(ast_of("create parts (pnum = i2, pname = C20, w = f8)"),
            "(create parts (pnum i2) (pname c20) (w f8))");
  EXPECT_EQ(ast_of("copy parts (pnum = i4, pname = c20) from \"/tmp/p.csv\""),
            "(copy parts (pnum i4) (pname c20) from \"/tmp/p.csv\")");
  auto s = parse(source("copy r (a = i1) into \"out.csv\""));
  EXPECT_TRUE(s[0]->copy_into);
  EXPECT_EQ(s[0]->file, "out.csv");
  EXPECT_EQ(s[0]->file_pos, (SrcPos{1, 22}));
  EXPECT_EQ(s[0]->columns[0].format_pos, (SrcPos{1, 13}));
}

TEST(Parser, UpdateStatements) {
  EXPECT_EQ(ast_of("append to parts (pnum = 1, qoh = p.qoh + 1) where p.pnum = 2"),
            "(append parts (targets (pnum 1) (qoh (+ p.qoh 1))) (where (= p.pnum 2)))");
  EXPECT_EQ(ast_of("append parts (p.pnum)"), "(append parts (targets (pnum p.pnum)))");
  EXPECT_EQ(ast_of("delete p where p.qoh = 0"), "(delete p (where (= p.qoh 0)))");
  EXPECT_EQ(ast_of("delete p"), "(delete p)");
  EXPECT_EQ(ast_of("replace p (qoh = p.qoh - 1) where p.qoh > 0"),
            "(replace p (targets (qoh (- p.qoh 1))) (where (> p.qoh 0)))");
  auto s = parse(source("delete  q"));
  EXPECT_EQ(s[0]->var_pos, (SrcPos{1, 9}));
}

// index on rel is name (domains): `index` is a statement only before `on`,
// so relations and domains may still be called index.
TEST(Parser, Index) {
  EXPECT_EQ(ast_of("index on tenk1 is tenk1_u1 (unique1)"), "(index on tenk1 is tenk1_u1 (unique1))");
  EXPECT_EQ(ast_of("INDEX ON t IS ti (a, b)  retrieve (t.a)"),
            "(index on t is ti (a, b))\n(retrieve (targets (a t.a)))");
  EXPECT_EQ(ast_of("retrieve (index.a)"), "(retrieve (targets (a index.a)))");
  auto s = parse(source("index on t is ti (a, b)"));
  EXPECT_EQ(s[0]->index_pos, (SrcPos{1, 15}));
  ASSERT_EQ(s[0]->keys.size(), 2u);
  EXPECT_EQ(s[0]->keys[1].pos, (SrcPos{1, 22}));
  EXPECT_EQ(syntax("index on t ti (a)"), "syntax 1:12 expected 'is' but found 'ti'");
  EXPECT_EQ(syntax("index on t is ti ()"), "syntax 1:19 expected a domain to index but found ')'");
  EXPECT_EQ(syntax("index on t is ti (a"), "syntax 1:20 unexpected end of input (expected ')')");
}

TEST(Parser, Modify) {
  EXPECT_EQ(ast_of("modify parts to heap"), "(modify parts heap)");
  EXPECT_EQ(ast_of("modify parts to ISAM on pnum"), "(modify parts isam (on pnum))");
  EXPECT_EQ(ast_of("modify parts to hash on pnum where fillfactor = 80"),
            "(modify parts hash (on pnum) (fillfactor 80))");
  auto s = parse(source("modify r to isam on k"));
  EXPECT_EQ(s[0]->key_pos, (SrcPos{1, 21}));
  EXPECT_EQ(s[0]->fillfactor, 0);
  // The modify manual page's forms.
  EXPECT_EQ(ast_of("modify emp to isam"), "(modify emp isam)");
  EXPECT_EQ(ast_of("modify employee to heapsort on manager, salary:descending"),
            "(modify employee heapsort (on manager salary:d))");
  EXPECT_EQ(ast_of("modify e to cheapsort on a:d, b:ascending, c:a"), "(modify e cheapsort (on a:d b c))");
  EXPECT_EQ(ast_of("modify supply to chash on num where fillfactor = 75, minpages = 7,\n maxpages = 43"),
            "(modify supply chash (on num) (fillfactor 75) (minpages 7) (maxpages 43))");
  EXPECT_EQ(ast_of("modify parts to truncated"), "(modify parts truncated)");
}

TEST(Parser, SaveAndIs) {
  EXPECT_EQ(ast_of("save emp until feb 28 1987"), "(save emp until 1987-02-28)");
  EXPECT_EQ(ast_of("save emp until 12 31 2000"), "(save emp until 2000-12-31)");
  EXPECT_EQ(ast_of("save emp until September 1 1999"), "(save emp until 1999-09-01)");
  EXPECT_EQ(ast_of("create item (number is i2, name = c20)"), ast_of("create item (number = i2, name = c20)"));
  EXPECT_EQ(ast_of("retrieve (u = usercode)"), "(retrieve (targets (u (usercode))))");
}

TEST(Parser, DestroyPrintHelp) {
  EXPECT_EQ(ast_of("destroy a, b,c"), "(destroy a b c)");
  EXPECT_EQ(ast_of("print parts"), "(print parts)");
  EXPECT_EQ(ast_of("help"), "(help)");
  EXPECT_EQ(ast_of("help parts"), "(help parts)");
  EXPECT_EQ(ast_of("help emp, parts, \"help\", supply"), "(help emp parts \"help\" supply)");
  EXPECT_EQ(ast_of("help help"), "(help \"help\")");
  EXPECT_EQ(ast_of("help permit parts, employee"), "(help permit parts employee)");
  EXPECT_EQ(ast_of("help view\nhelp parts"), "(help view)\n(help parts)");
  auto s = parse(source("destroy a, bb"));
  EXPECT_EQ(s[0]->relation, "a");
  ASSERT_EQ(s[0]->relation_positions.size(), 2u);
  EXPECT_EQ(s[0]->relation_positions[1], (SrcPos{1, 12}));
}

// POSTQUEL's spellings: begin, end and abort, each alone or followed by
// `transaction`, which belongs to the statement (its text ends after it).
TEST(Parser, TransactionStatementsTakeTheWordTransaction) {
  const std::string text = "begin transaction\nend\nBEGIN Transaction abort\nabort transaction help";
  auto s = parse(source(text));
  ASSERT_EQ(s.size(), 6u);
  using ast::Stmt;
  const Stmt::Kind kinds[] = {Stmt::Begin, Stmt::End, Stmt::Begin, Stmt::Abort, Stmt::Abort, Stmt::Help};
  const char* texts[] = {"begin transaction", "end", "BEGIN Transaction", "abort", "abort transaction", "help"};
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i]->kind, kinds[i]) << i;
    EXPECT_EQ(text.substr(s[i]->begin, s[i]->end - s[i]->begin), texts[i]);
  }
  // Another name after the keyword is not a statement.
  EXPECT_THROW(parse(source("begin work")), QuelError);
}

TEST(Parser, SeveralStatementsWithoutTerminators) {
  std::string text = "range of p is parts\nretrieve (p.pnum) /* c */ help\n  print parts";
  auto s = parse(source(text));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(text.substr(s[0]->begin, s[0]->end - s[0]->begin), "range of p is parts");
  EXPECT_EQ(text.substr(s[1]->begin, s[1]->end - s[1]->begin), "retrieve (p.pnum)");
  EXPECT_EQ(text.substr(s[2]->begin, s[2]->end - s[2]->begin), "help");
  EXPECT_EQ(text.substr(s[3]->begin, s[3]->end - s[3]->begin), "print parts");
  EXPECT_EQ(s[3]->pos, (SrcPos{3, 3}));
  EXPECT_TRUE(parse(source("  /* nothing */ ")).empty());
}

TEST(Parser, Precedence) {
  EXPECT_EQ(where_of("p.a = -2**2"), "(= p.a (- (** 2 2)))");
  EXPECT_EQ(where_of("p.a = 2**3**2"), "(= p.a (** 2 (** 3 2)))");
  EXPECT_EQ(where_of("p.a = 2**-1*3"), "(= p.a (* (** 2 (- 1)) 3))");
  EXPECT_EQ(where_of("p.a = 1 + 2 * 3 - 4 / 5"), "(= p.a (- (+ 1 (* 2 3)) (/ 4 5)))");
  EXPECT_EQ(where_of("p.a = -p.b * p.c"), "(= p.a (* (- p.b) p.c))");
  EXPECT_EQ(where_of("p.a = +p.b"), "(= p.a (+ p.b))");
  EXPECT_EQ(where_of("p.a = 1 - 2 - 3"), "(= p.a (- (- 1 2) 3))");
  EXPECT_EQ(where_of("p.a = (1 - 2) * 3"), "(= p.a (* (- 1 2) 3))");
  EXPECT_EQ(where_of("p.a < 1 or p.b < 2 and not p.c < 3"),
            "(or (< p.a 1) (and (< p.b 2) (not (< p.c 3))))");
  EXPECT_EQ(where_of("not not p.a = 1"), "(not (not (= p.a 1)))");
  EXPECT_EQ(where_of("(p.a = 1 or p.b = 2) and p.c = 3"), "(and (or (= p.a 1) (= p.b 2)) (= p.c 3))");
  EXPECT_EQ(where_of("p.a != 1 and p.b <= 2 or p.c >= 3"), "(or (and (!= p.a 1) (<= p.b 2)) (>= p.c 3))");
  EXPECT_EQ(where_of("p.qoh < log(9.5) * p.weight"), "(< p.qoh (* (log 9.5) p.weight))");
  EXPECT_EQ(where_of("concat(p.a, \"x\") = mod(p.b, 3)"), "(= (concat p.a \"x\") (mod p.b 3))");
}

TEST(Parser, ExpressionPositions) {
  auto s = parse(source("retrieve (p.a) where p.b + log(2) > -3"));
  const ast::Expr& w = *s[0]->where;
  EXPECT_EQ(w.pos, (SrcPos{1, 35}));           // '>'
  EXPECT_EQ(w.args[0]->pos, (SrcPos{1, 26}));  // '+'
  EXPECT_EQ(w.args[0]->args[0]->pos, (SrcPos{1, 22}));
  EXPECT_EQ(w.args[0]->args[1]->pos, (SrcPos{1, 28}));  // log
  EXPECT_EQ(w.args[1]->pos, (SrcPos{1, 37}));           // unary '-'
  EXPECT_EQ(w.args[1]->args[0]->pos, (SrcPos{1, 38}));
}

TEST(Parser, Errors) {
  EXPECT_EQ(syntax("retrieve (p.a where p.b = 1"), "syntax 1:15 expected ')' but found 'where'");
  EXPECT_EQ(syntax("retrieve (p.a"), "syntax 1:14 unexpected end of input (expected ')')");
  EXPECT_EQ(syntax("retrieve (p.a) where\n"), "syntax 1:21 unexpected end of input (expected an expression)");
  EXPECT_EQ(syntax("retrieve (1 + p.a)"), "syntax 1:11 a target list entry needs a name (name = expression)");
  EXPECT_EQ(syntax("retrieve (p.a = 1)"), "syntax 1:11 a target list entry needs a name (name = expression)");
  EXPECT_EQ(syntax("retrieve (x = 1, sort = 2)"), "syntax 1:18 'sort' is a keyword; it cannot name a target");
  EXPECT_EQ(syntax("append to r (from = 2)"), "syntax 1:14 'from' is a keyword; it cannot name a target");
  EXPECT_EQ(syntax("retrieve (x = y)"),
            "syntax 1:15 expected v.attr but found the bare name 'y' (attributes are written variable.attribute)");
  EXPECT_EQ(syntax("retrieve (x = p.)"), "syntax 1:17 expected an attribute name after '.' but found ')'");
  EXPECT_EQ(syntax("retrieve (x = 1) where p.a < 1 < 2"),
            "syntax 1:32 comparisons do not chain: write 'a < b and b < c'");
  EXPECT_EQ(syntax("retrieve (x = 1) where p.a = not p.b"), "syntax 1:30 expected an expression but found 'not'");
  EXPECT_EQ(syntax("retrieve (x = f(1,))"), "syntax 1:19 expected an expression but found ')'");
  EXPECT_EQ(syntax("retrieve (x = 1) sort p"), "syntax 1:23 expected 'by' but found 'p'");
  EXPECT_EQ(syntax("retrieve (x = 1) sort by x:z"),
            "syntax 1:28 expected 'a' or 'd' (ascending or descending) but found 'z'");
  EXPECT_EQ(syntax("retrieve (x = 1) p.a"),
            "syntax 1:18 expected the end of the retrieve statement or a new statement but found 'p'");
  EXPECT_EQ(syntax("x = 1"),
            "syntax 1:1 expected a statement (range, retrieve, create, append, delete, replace, copy, "
            "modify, destroy, print, help, save, define, begin, end, abort) but found 'x'");
  EXPECT_EQ(syntax("range p is parts"), "syntax 1:7 expected 'of' but found 'p'");
  EXPECT_EQ(syntax("create r (a = i3)"), "syntax 1:15 'i3' is not a format (i1 i2 i4 f4 f8 c1..c255)");
  EXPECT_EQ(syntax("create r (a = c256)"), "syntax 1:15 'c256' is not a format (i1 i2 i4 f4 f8 c1..c255)");
  EXPECT_EQ(syntax("create r ()"), "syntax 1:11 expected an attribute name but found ')'");
  EXPECT_EQ(syntax("copy r (a = i2) to \"f\""), "syntax 1:17 expected 'from' or 'into' but found 'to'");
  EXPECT_EQ(syntax("copy r (a = i2) from f"), "syntax 1:22 expected string but found 'f'");
  EXPECT_EQ(syntax("modify r to btree"),
            "syntax 1:13 expected heap, cheap, heapsort, cheapsort, isam, cisam, hash, chash or truncated but found "
            "'btree'");
  EXPECT_EQ(syntax("modify r to isam on k:descending"),
            "syntax 1:23 a sort order is only for heapsort and cheapsort: isam keys have none");
  EXPECT_EQ(syntax("modify r to heapsort on k:up"), "syntax 1:27 expected 'ascending' or 'descending' but found 'up'");
  EXPECT_EQ(syntax("modify r to heap on k"),
            "syntax 1:18 a heap has no key: 'on' is only for isam, hash and the sorted heaps");
  EXPECT_EQ(syntax("modify r to truncated on k"),
            "syntax 1:23 a truncated has no key: 'on' is only for isam, hash and the sorted heaps");
  EXPECT_EQ(syntax("modify r to heap where fillfactor = 50"),
            "syntax 1:18 a heap has no fillfactor or pages: 'where' is only for isam and hash");
  EXPECT_EQ(syntax("modify r to hash on k where fill = 5"),
            "syntax 1:29 expected fillfactor, minpages or maxpages but found 'fill'");
  EXPECT_EQ(syntax("modify r to isam where minpages = 5"),
            "syntax 1:24 minpages is only for hash and chash (an isam has the pages its tuples fill)");
  EXPECT_EQ(syntax("modify r to chash where minpages = 9, maxpages = 8"),
            "syntax 1:19 minpages (9) cannot exceed maxpages (8)");
  EXPECT_EQ(syntax("modify r to hash where maxpages = 0"), "syntax 1:35 maxpages must be at least 1");
  EXPECT_EQ(syntax("save r until jun 31 2030"), "syntax 1:18 there is no day 31 in june 2030");
  EXPECT_EQ(syntax("save r to jun 30 2030"), "syntax 1:8 expected 'until' but found 'to'");
  EXPECT_EQ(syntax("modify r to hash on k where fillfactor = 101"),
            "syntax 1:42 fillfactor must be between 1 and 100");
  EXPECT_EQ(syntax("destroy a,"), "syntax 1:11 unexpected end of input (expected a relation name)");
  EXPECT_EQ(syntax("delete where"), "syntax 1:8 expected a range variable but found 'where'");
  // A lexical error before the first syntax error wins, and vice versa.
  EXPECT_EQ(err_text(error_of("retrieve (x = 1) ;", false)),
            "lexical 1:18 unexpected character ';': the retrieve statement before it does not run");
  // Where a lookahead token does not lex, its error is the one reported: a
  // zero-width space after a name is not "a bare name".
  EXPECT_EQ(err_text(error_of("retrieve (a\xe2\x80\x8b = 1)", false)),
            "lexical 1:12 unexpected invisible character (U+200B)");
  EXPECT_EQ(syntax("retrieve x ;"), "syntax 1:10 expected '(' but found 'x'");
}

// The errors parse_recovering reports for `text`, "; "-separated; *parsed:
// how many statements it returned.
std::string errors_of(const std::string& text, size_t* parsed) {
  std::vector<Error> errors;
  *parsed = parse_recovering(source(text), &errors).size();
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "; ") + err_text(e);
  return out;
}

// parse_recovering reports each statement's first error and goes on at the
// next statement keyword. A keyword used as a name is one mistake, not two:
// the "statement" recovery restarts at there fails at its second token and
// is not reported. A statement cut short by the next one is two errors where
// the next one has its own.
TEST(Parser, RecoveryReportsAKeywordUsedAsANameOnce) {
  size_t parsed = 0;
  EXPECT_EQ(errors_of("range of retrieve is parts retrieve (x = 1)", &parsed),
            "syntax 1:10 expected a range variable name but found 'retrieve'");
  EXPECT_EQ(parsed, 1u);
  EXPECT_EQ(errors_of("retrieve (x = 1 +\nretrieve (y = 2)", &parsed),
            "syntax 2:1 expected an expression but found 'retrieve'");
  EXPECT_EQ(parsed, 1u);  // the cut-short statement's error; the next one runs
  EXPECT_EQ(errors_of("retrieve (x = 1 +\nretrieve (y = 2 +)\nretrieve (z = 3)", &parsed),
            "syntax 2:1 expected an expression but found 'retrieve'; "
            "syntax 2:18 expected an expression but found ')'");
  EXPECT_EQ(parsed, 1u);
  EXPECT_EQ(errors_of("range of r is\nretrieve (y = 2)", &parsed),
            "syntax 2:1 expected a relation name but found 'retrieve'");
  EXPECT_EQ(parsed, 1u);
}

// Text that does not lex after a complete statement leaves it unfinished, as
// a stray name does (`delete p $where ...` must not delete every tuple), and
// the error, which may be lines further on, says the statement does not run.
TEST(Parser, TextThatDoesNotLexAfterAStatementSaysItDoesNotRun) {
  size_t parsed = 0;
  EXPECT_EQ(errors_of("create t (a = i2)\nappend to t (a = 1)\n/* the rest hidden\nappend to t (a = 2)\n", &parsed),
            "lexical 3:1 unterminated comment: the append statement before it does not run");
  EXPECT_EQ(parsed, 1u);  // create
  EXPECT_EQ(errors_of("delete p $where p.pnum = 5\nretrieve (x = 1)", &parsed),
            "lexical 1:10 unexpected character '$': the delete statement before it does not run");
  EXPECT_EQ(parsed, 1u);  // the retrieve after it
  // Two texts joined: the second one's byte-order mark.
  EXPECT_EQ(errors_of("retrieve (x = 1)\n\xef\xbb\xbfretrieve (y = 2)", &parsed),
            "lexical 2:1 unexpected byte-order mark (U+FEFF), which only the start of a text may have: "
            "the retrieve statement before it does not run");
  EXPECT_EQ(parsed, 1u);
}

// A script written for the terminal monitor ends its statements with \g, as
// INGRES scripts do, and may end with \q. Other commands are errors of their
// own: the complete statements around them are kept.
TEST(Parser, MonitorCommandsInAScript) {
  size_t parsed = 0;
  EXPECT_EQ(errors_of("retrieve (a = 1)\n\\g\nretrieve (b = 2) \\GO retrieve (c = 3)\\g", &parsed), "");
  EXPECT_EQ(parsed, 3u);
  EXPECT_EQ(errors_of("retrieve (a = 1) \\g\n\\q\nretrieve (b = 2)", &parsed), "");
  EXPECT_EQ(parsed, 1u);  // \q: the script ends
  EXPECT_EQ(errors_of("retrieve (a = 1)\n\\p\\g\nretrieve (b = 2)", &parsed),
            "syntax 2:1 monitor command '\\p' works only in the terminal monitor (a script may use \\g, \\i and \\q)");
  EXPECT_EQ(parsed, 2u);
  // \g ends the statement before it, a failed one too, as in the monitor:
  // what follows it is the next statement's (here none: an error of its own).
  EXPECT_EQ(errors_of("retrieve (x = 1 + \\g 2)", &parsed),
            "syntax 1:19 expected an expression but found '\\g'; syntax 1:22 expected a statement (range, retrieve, "
            "create, append, delete, replace, copy, modify, destroy, print, help, save, define, begin, end, abort) but found '2'");
  EXPECT_EQ(parsed, 0u);
  // A \q after a failed statement still ends the script (recovery skipped it).
  EXPECT_EQ(errors_of("retrieve (x = )\n\\q\nretrieve (b = 2)", &parsed), "syntax 1:15 expected an expression but found ')'");
  EXPECT_EQ(parsed, 0u);
  // A backslash in a string is the string's.
  EXPECT_EQ(errors_of("retrieve (s = \"a\\g\")", &parsed), "");
  EXPECT_EQ(parsed, 1u);
}

}  // namespace
}  // namespace quelkit::frontend

namespace quelkit::frontend {
namespace {

// `and` and `or` are n-ary (ast.h, ir.h): a flat chain is one node in the
// AST and the IR, whatever its length; parentheses nest (the fold pass
// splices a nested one of the same kind), and the depth limit still holds
// for real nesting.
// define view, integrity and permit, and destroy permit|integrity (query
// modification; the engine's test/engine/query_modification_test.cpp runs them).
TEST(Parser, DefineAndDestroyRules) {
  EXPECT_EQ(ast_of("define view v (e.name, n = e.a) where e.a > 1\ndefine integrity on e is e.a > 0\n"
                   "define permit retrieve, append of e (name) to marc at ttyd from 8:00 to 17:00 on mon to fri\n"
                   "destroy permit e 0, 4\ndestroy integrity e all\ndestroy permit, integrity"),
            "(define view v)\n(define integrity e)\n(define permit e)\n(destroy permit e)\n(destroy integrity e)\n"
            "(destroy permit integrity)");
  auto s = parse(source("define permit all on e to all from 22:30 to 6:00 on sat to sun"));
  EXPECT_EQ(s[0]->permit_ops, (std::vector<std::string>{"retrieve", "replace", "delete", "append"}));
  EXPECT_EQ(s[0]->permit_from, 22 * 60 + 30);
  EXPECT_EQ(s[0]->permit_to, 6 * 60);
  EXPECT_EQ(s[0]->permit_day_from, 6);
  EXPECT_EQ(s[0]->permit_day_to, 0);
  EXPECT_EQ(syntax("define index on e"), "syntax 1:8 expected view, integrity or permit but found 'index'");
  EXPECT_EQ(syntax("define permit look of e to marc"),
            "syntax 1:15 expected retrieve, replace, delete, append or all but found 'look'");
  EXPECT_EQ(syntax("define permit retrieve of e to marc at console"),
            "syntax 1:40 bad terminal identifier 'console' (a terminal is ttyx, or all)");
  EXPECT_EQ(syntax("define permit retrieve of e to marc from 25:00 to 1:00"),
            "syntax 1:42 expected a time hh:mm from 0:00 to 24:00");
  EXPECT_EQ(syntax("define integrity on e e.a > 0"), "syntax 1:23 expected 'is' but found 'e'");
  EXPECT_EQ(syntax("destroy integrity e 1,"), "syntax 1:23 unexpected end of input (expected integer)");
}

TEST(Parser, AndOrChainsAreOneNaryNode) {
  auto stmts = parse(fetest::source("retrieve (t = 1) where p.pnum = 1 or p.pnum = 2 or p.pnum = 3 and "
                                    "p.qoh = 1 and p.qoh = 2"));
  const ast::Expr& w = *stmts.at(0)->where;
  ASSERT_EQ(w.op, "or");
  ASSERT_EQ(w.args.size(), 3u);
  EXPECT_EQ(w.args[2]->op, "and");
  EXPECT_EQ(w.args[2]->args.size(), 3u);
  EXPECT_EQ(fetest::tree(*fetest::bind_text("retrieve (t = 1) where p.pnum = 1 or p.pnum = 2 or p.qoh = 3").qual),
            "OR(EQ_I4(~CVT_I2_I4(ATTR0.0:i2), ~CVT_I2_I4(i2:1)), EQ_I4(~CVT_I2_I4(ATTR0.0:i2), ~CVT_I2_I4(i2:2)), "
            "EQ_I4(~CVT_I2_I4(ATTR0.4:i2), ~CVT_I2_I4(i2:3)))");
  // 100,000 terms: one node, no depth.
  std::string ors = "p.pnum = 0";
  for (int i = 1; i < 100000; ++i) ors += " or p.pnum = " + std::to_string(i);
  BoundQuery q = fetest::bind_text("retrieve (t = 1) where " + ors);
  EXPECT_EQ(q.qual->op, ir::Op::OR);
  EXPECT_EQ(q.qual->kid.size(), 100000u);
  // Real nesting is still bounded.
  std::string deep = "p.pnum = 0";
  for (int i = 1; i < 2000; ++i) deep = "(" + deep + " or p.pnum = " + std::to_string(i) + ")";
  EXPECT_EQ(fetest::error_of("retrieve (t = 1) where " + deep).message,
            "expression nested too deeply (more than 1000 levels)");
}

TEST(Fold, AndOrOperandsFoldLeftToRight) {
  auto folded = [](const std::string& where) {
    BoundQuery q = fetest::bind_text("retrieve (t = 1) where " + where);
    return fetest::tree(*fold(*q.qual));
  };
  // Constants that do not decide go; a nested same connective is spliced in.
  EXPECT_EQ(folded("p.pnum = 1 and 1 = 1 and (p.qoh = 2 and p.weight = 3)"),
            "AND(EQ_I4(~CVT_I2_I4(ATTR0.0:i2), i4:1), EQ_I4(~CVT_I2_I4(ATTR0.4:i2), i4:2), "
            "EQ_I4(~CVT_I2_I4(ATTR0.3:i2), i4:3))");
  // One that decides ends the list; the operands before it stay (they may raise).
  EXPECT_EQ(folded("p.pnum / p.qoh = 1 or 2 = 2 or p.qoh = 5"), "OR(EQ_I4(DIV_I4(~CVT_I2_I4(ATTR0.0:i2), "
                                                                  "~CVT_I2_I4(ATTR0.4:i2)), i4:1), bool:1)");
  EXPECT_EQ(folded("1 = 0 and p.pnum = 1 and p.qoh = 2"), "bool:0");
  EXPECT_EQ(folded("1 = 0 or 2 = 3 or p.qoh = 2"), "EQ_I4(~CVT_I2_I4(ATTR0.4:i2), i4:2)");
  EXPECT_EQ(folded("1 = 1 and 2 = 2"), "bool:1");
}

}  // namespace
}  // namespace quelkit::frontend
