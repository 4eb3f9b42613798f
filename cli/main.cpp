// The `quelkit` command: runs QUEL scripts or the terminal monitor on the
// selected back ends, generates PARTS and Wisconsin data for other engines (`gen`), and
// runs the paper's benchmark (`paper`). Exit status: 0 ok, 1 a statement
// failed (or a script could not be read) or back ends disagreed, 2 bad
// usage, 130 a script cancelled with Ctrl-C; an interactive monitor exits 0
// when the user quits. Results go to standard output; messages, notices and
// errors to standard error.
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/measure/backends.h"
#include "cli/difftest/difftest.h"
#include "cli/monitor.h"
#include "cli/profile.h"
#include "cli/report.h"
#include "cli/sweep.h"
#include "harness/budget.h"
#include "harness/parts.h"
#include "harness/session.h"
#include "harness/wisconsin.h"

using namespace quelkit;
using namespace quelkit::harness;

namespace {

const char* kUsage = R"(usage:
  quelkit [options] [FILE.quel ...]     run scripts (- reads standard input); no files: the terminal
                                        monitor on standard input: \g go (anywhere on a line), \p print
                                        the buffer, \r reset it, \e edit it in $EDITOR, \i FILE include a
                                        file, \q quit; Ctrl-C cancels the running statement
    -e TEXT                             run TEXT as a script (may be repeated)
    -b, --backend NAME[:MODE][,...]|all back ends (and modes) to run each statement on; with several,
                                        results must agree: the first difference is printed, exit 1
        --parts N[:heap|:isam|:hash][:wide]
                                        create relation parts with N generated tuples first
                                        (isam/hash: the paper's keyed setup)
        --wisconsin study|[NAME=]N[:heap|:isam|:hash][:seed=S]
                                        create Wisconsin relations first: the study's onek, onek1,
                                        onek2 (1,000 tuples), tenk1, tenk2 (10,000), or one relation
                                        NAME (default wisc) of N; isam/hash: keyed on unique2
        --format table|csv|none         how results are printed (none: checksum only)
        --stats[=json]                  per statement per back end: access path, rows, prepares,
                                        cache hits, prepare/run times, checksum (docs/stats.md);
                                        --stats=json without --format: standard output is JSON Lines only
        --repeat K                      run each retrieve K times; run_ns is the median
        --sink rows|count               rows (default): results as the statement gives them; count:
                                        a measurement of the qualification alone, targets not
                                        evaluated (nor their errors raised), a retrieve's count only
        --dump=FORM[,FORM...]           show a form of each statement: ast ir folded postfix
                                        (and each back end's own forms)
        --page-size BYTES               page size of new relations (default 1024)
        --memory-budget BYTES|N%        memory for relations, temporaries and results; beyond it a
                                        statement fails (default 50% of available memory; K M G T)
        --no-plan-cache                 prepare every plan afresh (measures plan reuse)
        --plan-cache-size N             plans kept per back end before eviction (default 1024)
        --jit-opt 0|1|2|3               JIT optimisation level (default 1)
        --jit-checks                    bounds assertions in generated code
        --jit-cpu generic|native        JIT target: the generic CPU the kit itself is built for
                                        (default), or every instruction of this machine's CPU
        --vector-batch N                tuples per batch of the vector back end (default 256;
                                        batches span pages)
        --selection branch|nobranch|auto
                                        how page kernels select: a branch on the qualification,
                                        or the row written and kept by its value (nothing that can
                                        raise is computed speculatively); auto (default) probes
                                        the first pages with branch and picks by selectivity
    -h, --help / --version
  quelkit gen parts --rows N [--wide] [--csv FILE]
                                        the PARTS data as CSV (pnum,pname,color,weight,qoh)
  quelkit gen wisconsin --rows N [--seed S] [--csv FILE]
                                        the Wisconsin data as CSV (unique1,...,string4; seed 1983)
  quelkit paper [--sizes LIST] [-b LIST] [--out DIR] [--reps N] [--min-time S]
                                        the paper's benchmark on every back end: the report
  quelkit sweep [--sizes LIST] [-b LIST] [--selections LIST] [--points LIST] [--reps N] [--out DIR]
                                        ns per tuple against selectivity for every page kernel
                                        under each --selection (quelkit sweep --help)
  quelkit difftest [--seed S] [--count N] [--minutes M] [-b LIST] | --corpus FILE|DIR [--rewrite]
                                        random qualifications on every back end, shrunk reproducers
                                        (quelkit difftest --help); or run corpus files
  quelkit profile [-b LIST] [--parts N] [--instructions] [--json] FILE.quel|-e TEXT|--query LETTERS
                                        hot routines of each back end, JIT code included, beside the
                                        paper's Table 3 (quelkit profile --help)
)";

extern "C" void on_sigint(int) { request_cancel(); }

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "quelkit: error: " << msg << "\n(quelkit --help shows the options)\n";
  std::exit(2);
}

uint64_t parse_count(const std::string& s, const char* what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    usage_error(std::string(what) + " needs a number, not '" + s + "'");
  try {
    return std::stoull(s);
  } catch (...) {
    usage_error(std::string(what) + " is out of range: " + s);
  }
}

// Options that take a value accept both `--opt=V` and `--opt V`.
struct Args {
  std::vector<std::string> v;
  size_t i = 0;
  bool more() const { return i < v.size(); }
  std::string take_value(const std::string& opt, const std::string& arg) {
    auto eq = arg.find('=');
    if (eq != std::string::npos) return arg.substr(eq + 1);
    if (i >= v.size()) usage_error(opt + " needs a value");
    return v[i++];
  }
};

int cmd_gen(Args& a) {
  std::string what = a.more() ? a.v[a.i] : "";
  if (what != "parts" && what != "wisconsin")
    usage_error("gen: say what to generate: quelkit gen parts|wisconsin --rows N");
  ++a.i;
  uint64_t rows = 0, seed = kWisconsinSeed;
  bool wide = false, have_rows = false;
  std::string csv;
  while (a.more()) {
    std::string arg = a.v[a.i++];
    std::string name = arg.substr(0, arg.find('='));
    if (name == "--rows") {
      rows = parse_count(a.take_value(name, arg), "--rows");
      have_rows = true;
    } else if (arg == "--wide" && what == "parts") {
      wide = true;
    } else if (name == "--seed" && what == "wisconsin") {
      seed = parse_count(a.take_value(name, arg), "--seed");
    } else if (name == "--csv") {
      csv = a.take_value(name, arg);
    } else {
      usage_error("gen: unknown option " + arg);
    }
  }
  if (!have_rows) usage_error("gen " + what + " needs --rows N");
  if (what == "wisconsin" && rows > kWisconsinMaxRows)
    usage_error("gen wisconsin: at most " + std::to_string(kWisconsinMaxRows) + " rows");
  auto write = [&](std::ostream& os) {
    if (what == "parts") write_parts_csv(os, rows, wide);
    else write_wisconsin_csv(os, rows, seed);
  };
  if (csv.empty() || csv == "-") {
    write(std::cout);
    return 0;
  }
  std::ofstream f(csv, std::ios::binary);
  if (!f) {
    std::cerr << "quelkit: error: cannot write " << csv << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  write(f);
  f.close();
  if (!f) {
    std::cerr << "quelkit: error: writing " << csv << " failed\n";
    return 1;
  }
  return 0;
}

PartsSpec parse_parts(const std::string& spec) {
  PartsSpec p;
  std::string err;
  if (!parse_parts_spec(spec, &p, &err)) usage_error(err);
  return p;
}

std::string mib(uint64_t bytes) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  if (bytes >= (uint64_t(1) << 30)) o << double(bytes) / double(uint64_t(1) << 30) << " GiB";
  else o << double(bytes) / double(1 << 20) << " MiB";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  register_all_backends();
  Args a;
  for (int i = 1; i < argc; ++i) a.v.emplace_back(argv[i]);
  if (a.more() && a.v[0] == "gen") {
    ++a.i;
    return cmd_gen(a);
  }
  if (a.more() && a.v[0] == "difftest") return difftest::difftest_main(a.v, 1);
  if (a.more() && a.v[0] == "profile") return profile::profile_main(a.v, 1);
  if (a.more() && a.v[0] == "paper") {
    ++a.i;
    return run_paper(a.v, a.i);
  }
  if (a.more() && a.v[0] == "sweep") return run_sweep(a.v, 1);

  SessionOptions opt;
  std::vector<std::pair<std::string, std::string>> scripts;  // (name, text or path), name "" = file
  std::vector<PartsSpec> parts;
  std::vector<WisconsinSpec> wisconsin;
  std::string backends = "interp";
  bool format_given = false;
  try {
    while (a.more()) {
      std::string arg = a.v[a.i++];
      std::string name = arg.substr(0, arg.find('='));
      if (arg == "-h" || arg == "--help") {
        std::cout << kUsage;
        return 0;
      } else if (arg == "--version") {
        std::cout << "quelkit 0.1.0\n";
        return 0;
      } else if (arg == "-e") {
        if (!a.more()) usage_error("-e needs the text of a script");
        scripts.emplace_back("<-e " + std::to_string(scripts.size() + 1) + ">", a.v[a.i++]);
      } else if (arg == "-b" || name == "--backend") {
        if (arg == "-b") {
          if (!a.more()) usage_error("-b needs a back-end list");
          backends = a.v[a.i++];
        } else {
          backends = a.take_value(name, arg);
        }
      } else if (name == "--parts") {
        parts.push_back(parse_parts(a.take_value(name, arg)));
      } else if (name == "--wisconsin") {
        std::string err;
        if (!parse_wisconsin_spec(a.take_value(name, arg), &wisconsin.emplace_back(), &err)) usage_error(err);
      } else if (name == "--format") {
        std::string f = a.take_value(name, arg);
        format_given = true;
        if (f == "table") opt.format = OutFormat::Table;
        else if (f == "csv") opt.format = OutFormat::Csv;
        else if (f == "none") opt.format = OutFormat::None;
        else usage_error("--format must be table, csv or none");
      } else if (arg == "--stats") {
        opt.stats = true;
      } else if (arg == "--stats=json") {
        opt.stats = opt.stats_json = true;
      } else if (name == "--stats") {
        usage_error("--stats takes no value or =json");
      } else if (name == "--repeat") {
        opt.repeat = int(parse_count(a.take_value(name, arg), "--repeat"));
        if (opt.repeat < 1) usage_error("--repeat must be at least 1");
      } else if (name == "--sink") {
        std::string v = a.take_value(name, arg);
        if (v == "rows") opt.runner.count_sink = false;
        else if (v == "count") opt.runner.count_sink = true;
        else usage_error("--sink must be rows or count");
      } else if (name == "--dump") {
        std::stringstream ss(a.take_value(name, arg));
        std::string f;
        while (std::getline(ss, f, ',')) opt.dumps.insert(f);
      } else if (name == "--page-size") {
        uint64_t ps = parse_count(a.take_value(name, arg), "--page-size");
        if (ps < 64 || ps > 65536) usage_error("--page-size must be between 64 and 65536");
        opt.page_size = uint32_t(ps);
      } else if (name == "--memory-budget") {
        uint64_t bytes = 0;
        std::string err;
        if (!parse_memory_size(a.take_value(name, arg), &bytes, &err)) usage_error("--memory-budget: " + err);
        memory_budget().set_limit(bytes);
      } else if (arg == "--no-plan-cache") {
        opt.runner.plan_cache = false;
      } else if (name == "--plan-cache-size") {
        opt.plan_cache_capacity = parse_count(a.take_value(name, arg), "--plan-cache-size");
      } else if (name == "--jit-opt") {
        uint64_t o = parse_count(a.take_value(name, arg), "--jit-opt");
        if (o > 3) usage_error("--jit-opt must be 0, 1, 2 or 3");
        opt.prepare.jit_opt = int(o);
      } else if (arg == "--jit-checks") {
        opt.prepare.jit_checks = true;
      } else if (name == "--jit-cpu") {
        std::string cpu = a.take_value(name, arg);
        if (cpu != "generic" && cpu != "native") usage_error("--jit-cpu must be generic or native");
        opt.prepare.jit_native_cpu = cpu == "native";
      } else if (name == "--vector-batch") {
        uint64_t n = parse_count(a.take_value(name, arg), "--vector-batch");
        if (n < 1 || n > 65535) usage_error("--vector-batch must be between 1 and 65535");
        opt.prepare.vector_batch = uint32_t(n);
      } else if (name == "--selection") {
        if (!harness::parse_selection(a.take_value(name, arg), &opt.prepare.selection))
          usage_error("--selection must be branch, nobranch or auto");
      } else if (arg == "-") {
        scripts.emplace_back("-", "");
      } else if (!arg.empty() && arg[0] == '-') {
        usage_error("unknown option " + arg);
      } else {
        scripts.emplace_back("", arg);
      }
    }
    opt.backends = parse_backend_list(backends);
  } catch (QuelError& e) {
    usage_error(e.err.message);
  }
  // Every dump form must be known to the front end or to a selected back end.
  for (const auto& d : opt.dumps) {
    bool known = d == "ast" || d == "ir" || d == "folded";
    for (const auto& [b, m] : opt.backends) {
      const BackendSpec* s = find_backend(b);
      for (const auto& f : s->dump_forms) known = known || f == d;
    }
    if (!known) usage_error("--dump=" + d + ": no selected back end prints that form");
  }

  // --stats=json on its own: standard output is a JSON Lines stream.
  if (opt.stats_json && !format_given) opt.format = OutFormat::None;
  // PARTS must fit its pages and the memory budget: said now, as usage errors.
  for (const auto& p : parts) {
    const uint32_t len = parts_schema(p.rows, p.wide).tuple_len;
    if (tuples_per_page(opt.page_size, len) == 0)
      usage_error("--page-size " + std::to_string(opt.page_size) + " is too small for --parts " +
                  std::to_string(p.rows) + (p.s == Structure::Heap ? "" : std::string(":") + structure_name(p.s)) +
                  (p.wide ? ":wide" : "") + ": its " + std::to_string(len) + "-byte tuples need pages of at least " +
                  std::to_string(kPageHeader + kLineSize + len) + " bytes");
    const uint64_t need = parts_memory_needed(p, opt.page_size);
    if (need > memory_budget().limit())
      usage_error("--parts " + std::to_string(p.rows) + " needs about " + mib(need) + ", more than the memory budget of " +
                  mib(memory_budget().limit()) + " (--memory-budget)");
  }

  Session session(opt, std::cout, std::cerr);
  try {
    for (const auto& p : parts) {
      if (session.catalog().find("parts")) session.catalog().remove("parts");
      session.catalog().add(make_parts(p.rows, p.wide, p.s, opt.page_size));
    }
    for (const auto& w : wisconsin)
      for (auto& rel : make_wisconsin(w, opt.page_size)) {
        if (session.catalog().find(rel->name())) session.catalog().remove(rel->name());
        session.catalog().add(std::move(rel));
      }
  } catch (QuelError& e) {
    usage_error(e.err.message);
  }
  // From here on Ctrl-C cancels the running statement instead of ending the
  // program (SA_RESTART: reads and writes in progress go on).
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  // A blocked SIGINT is inherited across exec (some CI runners and job
  // launchers start programs so); blocked, Ctrl-C would never reach the
  // handler and nothing could be cancelled.
  sigset_t intr;
  sigemptyset(&intr);
  sigaddset(&intr, SIGINT);
  sigprocmask(SIG_UNBLOCK, &intr, nullptr);

  if (scripts.empty()) return isatty(STDIN_FILENO) ? cli::monitor_terminal(session) : cli::monitor_stream(session, std::cin);
  bool ok = true;
  for (const auto& [name, what] : scripts) {
    if (name == "-") {
      int st = cli::monitor_stream(session, std::cin);
      if (st == 130) return 130;
      ok = st == 0 && ok;
      continue;
    }
    std::string text, srcname = name;
    if (name.empty()) {
      std::string err;
      if (!cli::read_script(what, &text, &err)) {
        std::cerr << what << ": error: " << err << "\n";
        ok = false;
        continue;
      }
      srcname = what;
    } else {
      text = what;
    }
    ok = session.run(std::make_shared<Source>(srcname, text)) && ok;
    if (cancel_requested()) return 130;  // Ctrl-C: the rest of the scripts do not run
  }
  return ok ? 0 : 1;
}
