// The query corpus (test/queries/*.quel), each file in sessions over many
// back ends at once, where every statement's rows, values and errors are
// compared across them and the expectations are checked: every back end and
// mode under --selection auto (<file>_all), then interp:switch and every page
// kernel under branch and nobranch (<file>_kernels_branch, _nobranch), so
// every kernel runs each case both ways. The tuple-at-a-time modes are not run
// again under those: --selection does not reach them (support.h, has_kernel),
// and gccjit:qual's compiles were a large part of the corpus's time. Nor does a
// file run on each back end alone: such a session evaluates the same
// statements in the same order on one runner, which the `all` session does
// too. One back end alone: quelkit difftest --corpus test/queries -b stencil:fused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../engine/support.h"
#include "difftest/corpus.h"
#include "engine/selection.h"

namespace quelkit::test {
namespace {

struct Param {
  std::string file, label, backends;  // label: "all" or "kernels", for the test's name
  harness::Selection selection = harness::Selection::Auto;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.file << " on " << p.backends << ", --selection " << harness::selection_name(p.selection);
}

std::vector<Param> params() {
  const std::string kernels = kernel_backend_list();
  std::vector<Param> v;
  for (const auto& f : difftest::corpus_files(QUELKIT_SOURCE_DIR "/test/queries")) {
    v.push_back({f, "all", "all", harness::Selection::Auto});
    for (auto sel : {harness::Selection::Branch, harness::Selection::NoBranch}) v.push_back({f, "kernels", kernels, sel});
  }
  return v;
}

class Corpus : public ::testing::TestWithParam<Param> {};

TEST_P(Corpus, MatchesExpectations) {
  const auto& [file, label, backends, selection] = GetParam();
  difftest::CorpusFile f = difftest::load_corpus(file);
  harness::PrepareOptions prepare;
  prepare.selection = selection;
  difftest::CorpusReport r = difftest::run_corpus(f, backends, prepare);
  for (const auto& fail : r.failures) ADD_FAILURE() << fail;
  EXPECT_GT(r.cases, 0) << file << " has no cases";
  EXPECT_EQ(r.passed, r.cases);
}

INSTANTIATE_TEST_SUITE_P(Queries, Corpus, ::testing::ValuesIn(params()), [](const ::testing::TestParamInfo<Param>& i) {
  std::string s = std::filesystem::path(i.param.file).stem().string() + "_" + i.param.label;
  if (i.param.selection != harness::Selection::Auto) s += std::string("_") + harness::selection_name(i.param.selection);
  for (auto& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
});

TEST(CorpusFormat, ParsesEveryKindOfExpectation) {
  auto f = difftest::parse_corpus("t.quel",
                                  "/*! page-size 512 */\n/*! parts 3:isam */\n"
                                  "retrieve (x = 1)\n/*= rows\nx\n1\n*/\n"
                                  "retrieve (x = 1 / 0)\n/*= error 7:16: division by zero */\n"
                                  "retrieve (p.pnum)\n/*= checksum 3 0000000000000000 */\n"
                                  "create t (a = i2)\n/*= ok */\n"
                                  "retrieve (s = \"/*= rows */\")\n/*= ? */\n");
  EXPECT_EQ(f.page_size, 512u);
  EXPECT_EQ(f.parts, "3:isam");
  ASSERT_EQ(f.cases.size(), 6u);  // five expectations and the (empty) tail
  EXPECT_EQ(f.cases[0].kind, "rows");
  EXPECT_EQ(f.cases[0].expected, "x\n1");
  EXPECT_EQ(f.cases[1].kind, "error");
  EXPECT_EQ(f.cases[1].expected, "7:16: division by zero");
  EXPECT_EQ(f.cases[2].kind, "checksum");
  EXPECT_EQ(f.cases[3].kind, "ok");
  EXPECT_EQ(f.cases[4].kind, "?");  // the comment-like text inside the string is no expectation
  EXPECT_THROW(difftest::parse_corpus("t.quel", "retrieve (x = 1)\n/*= bogus */\n"), std::runtime_error);
  // A checksum no run can give is the file's mistake (it read as a failing case).
  for (const char* bad : {"abc", "3", "x 0000000000000000", "3 00000000000000", "3 000000000000000G"}) {
    SCOPED_TRACE(bad);
    try {
      difftest::parse_corpus("t.quel", "retrieve (x = 1)\n/*= checksum " + std::string(bad) + " */\n");
      ADD_FAILURE() << "accepted";
    } catch (std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("t.quel:2: 'checksum' takes ROWS and 16 hex digits"), std::string::npos)
          << e.what();
    }
  }
}

// Directives are checked as their command-line options are, with the line:
// `parts -1` once wrapped to 2^64 - 1 tuples and ran away, `page-size abc`
// said only "stoul".
TEST(CorpusFormat, BadDirectivesAreErrorsWithTheirLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"parts -1", "parts directive: --parts needs a number of tuples, not '-1'"},
      {"parts 99999999999999999999", "parts directive: --parts 99999999999999999999: at most 2147483647 tuples (pnum is an i4)"},
      {"parts 10:isam:hash", "more than one structure"},
      {"page-size abc", "page-size directive: a whole number of bytes from 64 to 65536, not 'abc'"},
      {"page-size 1", "not '1'"},
      {"wisconsin 10:seed=x", "wisconsin directive: --wisconsin: seed= needs a whole number (at most 19 digits), not 'x'"},
  };
  for (const auto& [directive, says] : cases) {
    SCOPED_TRACE(directive);
    try {
      difftest::parse_corpus("t.quel", std::string("/* a file */\n/*! ") + directive + " */\nretrieve (x = 1)\n");
      ADD_FAILURE() << "accepted";
    } catch (std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("t.quel:2: ") ), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  auto ok = difftest::parse_corpus("t.quel", "/*! parts 10:isam:wide */\n/*! page-size 2048 */\nretrieve (x = 1)\n");
  EXPECT_EQ(ok.parts, "10:isam:wide");
  EXPECT_EQ(ok.page_size, 2048u);
}

TEST(CorpusFormat, ReportsWrongAnswersAndRewrites) {
  auto f = difftest::parse_corpus("t.quel", "retrieve (x = 2 + 2)\n/*= rows\nx\n5\n*/\nretrieve (y = 1)\n/*= ? */\n");
  auto r = difftest::run_corpus(f, "interp");
  EXPECT_EQ(r.cases, 2);
  EXPECT_EQ(r.passed, 0);
  ASSERT_EQ(r.failures.size(), 2u);
  // Both blocks name their kind; a placeholder says what --rewrite would write.
  EXPECT_NE(r.failures[0].find("t.quel:2: expected rows\nx\n5\nbut got rows\nx\n4"), std::string::npos) << r.failures[0];
  EXPECT_NE(r.failures[1].find("t.quel:7: /*= ? */ is still to fill (--rewrite writes what ran): /*= rows\ny\n1\n*/"),
            std::string::npos)
      << r.failures[1];
  EXPECT_EQ(r.rewritten, "retrieve (x = 2 + 2)\n/*= rows\nx\n4\n*/\nretrieve (y = 1)\n/*= rows\ny\n1\n*/\n");
  // Both are stale expectations, which a rewrite mends.
  EXPECT_EQ(r.stale, 2);
  EXPECT_TRUE(r.unmendable.empty()) << r.unmendable.front();
}

// `checksum ?` is a placeholder the rewrite fills with a checksum, even for
// a row short enough to be written as rows.
TEST(CorpusFormat, AChecksumPlaceholderIsFilledWithAChecksum) {
  auto f = difftest::parse_corpus("t.quel", "retrieve (y = 1)\n/*= checksum ? */\n");
  auto r = difftest::run_corpus(f, "interp");
  EXPECT_EQ(r.cases, 1);
  EXPECT_EQ(r.passed, 0);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("t.quel:2: /*= checksum ? */ is still to fill (--rewrite writes what ran): /*= checksum 1 "),
            std::string::npos)
      << r.failures[0];
  ASSERT_EQ(r.rewritten.rfind("retrieve (y = 1)\n/*= checksum 1 ", 0), 0u) << r.rewritten;
  auto again = difftest::run_corpus(difftest::parse_corpus("t.quel", r.rewritten), "interp");
  EXPECT_EQ(again.passed, 1) << (again.failures.empty() ? "" : again.failures.front());
}

// What no expectation mends: a statement that fails before a case or without
// an expectation after it. --rewrite leaves such a file as it was.
TEST(CorpusFormat, FailuresOutsideExpectationsAreUnmendable) {
  auto f = difftest::parse_corpus("t.quel",
                                  "retrieve (z = 1 / 0)\nretrieve (x = 1)\n/*= rows\nx\n2\n*/\nretrieve (w = 1 / 0)\n");
  auto r = difftest::run_corpus(f, "interp");
  EXPECT_EQ(r.stale, 1);
  ASSERT_EQ(r.unmendable.size(), 2u);
  EXPECT_NE(r.unmendable[0].find("t.quel:3: a statement before the case failed: 1:17: division by zero"), std::string::npos)
      << r.unmendable[0];
  EXPECT_NE(r.unmendable[1].find("t.quel:7: statement without an expectation failed: 7:17: division by zero"),
            std::string::npos)
      << r.unmendable[1];
  EXPECT_EQ(r.failures.size(), 3u);
  EXPECT_EQ(r.uncased, 1);  // the last statement's; the first one's is the case's
}

}  // namespace
// One directive of each kind, as each option may be given once: a second
// parts directive was taken, the last one winning.
TEST(CorpusFormat, ASecondDirectiveOfAKindIsAnError) {
  try {
    difftest::parse_corpus("t.quel", "/*! parts 10 */\n/*! parts 20 */\nretrieve (x = 1)\n/*= ok */\n");
    ADD_FAILURE() << "accepted";
  } catch (std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.quel:2: a second parts directive"), std::string::npos) << e.what();
  }
}

// A block cannot hold "*/" (its comment would end there): rows holding it are
// written as their checksum, which passes when run again. The rewrite once
// wrote them as they were, cutting the block, and saved a parse error as the
// next case's expectation.
TEST(CorpusFormat, AnswersHoldingACommentEndAreWrittenAsChecksums) {
  auto f = difftest::parse_corpus(
      "t.quel", "create s (t = c10)\nappend to s (t = \"a*/b\")\nrange of v is s\nretrieve (v.t)\n/*= ? */\n"
                "retrieve (n = count(v.t))\n/*= ? */\n");
  auto r = difftest::run_corpus(f, "interp");
  EXPECT_TRUE(r.unmendable.empty()) << r.unmendable.front();
  EXPECT_NE(r.rewritten.find("retrieve (v.t)\n/*= checksum 1 "), std::string::npos) << r.rewritten;
  EXPECT_NE(r.rewritten.find("retrieve (n = count(v.t))\n/*= rows\nn\n1\n*/\n"), std::string::npos) << r.rewritten;
  auto again = difftest::run_corpus(difftest::parse_corpus("t.quel", r.rewritten), "interp");
  EXPECT_EQ(again.cases, 2);
  EXPECT_EQ(again.passed, 2);
  EXPECT_TRUE(again.failures.empty()) << again.failures.front();
}

// A file saved with CR LF line ends reads as LF: its rows once differed from
// the answer by a CR no one could see ("expected rows a 1 but got rows a 1").
TEST(CorpusFormat, CrLfLineEndsReadAsLf) {
  const auto path = std::filesystem::temp_directory_path() / ("quelkit-crlf-" + std::to_string(::getpid()) + ".quel");
  {
    std::ofstream out(path, std::ios::binary);
    out << "retrieve (a = 1)\r\n/*= rows\r\na\r\n1\r\n*/\r\n";
  }
  auto f = difftest::load_corpus(path.string());
  std::filesystem::remove(path);
  auto r = difftest::run_corpus(f, "interp");
  EXPECT_EQ(r.cases, 1);
  EXPECT_EQ(r.passed, 1);
  EXPECT_TRUE(r.failures.empty()) << r.failures.front();
}

// A corpus file is read as a script is, within the same limits: a line past
// 16 MiB is refused with its reason, not read whole into memory.
TEST(CorpusFormat, ALineTooLongIsRefusedWithItsReason) {
  const auto path = std::filesystem::temp_directory_path() / ("quelkit-long-" + std::to_string(::getpid()) + ".quel");
  {
    std::ofstream out(path, std::ios::binary);
    out << "retrieve (a = 1)\nretrieve (b = \"" << std::string((size_t(16) << 20) + 10, 'x') << "\")\n";
  }
  std::string what;
  try {
    difftest::load_corpus(path.string());
  } catch (std::runtime_error& e) {
    what = e.what();
  }
  std::filesystem::remove(path);
  EXPECT_NE(what.find("a line longer than 16 MiB"), std::string::npos) << what;
}

// A long wrong answer is said by its first difference and where in the file
// it is, not as two whole tables (210 rows printed twice hid the one value).
TEST(CorpusFormat, ALongWrongAnswerNamesItsFirstDifference) {
  std::string rows = "a";
  for (int i = 1; i <= 30; ++i) rows += "\n" + std::to_string(i == 17 ? 99 : i);
  auto f = difftest::parse_corpus("t.quel", "/*! parts 30 */\nrange of p is parts\nretrieve (a = p.pnum)\n/*= rows\n" +
                                                rows + "\n*/\n");
  auto r = difftest::run_corpus(f, "interp");
  ASSERT_EQ(r.failures.size(), 1u);
  // Line 4 opens the block, line 5 is the header: row 17 is line 22.
  EXPECT_EQ(r.failures[0],
            "t.quel:4: expected rows of 31 lines, got 31; the first difference is at line 22: expected '99', got "
            "'17' (--rewrite writes the whole answer)");
}

}  // namespace quelkit::test
