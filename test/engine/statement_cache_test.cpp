// The statement cache (engine/statement_cache.h): the literal scan reads
// literals as the lexer does; a text of a cached key reuses the parse and
// binding with its own literals, answers and errors (positions and carets
// included) exactly as a session without the cache; every change to what
// binding reads drops the entries.
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "engine/statement_cache.h"
#include "frontend/lexer.h"
#include "test/engine/support.h"

namespace quelkit::test {
namespace {

using harness::normalise_text;
using harness::StatementCacheUse;
using harness::TextLiteral;

TEST(NormaliseText, ReadsLiteralsAsTheLexerDoes) {
  auto n = normalise_text("retrieve (x2 = p.a1 - 5, y = .5e1 + 1.) /* 7 \"q\" */ where p.b = \"a\\\"b\"");
  ASSERT_TRUE(n);
  ASSERT_EQ(n->literals.size(), 4u);
  EXPECT_EQ(n->literals[0].kind, TextLiteral::Int);
  EXPECT_EQ(n->literals[0].ival, 5);  // the sign is an operator, kept in the key
  EXPECT_EQ(n->literals[0].pos.col, 23u);
  EXPECT_EQ(n->literals[1].kind, TextLiteral::Float);
  EXPECT_EQ(n->literals[1].fval, 5.0);
  EXPECT_EQ(n->literals[1].len, 4u);
  EXPECT_EQ(n->literals[2].fval, 1.0);
  EXPECT_EQ(n->literals[3].kind, TextLiteral::String);
  EXPECT_EQ(n->literals[3].text, "a\"b");
  EXPECT_EQ(n->literals[3].len, 6u);
  // Names keep their digits, the comment its contents.
  EXPECT_NE(n->key.find("x2 = p.a1 - \x01i2\x02"), std::string::npos) << n->key;
  EXPECT_NE(n->key.find("/* 7 \"q\" */"), std::string::npos);
  // `1e` is an integer and a name, as the lexer reads it.
  auto e = normalise_text("retrieve (x = 1e)");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->literals.size(), 1u);
  EXPECT_EQ(e->literals[0].kind, TextLiteral::Int);
}

// A decimal's value is the correctly rounded one (strtod's, the lexer's),
// by the short path for few digits as by from_chars for the rest; one
// buffer scanning text after text holds only the last one's literals.
TEST(NormaliseText, ReadsDecimalsAsStrtodAndReusesItsBuffer) {
  harness::NormalisedText n;
  for (const char* d : {"0.1", "10.0", "5.", ".3", "123456789.012345", "1234567890123456.7", "0.30000000000000004",
                        "2.5e-3", "9007199254740993.0", "0.000000000000001"}) {
    SCOPED_TRACE(d);
    ASSERT_TRUE(normalise_text(std::string("retrieve (x = ") + d + ", s = \"a string longer than sixteen\")", n));
    ASSERT_EQ(n.literals.size(), 2u);
    EXPECT_EQ(n.literals[0].kind, TextLiteral::Float);
    EXPECT_EQ(n.literals[0].fval, std::strtod(d, nullptr));
    EXPECT_EQ(n.literals[1].text, "a string longer than sixteen");
  }
  ASSERT_TRUE(normalise_text("retrieve (x = 7) where p.b = \"a*\"", n));
  ASSERT_EQ(n.literals.size(), 1u);
  EXPECT_EQ(n.literals[0].kind, TextLiteral::Int);
  EXPECT_EQ(n.literals[0].ival, 7);
  EXPECT_TRUE(n.literals[0].text.empty());
}

// Texts made of names with digits, numbers, dotted names, strings, comments
// and lines, long runs of them (the scan takes sixteen bytes a step) and
// short: the scan's literals are the lexer's Int, Float and non-pattern
// String tokens, one for one, at the same positions.
TEST(NormaliseText, FindsTheLexersLiteralsInGeneratedTexts) {
  const char* pieces[] = {"p2", "x1e5", "account.aid", " ", "  ", "=", "+", "-", "(", ")", ",", "12", "0",
                          "3.25", ".5", "7.", "1e3", "2.5e-3", "\"str\"", "\"long string of thirty bytes..\"",
                          "/* 9 \"c\" */", "\n", "retrieve", "where", "e", "e.x", "_a9", "p.b1"};
  uint64_t seed = 42;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(seed >> 33);
  };
  harness::NormalisedText n;
  for (int round = 0; round < 2000; ++round) {
    std::string t;
    const uint32_t len = 1 + next() % 40;
    for (uint32_t k = 0; k < len; ++k) {
      t += pieces[next() % std::size(pieces)];
      if (next() % 3) t += ' ';  // most pieces apart, some run together (`12p2`, `x1e5.5`)
    }
    SCOPED_TRACE(t);
    std::vector<frontend::Token> want;
    bool lexes = true;
    try {
      frontend::Lexer lx(std::make_shared<Source>("t", t));
      for (frontend::Token tok = lx.next(); tok.kind != frontend::Tok::End; tok = lx.next())
        if (tok.kind == frontend::Tok::Int || tok.kind == frontend::Tok::Float || tok.kind == frontend::Tok::String)
          want.push_back(tok);
    } catch (const QuelError&) {
      lexes = false;
    }
    if (!normalise_text(t, n)) {
      EXPECT_FALSE(lexes) << "the scan refused a text the lexer reads";
      continue;
    }
    ASSERT_TRUE(lexes) << "the scan read a text the lexer refuses";
    ASSERT_EQ(n.literals.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const TextLiteral& l = n.literals[i];
      EXPECT_EQ(l.pos, want[i].pos) << i;
      EXPECT_EQ(l.len, want[i].end - want[i].begin) << i;
      switch (want[i].kind) {
        case frontend::Tok::Int: EXPECT_EQ(l.kind, TextLiteral::Int); EXPECT_EQ(l.ival, want[i].ival); break;
        case frontend::Tok::Float: EXPECT_EQ(l.kind, TextLiteral::Float); EXPECT_EQ(l.fval, want[i].fval); break;
        default: EXPECT_EQ(l.kind, TextLiteral::String); EXPECT_EQ(l.text, want[i].text); break;
      }
    }
  }
}

TEST(NormaliseText, KeysByTheTypeALiteralBindsTo) {
  auto key = [](const std::string& t) { return normalise_text(t)->key; };
  EXPECT_EQ(key("retrieve (x = 7)"), key("retrieve (x = 32767)"));
  EXPECT_NE(key("retrieve (x = 7)"), key("retrieve (x = 32768)"));  // i2, i4
  EXPECT_NE(key("retrieve (x = 7)"), key("retrieve (x = 7.0)"));
  EXPECT_EQ(key("retrieve (x = \"ab\")"), key("retrieve (x = \"cd\")"));
  EXPECT_NE(key("retrieve (x = \"ab\")"), key("retrieve (x = \"abc\")"));  // c2, c3
  // A pattern's characters shape its plan: it stays in the key.
  EXPECT_NE(key("retrieve (p.a) where p.b = \"a*\""), key("retrieve (p.a) where p.b = \"b*\""));
  EXPECT_TRUE(normalise_text("retrieve (p.a) where p.b = \"a*\"")->literals.empty());
}

TEST(NormaliseText, RefusesWhatTheLexerWouldReport) {
  EXPECT_FALSE(normalise_text("retrieve (x = 2147483648)"));
  EXPECT_FALSE(normalise_text("retrieve (x = \"ab)\n"));
  EXPECT_FALSE(normalise_text("retrieve (x = 1) /* open"));
  EXPECT_FALSE(normalise_text("retrieve (x = 1e999)"));
  EXPECT_FALSE(normalise_text("retrieve (x = 1)\\g"));
  EXPECT_TRUE(normalise_text("retrieve (x = 2147483647)"));
}

// The same texts in a session with the cache and in one without: what each
// printed (results, messages, errors) must be the same, text for text.
class StatementCache : public ::testing::Test {
 protected:
  void SetUp() override {
    on_ = std::make_unique<Kit>("interp:switch,threaded:goto");
    off_ = std::make_unique<Kit>("interp:switch,threaded:goto");
    off_->set_options([](harness::SessionOptions& o) { o.statement_cache = false; });
    for (Kit* k : {on_.get(), off_.get()}) {
      k->add_parts(200);
      ASSERT_TRUE(k->run("range of p is parts").ok);
    }
  }
  // Runs `text` in both; returns how the cached session's text used the cache.
  StatementCacheUse run(const std::string& text, bool expect_ok = true) {
    const size_t on_from = on_->session().reports().size(), off_from = off_->session().reports().size();
    RunResult a = on_->run(text), b = off_->run(text);
    EXPECT_EQ(a.ok, expect_ok) << text << "\n" << a.err;
    EXPECT_EQ(a.ok, b.ok) << text;
    EXPECT_EQ(a.err, b.err) << text;
    EXPECT_EQ(a.out, b.out) << text;
    const auto& on = on_->session().reports();
    const auto& off = off_->session().reports();
    EXPECT_EQ(on.size() - on_from, off.size() - off_from) << text;
    for (size_t i = off_from; i < off.size(); ++i) EXPECT_EQ(off[i].stats.statement_cache, StatementCacheUse::None);
    for (size_t i = on_from, j = off_from; i < on.size() && j < off.size(); ++i, ++j)
      EXPECT_EQ(on[i].stats.checksum, off[j].stats.checksum) << text;
    return on.size() == on_from ? StatementCacheUse::None : on.back().stats.statement_cache;
  }
  std::unique_ptr<Kit> on_, off_;
};

TEST_F(StatementCache, ATextOfTheSameShapeReusesParseAndBinding) {
  EXPECT_EQ(run("retrieve (p.pnum, p.pname) where p.pnum = 17"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum, p.pname) where p.pnum = 18"), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (p.pnum, p.pname) where p.pnum = 190"), StatementCacheUse::Plan);
  // Another type (i4) is another key; so is another spacing.
  EXPECT_EQ(run("retrieve (p.pnum, p.pname) where p.pnum = 40000"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum, p.pname) where p.pnum  = 19"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (x = p.weight * 2.5, c = \"ab\") where p.color = \"black\""), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (x = p.weight * 0.25, c = \"zy\") where p.color = \"white\""), StatementCacheUse::Plan);
  EXPECT_EQ(run("replace p (qoh = p.qoh + 3) where p.pnum < 20"), StatementCacheUse::Miss);
  EXPECT_EQ(run("replace p (qoh = p.qoh + 12345) where p.pnum < 7"), StatementCacheUse::Plan);
  // A literal assigned through the attribute's conversion (folded at the attribute).
  EXPECT_EQ(run("replace p (weight = 2) where p.pnum < 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("replace p (weight = 30000) where p.pnum < 5"), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (p.pnum, p.weight) where p.pnum < 6"), StatementCacheUse::Miss);
  EXPECT_EQ(run("append to parts (pnum = 1000, pname = \"new\", qoh = 5)"), StatementCacheUse::Miss);
  EXPECT_EQ(run("append to parts (pnum = 1001, pname = \"old\", qoh = 6)"), StatementCacheUse::Plan);
  EXPECT_EQ(run("delete p where p.pnum > 999"), StatementCacheUse::Miss);
  EXPECT_EQ(run("delete p where p.pnum > 150"), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh, p.pname)"), StatementCacheUse::Miss);
  // Several statements in a text, and statements the cache does not take.
  EXPECT_EQ(run("retrieve (a = 1) retrieve (a = 2)"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (a = 1) retrieve (a = 3)"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (n = count(p.pnum where p.qoh > 3))"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (n = count(p.pnum where p.qoh > 4))"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum) where p.pname = \"*1*\""), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum) where p.pname = \"*1*\""), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (p.pnum) where p.pname = \"*2*\""), StatementCacheUse::Miss);
}

TEST_F(StatementCache, ErrorsArePlacedInTheCurrentText) {
  // A runtime error after a literal that grew, on its line and on the next.
  EXPECT_EQ(run("retrieve (x = 1 + p.qoh / 0) where p.pnum = 30000"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (x = 1000 + p.qoh / 0) where p.pnum = 1", false), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (x = 7 + p.qoh / 0) where p.pnum = 29999"), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (x = \"a\",\n y = 10 / (p.qoh - p.qoh)) where p.pnum = 3", false), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (x = \"b\",\n y = 1000 / (p.qoh - p.qoh)) where p.pnum = 123", false),
            StatementCacheUse::Plan);
  // A conversion that fails after a literal that grew, then shrank.
  EXPECT_EQ(run("append to parts (qoh = 5, pnum = 1000000, pname = \"x\")", false), StatementCacheUse::Miss);
  EXPECT_EQ(run("append to parts (qoh = 12345, pnum = 2000000, pname = \"y\")", false), StatementCacheUse::Plan);
  EXPECT_EQ(run("append to parts (qoh = 1, pnum = 2000000, pname = \"z\")", false), StatementCacheUse::Plan);
  // A pattern after a literal that grew: its constant moves with it.
  EXPECT_EQ(run("retrieve (x = 1, y = p.pnum) where p.pname = \"*1*\""), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (x = 1000, y = p.pnum) where p.pname = \"*1*\""), StatementCacheUse::Plan);
}

TEST_F(StatementCache, ChangesToWhatBindingReadsDropTheEntries) {
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  // A range over a relation of other attributes' places.
  EXPECT_EQ(run("create other (qoh = i2, pname = c5, pnum = i4)"), StatementCacheUse::None);
  EXPECT_EQ(run("append to other (pnum = 3, qoh = 9, pname = \"o\")"), StatementCacheUse::Miss);
  EXPECT_EQ(run("range of p is other"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 4"), StatementCacheUse::Plan);
  // Destroyed and made again with another layout, by statements and from outside.
  EXPECT_EQ(run("destroy other"), StatementCacheUse::None);
  EXPECT_EQ(run("create other (pname = c9, pnum = i2, qoh = i4)"), StatementCacheUse::None);
  EXPECT_EQ(run("append to other (pnum = 3, qoh = 9, pname = \"o\")"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("modify other to hash on pnum"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("range of p is parts"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  for (Kit* k : {on_.get(), off_.get()}) k->add_parts(50, true);  // the wide PARTS, from outside the statements
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum = 3"), StatementCacheUse::Miss);
  // An abort that takes a relation back out.
  EXPECT_EQ(run("begin"), StatementCacheUse::None);
  EXPECT_EQ(run("destroy other"), StatementCacheUse::None);
  EXPECT_EQ(run("create other (pnum = i4, qoh = i4)"), StatementCacheUse::None);
  EXPECT_EQ(run("range of o is other"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (o.pnum, o.qoh) where o.pnum = 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("abort"), StatementCacheUse::None);
  EXPECT_EQ(run("append to other (pnum = 3, qoh = 9, pname = \"o\")"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (o.pnum, o.qoh) where o.pnum = 3"), StatementCacheUse::Miss);
  EXPECT_EQ(run("retrieve (o.pnum, o.qoh) where o.pnum = 5"), StatementCacheUse::Plan);
}

TEST_F(StatementCache, AFailureInsideATransactionUndoesItAsWithoutTheCache) {
  EXPECT_EQ(run("replace p (qoh = p.qoh / 1) where p.pnum = 5"), StatementCacheUse::Miss);
  EXPECT_EQ(run("begin"), StatementCacheUse::None);
  EXPECT_EQ(run("replace p (qoh = p.qoh + 10) where p.pnum = 6"), StatementCacheUse::Miss);
  EXPECT_EQ(run("replace p (qoh = p.qoh / 0) where p.pnum = 7", false), StatementCacheUse::Plan);
  EXPECT_EQ(run("replace p (qoh = p.qoh + 10) where p.pnum = 8"), StatementCacheUse::None);  // skipped
  EXPECT_EQ(run("end"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum < 10"), StatementCacheUse::Miss);
  // begin, end and abort reuse their parse: a second transaction, aborted.
  EXPECT_EQ(run("begin"), StatementCacheUse::None);
  EXPECT_EQ(run("replace p (qoh = p.qoh + 10) where p.pnum = 9"), StatementCacheUse::Plan);
  EXPECT_EQ(run("abort"), StatementCacheUse::None);
  EXPECT_EQ(run("begin"), StatementCacheUse::None);
  EXPECT_EQ(run("end"), StatementCacheUse::None);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum < 10"), StatementCacheUse::Plan);
  EXPECT_EQ(run("replace p (qoh = p.qoh / 2) where p.pnum = 7"), StatementCacheUse::Plan);
  EXPECT_EQ(run("retrieve (p.pnum, p.qoh) where p.pnum < 11"), StatementCacheUse::Plan);
}

TEST(StatementCacheOff, NoPlanCacheAndNoStatementCacheBypassIt) {
  for (auto off : {+[](harness::SessionOptions& o) { o.runner.plan_cache = false; },
                   +[](harness::SessionOptions& o) { o.statement_cache = false; }}) {
    Kit k("threaded:goto");
    k.set_options(off);
    k.add_parts(20);
    ASSERT_TRUE(k.run("range of p is parts").ok);
    for (const char* t : {"retrieve (p.pnum) where p.pnum = 3", "retrieve (p.pnum) where p.pnum = 4"}) {
      ASSERT_TRUE(k.run(t).ok);
      EXPECT_EQ(k.last_report().stats.statement_cache, StatementCacheUse::None);
    }
  }
}

}  // namespace
}  // namespace quelkit::test
