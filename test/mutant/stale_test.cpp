// The plan-reuse net's mutant: a back end that runs every reused plan with
// the literals of the statement that prepared it (register_stale_literals)
// must be caught by the random run as a Twin mismatch, shrunk, with a
// reproducer that fails on it and passes on the back end it wraps; and by
// the corpus's net on a case the corpus without the net passes.
#include <gtest/gtest.h>

#include <sstream>

#include "backends/backends.h"
#include "difftest/check.h"
#include "difftest/corpus.h"
#include "mutant_backend.h"

namespace quelkit::test {
namespace {

using namespace quelkit::difftest;

std::string stale_label() {
  register_all_backends();
  return register_stale_literals();
}

TEST(StaleLiterals, RandomRunCatchesAndShrinksIt) {
  const std::string m = stale_label();
  std::ostringstream log;
  Checker ch(m, log);
  RunOptions o;
  o.seed = 1;
  o.count = 2000;
  o.sqlite = o.storage = o.python = false;
  Summary s = ch.run(o);
  ASSERT_EQ(s.mismatches.size(), 1u) << "the stale literals went unnoticed for " << s.queries << " queries";
  const Mismatch& mm = s.mismatches[0];
  EXPECT_EQ(mm.kind, Mismatch::Twin) << mm.reproducer;
  EXPECT_EQ(mm.a, m);
  EXPECT_EQ(mm.b, m + " --no-plan-cache");
  EXPECT_LE(mm.query.operators(), 2) << mm.reproducer;
  EXPECT_NE(mm.reproducer.find("its literal twin first"), std::string::npos) << mm.reproducer;
  std::cout << "stale literals caught at query " << mm.index << ", shrunk from " << mm.original_operators << " to "
            << mm.query.operators() << " operators:\n"
            << mm.reproducer;
  // The reproducer holds the twin and then the statement: on the stale back
  // end the statement answers for the twin; on the one it wraps it passes.
  CorpusFile f = parse_corpus("repro.quel", mm.reproducer);
  EXPECT_EQ(f.cases.size(), 3u) << mm.reproducer;  // the twin's, the statement's and the tail
  CorpusReport broken = run_corpus(f, m);
  EXPECT_FALSE(broken.failures.empty()) << mm.reproducer;
  CorpusReport clean = run_corpus(f, "threaded");
  EXPECT_TRUE(clean.failures.empty()) << clean.failures.front();
}

TEST(StaleLiterals, CorpusNetCatchesIt) {
  const std::string m = stale_label();
  const std::string text = "/*! parts 210 */\nrange of p is parts\nretrieve (p.pnum) where p.pnum < 5\n/*= ? */\n";
  // The expectation from the wrapped back end.
  const std::string filled = run_corpus(parse_corpus("net.quel", text), "threaded").rewritten;
  const CorpusFile f = parse_corpus("net.quel", filled);
  ASSERT_TRUE(run_corpus(f, "threaded").failures.empty()) << filled;
  // The file's one statement of its shape prepares its own plan: without
  // the net the stale back end passes.
  CorpusNet none;
  none.twins = none.cache_off = none.text_twins = false;
  const CorpusReport quiet = run_corpus(f, m, {}, none);
  EXPECT_TRUE(quiet.failures.empty()) << quiet.failures.front();
  EXPECT_EQ(quiet.twins, 0);
  EXPECT_EQ(quiet.cache_off, 0);
  // With it, the statement runs on its twin's plan: a wrong answer. An
  // exact expectation is the cache-off answer written down, so no rerun.
  CorpusNet plans;  // the plan net alone; the statement cache's text twins below
  plans.text_twins = false;
  const CorpusReport r = run_corpus(f, m, {}, plans);
  EXPECT_EQ(r.twins, 1);
  EXPECT_EQ(r.cache_off, 0);
  ASSERT_EQ(r.failures.size(), 1u) << filled;
  EXPECT_NE(r.failures[0].find("expected rows"), std::string::npos) << r.failures[0];
  // Where the expectation says nothing of the answer (ok), the rerun with
  // the plan cache off is what catches it.
  const std::string ok = "/*! parts 210 */\nrange of p is parts\nretrieve (p.pnum) where p.pnum < 5\n/*= ok */\n";
  const CorpusReport k = run_corpus(parse_corpus("ok.quel", ok), m, {}, plans);
  EXPECT_EQ(k.twins, 1);
  EXPECT_EQ(k.cache_off, 1);
  ASSERT_EQ(k.failures.size(), 1u);
  EXPECT_NE(k.failures[0].find("plan cache on and off disagree: " + m + " gives "), std::string::npos) << k.failures[0];
  EXPECT_NE(k.failures[0].find(" with the plan cache, checksum 4 "), std::string::npos) << k.failures[0];
  EXPECT_TRUE(run_corpus(parse_corpus("ok.quel", ok), "threaded").failures.empty());
  // The statement cache's net alone (the same text with other literals run
  // first, from its text) catches it too: the statement reuses the twin's plan.
  CorpusNet texts;
  texts.twins = texts.cache_off = false;
  const CorpusReport t = run_corpus(f, m, {}, texts);
  EXPECT_EQ(t.text_twins, 1);
  EXPECT_FALSE(t.failures.empty()) << filled;
  EXPECT_TRUE(run_corpus(f, "threaded", {}, texts).failures.empty());
}

}  // namespace
}  // namespace quelkit::test
