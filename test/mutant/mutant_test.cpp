// The mutant check: a back end with one deliberately broken operator (the
// test-only flag QUELKIT_MUTANT, default LT_I4) must be caught by the random
// run, which must shrink the difference to a query of at most 3 operators
// whose reproducer shows it, and by the corpus.
#include <gtest/gtest.h>

#include <sstream>

#include "backends/backends.h"
#include "difftest/check.h"
#include "difftest/corpus.h"
#include "mutant_backend.h"

#ifndef QUELKIT_MUTANT
#define QUELKIT_MUTANT LT_I4
#endif

namespace quelkit::test {
namespace {

using namespace quelkit::difftest;

const ir::Op kBroken = ir::Op::QUELKIT_MUTANT;

std::string mutant_label() {
  register_all_backends();
  return register_mutant(kBroken);
}

TEST(Mutant, BreaksTheOperatorItNames) {
  mutant_label();
  EXPECT_NE(mutated(kBroken), kBroken) << ir::op_name(kBroken) << " has no neighbour of the same types";
  const ir::OpInfo& a = ir::op_info(kBroken);
  const ir::OpInfo& b = ir::op_info(mutated(kBroken));
  EXPECT_EQ(a.result, b.result);
  EXPECT_EQ(a.left, b.left);
  EXPECT_EQ(a.right, b.right);
}

// The random run of seed 1 against the interpreter, back ends only.
Summary random_run(const std::string& m, bool shrink) {
  std::ostringstream log;
  Checker ch("interp:switch," + m, log);
  RunOptions o;
  o.seed = 1;
  o.count = 20000;
  o.sqlite = o.storage = false;
  o.shrink = shrink;
  return ch.run(o);
}

TEST(Mutant, RandomRunCatchesAndShrinksIt) {
  const std::string m = mutant_label();
  Summary s = random_run(m, true);
  ASSERT_EQ(s.mismatches.size(), 1u) << "the mutant went unnoticed for " << s.queries << " queries";
  const Mismatch& mm = s.mismatches[0];
  EXPECT_EQ(mm.kind, Mismatch::Backends);
  EXPECT_EQ(mm.b, m);
  EXPECT_LE(mm.query.operators(), 3) << mm.reproducer;
  EXPECT_GE(mm.original_operators, mm.query.operators());
  std::cout << "mutant " << ir::op_name(kBroken) << " caught at query " << mm.index << ", shrunk from "
            << mm.original_operators << " to " << mm.query.operators() << " operators:\n"
            << mm.reproducer;
  // The reproducer is a corpus file: it fails with the mutant and passes without it.
  CorpusFile f = parse_corpus("repro.quel", mm.reproducer);
  // One failure: the disagreement, with the answers it lists, and not also a
  // comparison with the expectation (the first back end's answer, where two
  // disagree, is not the statement's).
  const CorpusReport broken = run_corpus(f, "interp:switch," + m);
  ASSERT_EQ(broken.failures.size(), 1u) << mm.reproducer;
  const std::string& said = broken.failures[0];
  EXPECT_EQ(said.rfind("repro.quel:", 0), 0u) << said;
  EXPECT_NE(said.find("back ends disagree"), std::string::npos) << said;
  EXPECT_NE(said.find(m), std::string::npos) << said;
  EXPECT_EQ(said.find("but got"), std::string::npos) << said;
  CorpusReport clean = run_corpus(f, "interp:switch");
  EXPECT_TRUE(clean.failures.empty()) << clean.failures.front();
}

// Where the mutant disagrees with the interpreter, the difference is a
// failure no expectation mends (difftest --rewrite leaves the file as it
// was): the first back end's answer is not the expected one then.
TEST(Mutant, ADisagreementIsNotAStaleExpectation) {
  const std::string m = mutant_label();
  Summary s = random_run(m, false);
  ASSERT_EQ(s.mismatches.size(), 1u);
  // The reproducer with its expectation emptied: disagreeing, which no
  // expectation mends, and not to be filled (there is no one answer to fill
  // it with: the first back end's was once counted stale beside it).
  std::string text = s.mismatches[0].reproducer;
  const size_t at = text.rfind("/*=");
  ASSERT_NE(at, std::string::npos) << text;
  text = text.substr(0, at) + "/*= ? */\n";
  CorpusReport r = run_corpus(parse_corpus("repro.quel", text), "interp:switch," + m);
  EXPECT_EQ(r.stale, 0) << text;
  ASSERT_FALSE(r.unmendable.empty()) << text;
  EXPECT_NE(r.unmendable[0].find("back ends disagree"), std::string::npos) << r.unmendable[0];
  CorpusReport clean = run_corpus(parse_corpus("repro.quel", text), "interp:switch");
  EXPECT_EQ(clean.stale, 1);
  EXPECT_TRUE(clean.unmendable.empty()) << clean.unmendable.front();
}

TEST(Mutant, CorpusCatchesIt) {
  const std::string m = mutant_label();
  size_t failures = 0;
  for (const auto& p : corpus_files(QUELKIT_SOURCE_DIR "/test/queries"))
    failures += run_corpus(load_corpus(p), m).failures.size();
  EXPECT_GT(failures, 0u) << "no corpus case uses " << ir::op_name(kBroken);
}

}  // namespace
}  // namespace quelkit::test
