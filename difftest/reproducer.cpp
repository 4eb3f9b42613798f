// The reproducer (Checker::reproducer, check.h): a mismatch as a corpus file
// that runs as it is: the setup of the relations it needs, its ranges and
// statement, and the first back end's answer as the expectation.
#include <algorithm>

#include "difftest/check.h"
#include "difftest/corpus.h"
#include "difftest/sqlite_oracle.h"
#include "difftest/twin.h"

namespace quelkit::difftest {

std::string Checker::reproducer(const Mismatch& m) {
  static const char* kinds[] = {"back ends disagree", "storage structures disagree", "SQLite disagrees",
                                "the Python oracle disagrees",
                                "a statement run after its literal twin disagrees with --no-plan-cache",
                                "plan cache on and off disagree", "generator and binder disagree",
                                "reformatted and substitution-only plans disagree (run it with and without "
                                "--no-reformat)"};
  // The plan-reuse net's: one back end with the plan cache against itself
  // without; the expectations are its answers under --no-plan-cache.
  const bool reuse = m.kind == Mismatch::Twin || m.kind == Mismatch::CacheOff;
  std::string detail = m.detail;
  for (size_t p = 0; (p = detail.find('\n', p)) != std::string::npos; p += 4) detail.replace(p, 1, "\n * ");
  // A comment must not end early.
  for (size_t p = 0; (p = detail.find("*/", p)) != std::string::npos;) detail.replace(p, 2, "* /");
  // A storage mismatch is between relations ("heap" vs the keyed ones), run
  // on the first back end, as the storage check ran it.
  const std::string first_backend = m.kind == Mismatch::Storage ? runner_labels()[0] : m.a;
  std::string runners = m.kind == Mismatch::Backends ? m.a + "," + m.b : first_backend;
  if (prepare_.selection != harness::Selection::Auto)
    runners += std::string(" --selection ") + harness::selection_name(prepare_.selection);
  runners += code_options(prepare_);
  std::string head = "/* quelkit difftest --seed " + std::to_string(m.seed) + ": query " + std::to_string(m.index) +
                     (m.original_operators ? ", shrunk from " + std::to_string(m.original_operators) + " to " +
                                                 std::to_string(m.query.operators()) + " operators"
                                           : "") +
                     ".\n * " + kinds[m.kind] + ": " + m.a + " vs " + m.b + ": " + detail +
                     "\n * Run: quelkit difftest --corpus FILE -b " + runners +
                     "\n *  or: quelkit --page-size " + std::to_string(TestData::kPageSize) + " --parts " +
                     std::to_string(TestData::kPartsRows) + " -b " + runners + " FILE" +
                     "\n * The expectation is " + m.a + "'s answer" + (reuse ? " with --no-plan-cache" : "") +
                     ": check it by hand before adding this file to test/queries/. */\n";
  std::string text = head + "/*! page-size " + std::to_string(TestData::kPageSize) + " */\n/*! parts " +
                     std::to_string(TestData::kPartsRows) + " */\n";
  std::vector<std::string> need;
  for (const auto& v : m.query.vars) {
    need.push_back(v.base);
    if (v.relation != v.base) need.push_back(v.relation);
  }
  if (m.query.kind == GQuery::Append) need.push_back(m.query.append_to);
  for (const auto& s : TestData::setup())
    if (std::find(need.begin(), need.end(), s.relation) != need.end()) text += s.text;
  GQuery heap = m.query.clone();
  for (auto& v : heap.vars) v.relation = v.base;
  const GQuery& first = m.kind == Mismatch::Storage ? heap : m.query;
  text += first.ranges_text();
  if (m.kind == Mismatch::Twin)
    if (std::optional<GQuery> twin = literal_twin(m.query, m.twin_salt))
      text += "/* its literal twin first: the statement then runs on the plans the twin prepared */\n" +
              twin->statement_text() + "/*= ? */\n";
  text += first.statement_text();
  text += m.kind == Mismatch::Storage ? "/*= checksum ? */\n" : "/*= ? */\n";
  bool twice = false;
  if (m.kind == Mismatch::Backends && reproduces(m, m.query, &twice) && twice)
    text += "/* the same statement again: it reuses the plans the first one prepared */" + std::string(kAgain) +
            m.query.statement_text() + "/*= ? */\n";
  std::string filled = text;
  try {
    CorpusNet net;
    net.plan_cache = !reuse;  // the answers without the plan cache, where it is what disagrees
    CorpusReport r = run_corpus(parse_corpus("repro.quel", text), first_backend, {}, net);
    filled = r.rewritten;
  } catch (std::exception& e) {
    filled += "/* could not run the reproducer: " + std::string(e.what()) + " */\n";
  }
  if (m.kind == Mismatch::Storage) {
    // The same statement over the keyed relations must give the heap's
    // answer: its checksum (the storage check compares only where the heap
    // statement succeeded), or whatever block the rewrite wrote.
    const size_t b = filled.rfind("/*= "), e = b == std::string::npos ? b : filled.find("*/", b);
    if (e != std::string::npos)
      filled += m.query.ranges_text() + m.query.statement_text() + filled.substr(b, e + 2 - b) + "\n";
  }
  if (m.kind == Mismatch::Sqlite && sqlite_) {
    std::string why;
    if (auto t = sqlite_->translate(m.query, &why)) filled += "/* SQL: " + t->sql + " */\n";
  }
  return filled;
}

}  // namespace quelkit::difftest
