// `quelkit difftest`: random qualifications on every back end (with storage
// variants and SQLite as oracles), or corpus files (--corpus). Exit 0 clean,
// 1 a mismatch or a failed case, 2 bad usage.
#include "cli/difftest/difftest.h"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/difftest/aggregates.h"
#include "cli/difftest/check.h"
#include "cli/difftest/corpus.h"
#include "cli/difftest/sqlite_oracle.h"

namespace quelkit::difftest {

namespace {

const char* kUsage = R"(usage: quelkit difftest [--seed S] [--count N] [--minutes M] [-b LIST] [options]
       quelkit difftest --corpus FILE|DIR [...] [-b LIST] [--rewrite]
  random qualifications and target lists over PARTS and EDGE, run on every back end and mode of
  -b (default all), on ISAM/hash copies of the relations, and through SQLite; a mismatch is shrunk
  and printed as a .quel reproducer (corpus format). Without --count or --minutes: 1000 queries.
    --seed S             generator seed (default 1); the same seed gives the same queries
    --count N            stop after N queries
    --minutes M          stop after M minutes (fractions allowed)
    --max-mismatches N   stop after N mismatches (default 1)
    --jit-opt 0..3       optimisation level of the JIT back ends
    --selection S        branch, nobranch or auto (default): how page kernels select
    --no-shrink --no-sqlite --no-storage
    --aggregates N       then N random aggregates (simple and by, with inner qualifications) on
                         every back end and against SQLite (grouped subquery joined back)
  --corpus runs .quel files with expectations (test/queries/ explains the format); --rewrite replaces
  every expectation of the files by what the first back end answers (fills /*= ? */ placeholders).
)";

[[noreturn]] void usage(const std::string& msg) {
  std::cerr << "quelkit difftest: error: " << msg << "\n" << kUsage;
  std::exit(2);
}

}  // namespace

void print_summary(std::ostream& os, const Summary& s, const std::vector<std::string>& runners, uint64_t seed) {
  os << "difftest: seed " << seed << ": " << s.queries << " queries in " << s.seconds << " s";
  if (s.seconds > 0) os << " (" << uint64_t(double(s.queries) * 60 / s.seconds) << " per minute)";
  os << " on";
  for (const auto& r : runners) os << " " << r;
  os << "\n  raised a runtime error: " << s.failed << "; result rows compared: " << s.rows
     << "\n  storage variants compared: " << s.storage_checked << "\n  SQLite compared: " << s.sqlite_checked;
  if (!s.sqlite_skipped.empty()) {
    os << "; not comparable:";
    for (const auto& [r, n] : s.sqlite_skipped) os << " " << r << " " << n;
  }
  auto missing = s.coverage.missing();
  os << "\n  operators never generated: " << (missing.empty() ? "none" : "");
  for (const auto& m : missing) os << m << " ";
  os << "\n  generator errors: " << s.bind_failures << "\n  mismatches: " << s.mismatches.size() << "\n";
}

int difftest_main(const std::vector<std::string>& args, size_t i) {
  RunOptions o;
  std::string backends = "all";
  std::vector<std::string> corpus;
  bool rewrite = false;
  int jit_opt = -1;
  harness::Selection selection = harness::Selection::Auto;
  uint64_t aggregates = 0;
  auto value = [&](const std::string& opt) -> std::string {
    if (auto eq = args[i - 1].find('='); eq != std::string::npos) return args[i - 1].substr(eq + 1);
    if (i >= args.size()) usage(opt + " needs a value");
    return args[i++];
  };
  auto number = [&](const std::string& opt) {
    std::string v = value(opt);
    try {
      size_t n = 0;
      double d = std::stod(v, &n);
      if (n != v.size() || d < 0) throw std::invalid_argument(v);
      return d;
    } catch (...) {
      usage(opt + " needs a number, not '" + v + "'");
    }
  };
  while (i < args.size()) {
    std::string a = args[i++];
    std::string name = a.substr(0, a.find('='));
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (name == "--seed") {
      o.seed = uint64_t(number(name));
    } else if (name == "--count") {
      o.count = uint64_t(number(name));
    } else if (name == "--minutes") {
      o.seconds = number(name) * 60;
    } else if (name == "--seconds") {
      o.seconds = number(name);
    } else if (name == "--max-mismatches") {
      o.max_mismatches = size_t(number(name));
    } else if (a == "-b" || name == "--backend") {
      backends = value(name);
    } else if (name == "--corpus") {
      corpus.push_back(value(name));
    } else if (a == "--rewrite") {
      rewrite = true;
    } else if (name == "--jit-opt") {
      jit_opt = int(number(name));
      if (jit_opt > 3) usage("--jit-opt must be 0, 1, 2 or 3");
    } else if (name == "--selection") {
      if (!harness::parse_selection(value(name), &selection)) usage("--selection must be branch, nobranch or auto");
    } else if (name == "--aggregates") {
      aggregates = uint64_t(number(name));
    } else if (a == "--no-shrink") {
      o.shrink = false;
    } else if (a == "--no-sqlite") {
      o.sqlite = false;
    } else if (a == "--no-storage") {
      o.storage = false;
    } else {
      usage("unknown option " + a);
    }
  }
  try {
    if (!corpus.empty()) {
      int files = 0, cases = 0, failed = 0;
      for (const auto& c : corpus) {
        std::vector<std::string> paths;
        if (c.size() > 5 && c.substr(c.size() - 5) == ".quel") paths.push_back(c);
        else paths = corpus_files(c);
        for (const auto& p : paths) {
          ++files;
          CorpusReport r = run_corpus(load_corpus(p), backends, selection);
          cases += r.cases;
          failed += int(r.failures.size());
          for (const auto& f : r.failures) std::cerr << f << "\n";
          if (rewrite) {
            std::ofstream out(p, std::ios::binary);
            out << r.rewritten;
            std::cerr << p << ": expectations rewritten\n";
          }
        }
      }
      std::cout << "corpus: " << files << " files, " << cases << " cases on " << backends << ": "
                << (failed ? std::to_string(failed) + " failures" : "all pass") << "\n";
      return failed && !rewrite ? 1 : 0;
    }
    Checker ch(backends, std::cerr, jit_opt, selection);
    Summary s = ch.run(o);
    print_summary(std::cout, s, ch.runner_labels(), o.seed);
    size_t agg_mismatches = 0;
    if (aggregates) {
      AggregateSummary as = run_aggregates(ch, o.seed, aggregates, std::cerr);
      std::cout << "aggregates: " << as.statements << " statements; raised a runtime error: " << as.failed
                << "; SQLite compared: " << as.sqlite_checked << " (not comparable: " << as.sqlite_skipped
                << "); mismatches: " << as.mismatches.size() << "\n";
      agg_mismatches = as.mismatches.size();
    }
    return s.mismatches.empty() && agg_mismatches == 0 ? 0 : 1;
  } catch (QuelError& e) {
    usage(e.err.message);
  } catch (std::exception& e) {
    std::cerr << "quelkit difftest: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace quelkit::difftest
