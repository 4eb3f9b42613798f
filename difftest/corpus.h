// The query corpus (test/queries/*.quel): QUEL scripts whose comments carry
// the expected result of each case, so every file also runs as it is with
// `quelkit -b all FILE`. Format (sqllogictest-like):
//
//   /*! parts 210:isam:wide */     directive, as the command-line option --parts
//   /*! page-size 256 */           directive, as --page-size
//   /*! wisconsin study:isam */     directive, as --wisconsin
//   create t (a = i2)              statements without an expectation must succeed
//   append to t (a = 1)
//   retrieve (t.a) where t.a > 0   the last statement before an expectation is the case
//   /*= rows
//   a
//   1
//   */                             its output, exactly (CSV, header first)
//   retrieve (x = 1 / 0)
//   /*= error 11:17: division by zero */     line:col: message of the error
//   retrieve (p.pnum)
//   /*= checksum 210 9a3c...e1 */  row count and result checksum (DESIGN.md)
//   append to t (a = 2)
//   /*= ok */                      must succeed; output not checked
//
// `out` is a synonym of `rows` for statements that print a message.
// A case is the text between two expectations: it may hold several
// statements (setup) and may fail to parse (lexical and syntax errors are
// cases too). Cases run in order in one session per file.
#pragma once

#include "engine/backend.h"
#include "bench/workloads/parts.h"
#include "bench/workloads/wisconsin.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quelkit::difftest {

struct CorpusCase {
  size_t begin = 0, end = 0;          // the case's text
  size_t exp_begin = 0, exp_end = 0;  // the expectation comment (empty range: none)
  std::string kind;                   // rows out error checksum ok ?
  std::string expected;               // rows/out: the lines; error: "L:C: msg"; checksum: "N HEX" or "?"
  uint32_t line = 0;                  // line of the expectation (or of the case text)
};

struct CorpusFile {
  std::string name, text;
  std::string parts;      // --parts spec, "" = none
  std::string wisconsin;  // --wisconsin spec, "" = none
  // The two specs as parse_corpus checked them, for run_corpus to build.
  std::optional<harness::PartsSpec> parts_spec;
  std::optional<harness::WisconsinSpec> wisconsin_spec;
  uint32_t page_size = 0;  // 0 = default
  std::vector<CorpusCase> cases;
};

// Throws std::runtime_error on a malformed file.
CorpusFile parse_corpus(const std::string& name, const std::string& text);
CorpusFile load_corpus(const std::string& path);

struct CorpusReport {
  int cases = 0, passed = 0;
  int uncased = 0;                    // failures of statements that no expectation follows
  std::vector<std::string> failures;  // "file:line: what", every one
  // The failures that replacing expectations cannot mend (back ends disagree,
  // a statement before a case or without an expectation failed, an
  // expectation follows no statement): a copy of each, for --rewrite, which
  // must not write the first back end's answer where another disagrees.
  std::vector<std::string> unmendable;
  int stale = 0;        // expectations that differ from what ran: what --rewrite replaces
  // The plan-reuse net (CorpusNet): cases run after a literal twin, and
  // cases rerun with the plan cache off.
  int twins = 0, cache_off = 0;
  // The statement cache's net (CorpusNet::text_twins): cases whose text ran
  // after its text twin, and how many of them found the twin's entry.
  int text_twins = 0, text_twin_hits = 0;
  std::string rewritten;  // the file with every expectation replaced by what ran
};

// The plan-reuse net over a corpus, on each case's statement (a retrieve,
// append, replace or delete without aggregates): its literal twin (twin.h)
// evaluated first on every back end, so the statement runs on the plans the
// twin prepared (on the back ends that reuse plans); and, where the case's
// expectation is not an exact answer (ok, a placeholder, none), the
// statement evaluated with the plan cache off before it runs, its answer
// (error, or rows and checksum) each back end's with the cache on. An exact
// expectation is that answer already, written down by a run without the
// twin. plan_cache false: the whole file runs as --no-plan-cache (the net
// then does nothing).
// text_twins: the statement cache's net (engine/statement_cache.h). The
// case's statement, as a text of its own (at its place: its positions are
// the file's), runs through the session's text path after its text twin,
// the same text with other literals of the same types, ran inside `begin`
// ... `abort` (which keeps the twin's entry and undoes its changes); it
// must find the twin's entry, and its answer, error position included, is
// held against the expectation as any case's. Not inside a transaction the
// case opened, nor under plan_cache false.
struct CorpusNet {
  bool plan_cache = true;
  bool reformat = true;  // false: the file runs as --no-reformat
  bool twins = true;
  bool cache_off = true;
  bool text_twins = true;
};

// Runs a file on the back ends of `backends` ("interp:switch", "all", ...) in
// one session: every back end must agree (the session compares them) and the
// first one's answer must equal the expectation.
// `prepare`: the options that shape each back end's code (--selection,
// --jit-opt, --jit-checks, --jit-cpu, --vector-batch).
CorpusReport run_corpus(const CorpusFile& f, const std::string& backends,
                        const harness::PrepareOptions& prepare = {}, const CorpusNet& net = {});

// Every .quel file under a directory, sorted.
std::vector<std::string> corpus_files(const std::string& dir);

}  // namespace quelkit::difftest
