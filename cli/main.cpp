// The `quelkit` command: runs QUEL scripts or the terminal monitor on the
// selected back ends (the session command, whose options are declared here),
// and dispatches to the subcommands of kSubcommands below (gen, paper, wisconsin,
// short, sweep, difftest, profile), each declared in its own file and parsed with CLI11 by
// cli/command.h's one dispatcher. Exit status: 0 ok, 1 a statement
// failed (or a script could not be read) or back ends disagreed, 2 bad
// usage, 130 a script cancelled with Ctrl-C; an interactive monitor exits 0
// when the user quits. Results go to standard output; messages, notices and
// errors to standard error.
#include <algorithm>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backends.h"
#include "cli/command.h"
#include "difftest/difftest.h"
#include "cli/gen.h"
#include "cli/monitor.h"
#include "profile/profile.h"
#include "bench/report/report.h"
#include "bench/report/short_report.h"
#include "bench/report/sweep.h"
#include "bench/report/wisconsin_report.h"
#include "storage/budget.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"
#include "engine/version.h"
#include "bench/workloads/wisconsin.h"

using namespace quelkit;
using namespace quelkit::harness;

namespace {

const char* kAbout = R"(quelkit: QUEL on several evaluators that share one tuple-scan harness.
Runs the scripts (and -e texts) in order on the selected back ends. With no script: the terminal
monitor on standard input: \g go (anywhere on a line), \p print the buffer, \r reset it, \e edit it
in $VISUAL or $EDITOR, \i FILE include a file, \q quit, \? list these; Ctrl-C cancels the running statement.
Exit status: 0 ok, 1 a statement failed or back ends disagreed, 2 bad usage, 130 cancelled; statements
piped in are a script, which Ctrl-C ends, while the monitor at a terminal goes on and exits 0.)";

// The subcommands, each declared in its own file. A new one is a row here.
const cli::Subcommand kSubcommands[] = {
    {"gen", "generated data as CSV: gen parts --rows N [--wide], gen wisconsin --rows N [--seed S]",
     cli::define_gen},
    {"paper", "the paper's benchmark on every back end: the report", define_paper},
    {"wisconsin", "the Wisconsin benchmark as the POSTGRES study ran it, on every back end and SQLite",
     define_wisconsin},
    {"short", "short-statement workloads (Distributed INGRES's replaces, TP1) on every back end and SQLite",
     define_short},
    {"sweep", "ns per tuple against selectivity for every page kernel under each --selection", define_sweep},
    {"difftest", "random qualifications on every back end, shrunk reproducers; or corpus files",
     difftest::define_difftest},
    {"profile", "hot routines of each back end, JIT code included, beside the paper's Table 3",
     profile::define_profile},
};

extern "C" void on_sigint(int) { request_cancel(); }
// A write to a pipe whose reader has gone fails with EPIPE instead of ending
// the program (exit 141): lost output is exit 1, said as such (main). A
// handler, not SIG_IGN, so that programs started from here (libgccjit's
// driver, perf) get the default again at exec.
extern "C" void on_sigpipe(int) {}


// The session command's options, as parsed.
struct MainOptions {
  SessionOptions opt;
  std::vector<std::string> texts, files;
  std::vector<std::string> parts_specs, wisconsin_specs, dumps;
  std::string backends = "interp", format, stats, sink, memory_budget;
  cli::CodeOptions code;  // --jit-opt, --jit-checks, --jit-cpu, --vector-batch, --selection
  uint32_t page_size = kDefaultPageSize;
  bool no_plan_cache = false, no_statement_cache = false, no_reformat = false;
};

// Runs the scripts (or the monitor) once the options have parsed.
// Statements piped in (or `-`): standard input that cannot be read, a
// directory or a closed descriptor, is an error, exit 1, not an empty script.
int read_standard_input(Session& session) {
  struct stat st {};
  const bool unreadable = ::fstat(STDIN_FILENO, &st) != 0;
  if (unreadable || S_ISDIR(st.st_mode)) {
    std::cerr << "quelkit: error: cannot read standard input: "
              << (unreadable ? std::strerror(errno) : "it is a directory") << "\n";
    return 1;
  }
  const int rc = cli::monitor_stream(session, std::cin);
  if (std::ferror(stdin)) {
    std::cerr << "quelkit: error: cannot read standard input\n";
    return rc == 130 ? rc : 1;
  }
  return rc;
}

// --plan-cache-size beside --no-plan-cache contradicts it (the back-end
// options no selected back end reads are refused as in every command).
void check_session_options(const CLI::App& app, const MainOptions& m,
                           const std::vector<std::pair<std::string, std::string>>& backends) {
  cli::refuse_unread_backend_options(app, backends);
  if (m.no_plan_cache && app.count("--plan-cache-size"))
    cli::usage_error("--plan-cache-size and --no-plan-cache contradict each other (no cache keeps no plans)");
}

int run_session(const CLI::App& app, MainOptions& m) {
  SessionOptions& opt = m.opt;
  opt.backends = parse_backend_list(m.backends);  // validated while parsing
  check_session_options(app, m, opt.backends);
  opt.page_size = m.page_size;
  opt.runner.plan_cache = !m.no_plan_cache;
  opt.statement_cache = !m.no_statement_cache;
  opt.runner.reformat = !m.no_reformat;
  if (m.format == "table") opt.format = OutFormat::Table;
  else if (m.format == "csv") opt.format = OutFormat::Csv;
  else if (m.format == "json") opt.format = OutFormat::Json;
  else if (m.format == "none") opt.format = OutFormat::None;
  opt.separate_results = true;  // several results on one stream: read apart
  opt.stats = !m.stats.empty();
  opt.stats_json = m.stats == "json";
  opt.runner.count_sink = m.sink == "count";
  opt.prepare = m.code.prepare();
  cli::apply_memory_budget(m.memory_budget);
  std::vector<PartsSpec> parts;
  for (const auto& s : m.parts_specs) {
    std::string err;
    if (!parse_parts_spec(s, &parts.emplace_back(), &err)) cli::usage_error(err);
  }
  std::vector<WisconsinSpec> wisconsin;
  for (const auto& s : m.wisconsin_specs) {
    std::string err;
    if (!parse_wisconsin_spec(s, &wisconsin.emplace_back(), &err)) cli::usage_error(err);
  }
  // Every dump form must be known to the front end or to a selected back end;
  // a form no back end has is named as unknown, with the forms there are.
  std::vector<std::string> dumps;  // each --dump's comma list, in order (empty elements refused above)
  for (const auto& list : m.dumps)
    for (const auto& d : list.empty() ? std::vector<std::string>{""} : cli::split(list)) dumps.push_back(d);
  for (const auto& d : dumps) {
    std::vector<std::string> forms = {"ast", "ir", "folded", "decomp"};
    bool selected = std::find(forms.begin(), forms.end(), d) != forms.end();
    for (const auto& [b, mode] : opt.backends) {
      const BackendSpec* s = find_backend(b);
      selected = selected || s->dumps(d);
    }
    if (!selected) {
      std::string owners;
      int owner_count = 0;
      for (const BackendSpec& s : registered_backends()) {
        for (const auto& f : s.dump_forms)
          if (std::find(forms.begin(), forms.end(), f.name) == forms.end()) forms.push_back(f.name);
        if (s.dumps(d))
          owners += (owner_count++ ? ", " : "") + s.name;
      }
      std::string all;
      for (const auto& f : forms) all += (all.empty() ? "" : " ") + f;
      if (d.empty()) cli::usage_error("--dump needs a form (" + all + ")");
      cli::usage_error(owners.empty() ? "--dump=" + d + ": unknown form (" + all + ")"
                                      : "--dump=" + d + ": no selected back end prints that form (" + owners +
                                            (owner_count > 1 ? " do)" : " does)"));
    }
    opt.dumps.insert(d);
  }

  // --stats=json on its own: standard output is a JSON Lines stream.
  if (opt.stats_json && m.format.empty()) opt.format = OutFormat::None;
  // PARTS must fit its pages and the memory budget: said now, as usage errors.
  for (const auto& p : parts) {
    const uint32_t len = parts_schema(p.rows, p.wide).tuple_len;
    if (tuples_per_page(opt.page_size, len) == 0)
      cli::usage_error("--page-size " + std::to_string(opt.page_size) + " is too small for --parts " +
                       std::to_string(p.rows) + (p.s == Structure::Heap ? "" : std::string(":") + structure_name(p.s)) +
                       (p.wide ? ":wide" : "") + ": its " + std::to_string(len) +
                       "-byte tuples need pages of at least " + std::to_string(kPageHeader + kLineSize + len) +
                       " bytes");
    cli::require_fits("--parts", p.rows, parts_memory_needed(p, opt.page_size));
  }

  // Each relation made by one option: a second one of a name (two --parts,
  // or --wisconsin parts=N beside --parts) is a mistake, not a replacement.
  {
    std::map<std::string, std::string> made;  // relation -> the option that makes it
    auto claim = [&](const std::string& rel, const std::string& option) {
      auto [it, fresh] = made.emplace(rel, option);
      if (!fresh) cli::usage_error("relation '" + rel + "' is made twice: by " + it->second + " and by " + option);
    };
    for (const auto& s : m.parts_specs) claim("parts", "--parts " + s);
    for (size_t i = 0; i < wisconsin.size(); ++i)
      for (const auto& r : wisconsin[i].relations) claim(r.name, "--wisconsin " + m.wisconsin_specs[i]);
  }
  Session session(opt, std::cout, std::cerr);
  cli::allow_script_includes(session);
  try {
    for (const auto& p : parts) session.catalog().add(make_parts(p.rows, p.wide, p.s, opt.page_size));
    for (const auto& w : wisconsin)
      for (auto& rel : make_wisconsin(w, opt.page_size)) session.catalog().add(std::move(rel));
  } catch (QuelError& e) {
    cli::usage_error(e.err.message);
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

  // The input has ended, every way it can: a transaction left open is
  // aborted, which fails a script (a session at a terminal ends with 0).
  auto ended = [&session](int rc) { return session.end_input() || rc != 0 ? rc : 1; };
  const auto scripts = cli::scripts_in_order(app, m.texts, m.files);
  if (scripts.empty()) {
    if (!isatty(STDIN_FILENO)) return ended(read_standard_input(session));
    const int rc = cli::monitor_terminal(session);
    session.end_input();
    return rc;
  }
  bool ok = true;
  for (const auto& [name, what] : scripts) {
    if (name == "-") {
      int st = read_standard_input(session);
      if (st == 130) return ended(130);
      ok = st == 0 && ok;
      continue;
    }
    std::string text, srcname = name;
    std::optional<Source::Cut> cut;  // a line too long to read ends the text there (frontend/source.h)
    if (name.empty()) {
      std::string err;
      if (!cli::read_script(what, &text, &err, &cut)) {
        std::cerr << what << ": error: " << err << "\n";
        ok = false;
        continue;
      }
      srcname = what;
    } else {
      text = what;
    }
    ok = session.run(std::make_shared<Source>(srcname, text, std::vector<Source::Origin>{}, std::move(cut))) && ok;
    if (cancel_requested()) return ended(130);  // Ctrl-C: the rest of the scripts do not run
  }
  return ended(ok ? 0 : 1);
}

cli::Run define_session(CLI::App& app, const std::vector<std::string>&) {
  auto m = std::make_shared<MainOptions>();
  app.description(kAbout);
  app.set_version_flag("--version", std::string("quelkit ") + harness::kit_version() + " (" + harness::kit_commit() + ")");
  cli::add_script_options(app, &m->texts, &m->files);
  app.add_option("-b,--backend", m->backends,
                 "back ends (and modes) to run each statement on; with several, results must agree: the first "
                 "difference is printed, exit 1 (default interp)")
      ->check(cli::backend_list())
      ->type_name("NAME[:MODE],...|all");
  app.add_option("--parts", m->parts_specs,
                 "create relation parts with N generated tuples first (isam/hash: the paper's keyed setup)")
      ->type_name("N[:heap|:isam|:hash][:wide]")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--wisconsin", m->wisconsin_specs,
                 "create Wisconsin relations first: the study's onek, onek1, onek2 (1,000 tuples), tenk1, tenk2 "
                 "(10,000), or one relation NAME (default wisc) of N; isam/hash: keyed on unique2")
      ->type_name("study|[NAME=]N[:heap|:isam|:hash][:seed=S]")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--format", m->format,
                 "how results are printed: table; csv (a blank line between results, each with its header) or json "
                 "(JSON Lines, an object a row: stmt and the columns), standard output holding results alone, "
                 "--stats, --dump and messages on standard error; none: checksum only")
      ->check(cli::one_of({"table", "csv", "json", "none"}))
      ->type_name("table|csv|json|none");
  app.add_flag("--stats", m->stats,
               "(or --stats=json) per statement per back end: access path, rows, prepares, cache hits, prepare/run times, "
               "checksum (docs/stats.md); --stats=json without --format (or with none): standard output is its JSON Lines "
               "only, an object per statement (per back end that ran it)")
      ->check(CLI::Validator(
          [](std::string& v) { return v == "true" || v == "json" ? std::string() : "takes no value, or =json"; }, ""));
  app.add_option("--repeat", m->opt.repeat, "run each retrieve K times; run_ns is the median")
      ->check(cli::whole(1, INT32_MAX))
      ->type_name("K");
  app.add_option("--sink", m->sink,
                 "rows (default): results as the statement gives them; count: a measurement of the qualification "
                 "alone, targets not evaluated (nor their errors raised), a retrieve's count only")
      ->check(cli::one_of({"rows", "count"}))
      ->type_name("rows|count");
  app.add_option("--dump", m->dumps,
                 "show a form of each statement: ast ir folded, decomp (the reformat step's decisions and costs), and each selected back end's own (postfix: interp; "
                 "threaded, vector, llvm, gimple, stencil)")
      ->type_name("FORM[,FORM...]")
      ->check(CLI::Validator([](std::string& s) { return cli::empty_element(s); }, ""))
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--page-size", m->page_size, "page size of new relations (default 1024)")
      ->check(cli::whole(64, kMaxPageSize))
      ->type_name("BYTES");
  cli::add_memory_budget_option(app, &m->memory_budget);
  app.add_flag("--no-plan-cache", m->no_plan_cache,
               "keep no plan from one statement to the next (each statement prepares its own, once)");
  app.add_flag("--no-statement-cache", m->no_statement_cache,
               "lex, parse and bind every statement's text (by default a text that differs from an earlier one "
               "only in its literals reuses its parse and binding; --no-plan-cache turns this off too)");
  app.add_flag("--no-reformat", m->no_reformat,
               "decompose joins by tuple substitution alone: never project and hash a relation on its joining "
               "domain first (INGRES's reformat step; the 1981 figures' plans)");
  app.add_option("--user", m->opt.user,
                 "the user the constant usercode names (default $QUELKIT_USER, else $USER, else ingres)")
      ->type_name("NAME");
  app.add_option("--dba", m->opt.dba,
                 "the owner of the session's relations (default: the user); another user reaches them only "
                 "through define permit")
      ->type_name("NAME");
  app.add_option("--terminal", m->opt.terminal,
                 "the terminal permits' `at ttyx` sees (default: stdin's terminal name, else none)")
      ->type_name("NAME");
  app.add_option("--plan-cache-size", m->opt.plan_cache_capacity,
                 "plans kept per back end before eviction (default 1024; 0: no limit)")
      ->check(cli::whole(0))
      ->type_name("N");
  cli::add_code_options(app, &m->code);
  return [&app, m] { return run_session(app, *m); };
}

}  // namespace

int main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) fails with EFBIG, an I/O
  // error of the statement, instead of SIGXFSZ ending the program and its
  // session; the assembler and linker libgccjit starts inherit this.
  signal(SIGXFSZ, SIG_IGN);
  signal(SIGPIPE, on_sigpipe);
  register_all_backends();  // before parsing: -b is checked against them
  const cli::Subcommand session{"", "", define_session};
  const int rc = cli::run_command(argc, argv, session, kSubcommands);
  // Output lost to a full disk or a closed standard output is a failure
  // (gen's CSV, a script's rows, --stats=json), not exit 0; so is a pipe
  // whose reader closed it (`| head -c 10`: EPIPE, on_sigpipe).
  // errno says why only when these last flushes failed: a write that failed
  // earlier left it long overwritten ("No such file or directory" was seen).
  errno = 0;
  std::cout.flush();
  const bool cout_failed = !std::cout.good();
  const bool flush_failed = std::fflush(stdout) != 0;  // flushed whatever cout says
  const bool lost = cout_failed || flush_failed || std::ferror(stdout) != 0;
  const int why = errno;
  if (lost && rc == 0) {
    std::cerr << "quelkit: error: writing standard output: "
              << (why ? std::strerror(why) : "some of it could not be written") << "\n";
    return 1;
  }
  return rc;
}
