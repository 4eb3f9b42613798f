// `quelkit difftest`: random qualifications on every back end (with storage
// variants and SQLite as oracles), or corpus files (--corpus). Exit 0 clean,
// 1 a mismatch or a failed case, 2 bad usage.
#include "difftest/difftest.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string_view>

#include <unistd.h>

#include "cli/command.h"
#include "difftest/aggregates.h"
#include "difftest/check.h"
#include "difftest/corpus.h"
#include "difftest/sqlite_oracle.h"

namespace quelkit::difftest {

namespace {

struct DifftestOptions {
  RunOptions run;
  std::string backends = "all";
  std::vector<std::string> corpus;
  bool rewrite = false, no_shrink = false, no_sqlite = false, no_storage = false, no_python = false;
  bool no_plan_reuse = false, no_reformat = false;
  std::string python_oracle;
  cli::CodeOptions code;  // --jit-opt, --jit-checks, --jit-cpu, --vector-batch, --selection
  double minutes = 0, seconds = 0;
  uint64_t aggregates = 0;
};

int run_difftest(const DifftestOptions& d);

}  // namespace

void print_summary(std::ostream& os, const Summary& s, const std::vector<std::string>& runners, uint64_t seed) {
  os << "difftest: seed " << seed << ": " << s.queries << " queries in " << s.seconds << " s";
  if (s.seconds > 0) os << " (" << uint64_t(double(s.queries) * 60 / s.seconds) << " per minute)";
  os << " on";
  for (const auto& r : runners) os << " " << r;
  os << "\n  raised a runtime error: " << s.failed << "; result rows compared: " << s.rows
     << "\n  storage variants compared: " << s.storage_checked << "; joins compared with --no-reformat: "
     << s.reformat_checked << " (" << s.reformat_taken << " reformatted)";
  // The raised errors a second implementation checked (or why none did).
  if (!s.python_missing.empty()) {
    os << "\n  Python oracle: none (" << s.python_missing << ")";
  } else {
    os << "\n  of those raised, checked by the Python oracle: " << s.python_checked << ", agreed: " << s.python_agreed;
    if (!s.python_skipped.empty()) {
      os << "; not evaluated there:";
      for (const auto& [r, n] : s.python_skipped) os << " " << r << " " << n;
    }
  }
  // The plan-reuse net (twin.h): statements run after their literal twin
  // and again with the plan cache off.
  uint64_t reuse_mismatches = 0;
  for (const auto& m : s.mismatches) reuse_mismatches += m.kind == Mismatch::Twin || m.kind == Mismatch::CacheOff;
  os << "\n  plan reuse: " << s.queries << " statements, " << s.twins << " literal twins (after which "
     << s.twin_reused << " prepared nothing), " << s.cache_off << " cache-off reruns, "
     << (reuse_mismatches ? std::to_string(reuse_mismatches) + " disagreed" : std::string("all agreed"));
  os << "\n  SQLite compared: " << s.sqlite_checked;
  if (!s.sqlite_skipped.empty()) {
    os << "; not comparable:";
    for (const auto& [r, n] : s.sqlite_skipped) os << " " << r << " " << n;
  }
  auto missing = s.coverage.missing();
  os << "\n  operators never generated:" << (missing.empty() ? " none" : "");
  for (const auto& m : missing) os << " " << m;
  os << "\n  generator errors: " << s.bind_failures << "\n  mismatches: " << s.mismatches.size() << "\n";
}

cli::Run define_difftest(CLI::App& app, const std::vector<std::string>&) {
  auto d = std::make_shared<DifftestOptions>();
  app.description(
      "Random qualifications and target lists over PARTS and EDGE, run on every back end and mode of -b,\n"
      "on ISAM/hash copies of the relations, and through SQLite; a mismatch is shrunk and printed as a\n"
      ".quel reproducer (corpus format). Without --count, --minutes or --seconds: 1000 queries.\n"
      "--corpus runs .quel files with expectations (test/queries/README.md explains the format); --rewrite replaces\n"
      "every expectation of the files by what the first back end answers (fills /*= ? */ placeholders),\n"
      "and leaves a file as it was where back ends disagree or a statement fails outside an expectation.");
  app.add_option("--seed", d->run.seed, "generator seed (default 1); the same seed gives the same queries")
      ->check(cli::whole(0))
      ->type_name("S");
  app.add_option("--count", d->run.count, "stop after N queries")->check(cli::whole(1))->type_name("N");
  app.add_option("--minutes", d->minutes, "stop after M minutes (fractions allowed)")
      ->check(cli::real_above(0))
      ->type_name("M");
  app.add_option("--seconds", d->seconds, "stop after S seconds")->check(cli::real_above(0))->type_name("S");
  app.add_option("--max-mismatches", d->run.max_mismatches, "stop after N mismatches (default 1)")
      ->check(cli::whole(1))
      ->type_name("N");
  app.add_option("-b,--backend", d->backends, "back ends and modes (default all)")->check(cli::backend_list())->type_name("LIST");
  auto* corpus = app.add_option("--corpus", d->corpus, "run the .quel files of FILE or DIR (may be repeated)")
      ->type_name("FILE|DIR")
      ->check(CLI::ExistingPath.description(""))
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--rewrite", d->rewrite,
               "with --corpus: replace every expectation by what the first back end answers, where all agree")
      ->needs(corpus);  // alone it would run the random queries and rewrite nothing
  cli::add_code_options(app, &d->code);
  app.add_option("--aggregates", d->aggregates,
                 "then N random aggregates (simple and by, with inner qualifications) on every back end and "
                 "against SQLite (grouped subquery joined back)")
      ->check(cli::whole(0))
      ->type_name("N");
  app.add_flag("--no-shrink", d->no_shrink, "print a mismatch as found");
  app.add_flag("--no-sqlite", d->no_sqlite, "leave out the SQLite oracle");
  app.add_flag("--no-storage", d->no_storage, "leave out the ISAM/hash copies");
  app.add_flag("--no-python", d->no_python, "leave out the Python oracle of the queries that raise");
  app.add_flag("--no-reformat", d->no_reformat,
               "decompose joins by tuple substitution alone (quelkit --no-reformat); random queries then skip "
               "the check of reformatted plans against substitution-only ones");
  app.add_flag("--no-plan-reuse", d->no_plan_reuse,
               "leave out the plan-reuse net: each statement run after its literal twin (same shape, other "
               "literals) and again with the plan cache off");
  app.add_option("--python-oracle", d->python_oracle,
                 "the Python oracle's script (default: test/oracle/oracle.py of the source tree)")
      ->check(CLI::ExistingFile.description(""))
      ->type_name("FILE");
  // What the summary's "not comparable" counts, from the oracle's one list.
  std::string differences = "\nWhat the SQLite oracle leaves out (the summary's \"not comparable\") or treats apart:\n";
  for (const Difference& dif : kDifferences) {
    std::string line = "  " + std::string(dif.name) + ":";
    std::string_view rest = dif.reason;
    while (!rest.empty()) {  // words, wrapped at 100 columns, continued indented
      const size_t sp = rest.find(' ');
      const std::string_view word = rest.substr(0, sp);
      if (line.size() + 1 + word.size() > 100) {
        differences += line + "\n";
        line = "    ";
      }
      line += (line.size() > 4 && line.back() != ' ' ? " " : "") + std::string(word);
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    }
    differences += line + "\n";
  }
  app.footer(differences);
  // What shapes a random run does nothing to a corpus run: given with
  // --corpus it is a usage error, not silently a run that tested less.
  for (const char* random_only : {"--seed", "--count", "--minutes", "--seconds", "--max-mismatches", "--aggregates",
                                  "--no-shrink", "--no-sqlite", "--no-storage", "--no-python", "--python-oracle"})
    corpus->excludes(app.get_option(random_only));
  return [d, &app] {
    cli::refuse_unread_backend_options(app, harness::parse_backend_list(d->backends));
    return run_difftest(*d);
  };
}

namespace {

int run_difftest(const DifftestOptions& d) {
  RunOptions o = d.run;
  if (d.minutes > 0) o.seconds = d.minutes * 60;
  if (d.seconds > 0) o.seconds = d.seconds;
  o.shrink = !d.no_shrink;
  o.sqlite = !d.no_sqlite;
  o.storage = !d.no_storage;
  o.python = !d.no_python;
  o.plan_reuse = !d.no_plan_reuse;
  CorpusNet net;
  net.twins = net.cache_off = !d.no_plan_reuse;
  net.reformat = !d.no_reformat;
  o.python_script = d.python_oracle;
  const std::string& backends = d.backends;
  const bool rewrite = d.rewrite;
  const uint64_t aggregates = d.aggregates;
  // What shapes each back end's code, as the session's options give it.
  const harness::PrepareOptions prepare = d.code.prepare();
  // The files first, all of them: a corpus with no case in it is an error,
  // not a pass.
  std::vector<std::string> paths;
  for (const auto& c : d.corpus) {
    std::vector<std::string> found;
    if (std::filesystem::is_regular_file(c)) {  // a file named is read, whatever its name
      found.push_back(c);
    } else if (!std::filesystem::is_directory(c)) {
      cli::usage_error("--corpus " + c + ": neither a file nor a directory");
    } else {
      try {
        found = corpus_files(c);
      } catch (std::exception& e) {
        cli::usage_error("--corpus " + c + ": " + e.what());
      }
    }
    if (found.empty()) cli::usage_error("--corpus " + c + ": no .quel files there");
    paths.insert(paths.end(), found.begin(), found.end());
  }
  // Every file read and its directives checked before the first runs: a
  // directive is an option (--parts, --page-size, --wisconsin) and is checked
  // as one, before any work.
  std::vector<CorpusFile> loaded;
  for (const auto& p : paths) {
    try {
      loaded.push_back(load_corpus(p));
    } catch (std::exception& e) {
      cli::usage_error(std::string("--corpus ") + e.what());
    }
  }
  try {
    if (!d.corpus.empty()) {
      int files = 0, cases = 0, passed = 0, failed = 0, uncased = 0, stale = 0, kept = 0, twins = 0, cache_off = 0,
          text_twins = 0, text_twin_hits = 0;
      // At a terminal, the file running now, on a line cleared once it has
      // run (a whole corpus under -b all takes minutes: gccjit compiles each
      // case); in a log, nothing.
      const bool progress = isatty(STDERR_FILENO);
      size_t shown = 0;
      auto clear_progress = [&] {
        if (shown) std::cerr << '\r' << std::string(shown, ' ') << '\r' << std::flush;
        shown = 0;
      };
      for (CorpusFile& file : loaded) {
        ++files;
        const std::string p = file.name;
        if (progress) {
          const std::string line =
              "corpus: file " + std::to_string(files) + " of " + std::to_string(loaded.size()) + ": " + p;
          std::cerr << line << std::flush;
          shown = line.size();
        }
        CorpusReport r = run_corpus(file, backends, prepare, net);
        twins += r.twins;
        cache_off += r.cache_off;
        text_twins += r.text_twins;
        text_twin_hits += r.text_twin_hits;
        clear_progress();  // before what the file's run says
        cases += r.cases;
        passed += r.passed;
        uncased += r.uncased;
        // --rewrite replaces the expectations that differ from what ran, so
        // those are not failures; what no expectation mends still is, and
        // leaves the file as it was: where back ends disagree, the first
        // one's answer is not to be written down as the expected one.
        const auto& failures = rewrite ? r.unmendable : r.failures;
        failed += int(failures.size());
        for (const auto& f : failures) std::cerr << f << "\n";
        if (!rewrite) continue;
        if (!r.unmendable.empty()) {
          ++kept;
          std::cerr << p << ": not rewritten: " << r.unmendable.size() << " failure"
                    << (r.unmendable.size() == 1 ? "" : "s") << " that no expectation mends\n";
          continue;
        }
        stale += r.stale;
        // A filled expectation moves the statements after it (rows of
        // several lines where `?` was one), and with them the line an
        // error names: the rewritten text runs again until what it
        // expects is what it gives. (An error's block is one line either
        // way, so the second run settles it.)
        std::string text = r.rewritten;
        for (int again = 0; again < 4 && text != file.text; ++again) {
          file = parse_corpus(p, text);
          text = run_corpus(file, backends, prepare, net).rewritten;
        }
        if (r.stale == 0) continue;
        std::ofstream out(p, std::ios::binary);
        out << text;
        std::cerr << p << ": " << r.stale << " expectation" << (r.stale == 1 ? "" : "s") << " rewritten\n";
      }
      // Files that hold no case test nothing: not a pass either.
      if (cases == 0) {
        std::cerr << "quelkit difftest: error: the corpus (" << files << (files == 1 ? " file" : " files")
                  << ") holds no cases\n";
        return 1;
      }
      // The modes that ran, as the random run's summary names them: "all" says
      // nothing of what this build has.
      std::cout << "corpus: " << files << (files == 1 ? " file, " : " files, ") << cases
                << (cases == 1 ? " case on" : " cases on");
      for (const auto& [name, mode] : harness::parse_backend_list(backends)) std::cout << " " << name << ":" << mode;
      std::cout << ": ";
      if (rewrite) {
        std::cout << stale << " expectation" << (stale == 1 ? "" : "s") << " rewritten";
        if (kept)
          std::cout << "; " << kept << (kept == 1 ? " file left as it was" : " files left as they were") << ", with "
                    << failed << " failure" << (failed == 1 ? "" : "s") << " that no expectation mends";
        std::cout << "\n";
      } else {
        // A case can fail twice (a statement before it failed, and its
        // expectation), and a statement no expectation follows can fail
        // too: the failures listed (those outside the cases said apart),
        // and the cases that did not pass.
        if (failed) {
          std::cout << failed << (failed == 1 ? " failure" : " failures");
          if (uncased) std::cout << " (" << uncased << " outside the cases, in statements no expectation follows)";
          std::cout << "; " << cases - passed << " of " << cases << (cases == 1 ? " case" : " cases") << " failed";
        } else {
          std::cout << "all pass";
        }
        std::cout << "; plan reuse: " << twins << " cases after a literal twin, " << cache_off
                  << " rerun with the plan cache off; statement cache: " << text_twins
                  << " cases run from their text after a text twin, " << text_twin_hits << " of them found its entry\n";
      }
      return failed ? 1 : 0;
    }
    Checker ch(backends, std::cerr, prepare, o.sqlite, !d.no_reformat);
    Summary s = ch.run(o);
    print_summary(std::cout, s, ch.runner_labels(), o.seed);
    // The same queries again, whatever stopped this run (a time limit too):
    // the summary's last line. --selection only where a selected mode has a
    // page kernel (elsewhere it would do nothing, and is refused).
    auto rerun = [&] {
      bool kernel = false;
      for (const auto& [b, m] : harness::parse_backend_list(backends)) kernel = kernel || harness::has_page_kernel(b, m);
      std::cout << "  rerun: quelkit difftest --seed " << o.seed << " --count "
                << std::max<uint64_t>(s.queries + s.bind_failures, 1) << " -b " << backends;
      if (kernel) std::cout << " --selection " << d.code.selection;
      std::cout << code_options(prepare);
      if (o.max_mismatches != RunOptions{}.max_mismatches) std::cout << " --max-mismatches " << o.max_mismatches;
      if (aggregates) std::cout << " --aggregates " << aggregates;
      for (const auto& [off, flag] :
           {std::pair{d.no_sqlite, "--no-sqlite"}, {d.no_storage, "--no-storage"}, {d.no_shrink, "--no-shrink"},
            {d.no_python, "--no-python"}, {d.no_plan_reuse, "--no-plan-reuse"}})
        if (off) std::cout << " " << flag;
      std::cout << "\n";
    };
    // A run that compared nothing (a time limit shorter than one query) is
    // no pass.
    if (s.queries == 0) {
      rerun();
      std::cerr << "quelkit difftest: error: no query ran in the time given\n";
      return 1;
    }
    size_t agg_mismatches = 0;
    if (aggregates) {
      AggregateSummary as = run_aggregates(ch, o.seed, aggregates, std::cerr);
      std::cout << "aggregates: " << as.statements << " statements; raised a runtime error: " << as.failed;
      if (o.sqlite)
        std::cout << "; SQLite compared: " << as.sqlite_checked << " (not comparable: " << as.sqlite_skipped << ")";
      else
        std::cout << "; SQLite left out (--no-sqlite)";
      std::cout << "; mismatches: " << as.mismatches.size() << "\n";
      agg_mismatches = as.mismatches.size();
    }
    rerun();
    return s.mismatches.empty() && agg_mismatches == 0 ? 0 : 1;
  } catch (QuelError& e) {
    cli::usage_error(e.err.message);
  } catch (std::exception& e) {
    std::cerr << "quelkit difftest: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

}  // namespace quelkit::difftest
