// `quelkit profile` (profile/profile.h): the command's entry and its options.
// Two processes: this one parses the options, starts a child per back end
// under perf or valgrind (profile/launch.h), and prints what they measured
// (profile/print.h); the child is this binary again, `profile --child=...`
// (profile/child.h). The pieces in between live in profile/.
#include "profile/profile.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <iostream>
#include <sstream>

#include "backends/backends.h"
#include "cli/command.h"
#include "profile/child.h"
#include "profile/launch.h"
#include "profile/options.h"
#include "profile/print.h"
#include "bench/measure/paper_queries.h"
#include "frontend/source.h"

namespace quelkit::profile {

using namespace harness;

std::vector<std::pair<std::string, std::string>> backend_list(const Options& o) {
  if (!o.child_backend.empty()) return parse_backend_list(o.child_backend);
  if (!o.backends.empty()) return parse_backend_list(o.backends);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& b : registered_backends()) all.emplace_back(b.name, b.modes.front().name);
  return all;
}

namespace {

const char* kAbout = R"(Table-3-style profiles of each back end: % time (or instructions) per routine, what it does,
and the split by subsystem; the 1976 interpreter's beside the paper's Table 3. Give FILE.quel ...,
-e TEXT or --query LETTERS.
Sampling needs perf (Debian linux-perf; ./kit profile installs it); when perf cannot sample
here, the profile says so and counts instructions with callgrind (valgrind) instead.)";

// What the options leave to check once parsed: the script against --query,
// and --query's letters made into a script.
void finish_options(const CLI::App& app, Options& o, const std::vector<std::string>& texts,
                    const std::vector<std::string>& files, const std::vector<std::string>& parts) {
  for (const auto& s : parts) {
    std::string err;
    if (!parse_parts_spec(s, &o.parts.emplace_back(), &err)) cli::usage_error(err);
  }
  // Sampling's options with --instructions: nothing samples (DESIGN: options
  // that contradict each other are errors). --reps and --no-prepare are not
  // refused without it: callgrind also counts when perf cannot sample.
  if (o.instructions) {
    for (const char* opt : {"--seconds", "--freq", "--perf"})
      if (app.count(opt))
        cli::usage_error(std::string(opt) + " sets how perf samples; --instructions counts with callgrind instead");
    // The sampled repetitions' options: the counted evaluations are warm
    // (prepare counted apart) and format nothing.
    for (const char* opt : {"--cold", "--format"})
      if (app.count(opt))
        cli::usage_error(std::string(opt) +
                         " shapes the sampled repetitions; --instructions counts with callgrind instead (warm, "
                         "preparation counted apart, rows not formatted)");
  }
  o.scripts = cli::scripts_in_order(app, texts, files);
  if (!o.queries.empty()) {
    if (!o.scripts.empty()) cli::usage_error("give a script or --query, not both");
    std::string text = "range of p is parts range of q is parts\n";
    int keyed = -1;
    for (char c : o.queries) {
      const PaperQuerySpec* q = nullptr;
      for (const auto& pq : paper_queries())
        if (pq.id[0] == c) q = &pq;
      if (!q) cli::usage_error(std::string("--query: no paper query '") + c + "' (a-i)");
      if (keyed >= 0 && keyed != int(q->keyed))
        cli::usage_error("--query: (a)-(d) run on a heap, (e)-(i) on the keyed relation: profile them separately");
      keyed = int(q->keyed);
      text += std::string(q->text) + "\n";
    }
    o.scripts.emplace_back("<paper " + o.queries + ">", text);
    if (o.parts.empty()) o.parts.push_back(PartsSpec{3360, keyed ? Structure::Isam : Structure::Heap, keyed == 1});
  }
  if (o.scripts.empty() && o.child.empty()) cli::usage_error("nothing to profile: give FILE.quel, -e TEXT or --query");
}

int run_profile(const std::vector<std::string>& args, const Options& o);

}  // namespace

cli::Run define_profile(CLI::App& app, const std::vector<std::string>& args) {
  auto o = std::make_shared<Options>();
  auto texts = std::make_shared<std::vector<std::string>>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto parts = std::make_shared<std::vector<std::string>>();
  auto format = std::make_shared<std::string>("table");
  app.description(kAbout);
  cli::add_script_options(app, texts.get(), files.get());
  app.add_option("-b,--backend", o->backends,
                 "back ends (name[:mode], comma separated, or all); default: every built back end in its default mode")
      ->check(cli::backend_list())
      ->type_name("LIST");
  app.add_option("--parts", *parts, "create relation parts with N generated tuples first")
      ->type_name("N[:heap|:isam|:hash][:wide]")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--query,--queries", o->queries,
                 "profile the paper's queries (a-i, as ab or a,b) instead of a script (default relation: 3360 tuples, "
                 "heap or the keyed setup)")
      ->transform(cli::query_letters())
      ->type_name("LETTERS");
  app.add_option("--seconds", o->seconds, "sampling time per back end (default 2)")
      ->check(cli::real_above(0))
      ->type_name("S");
  app.add_option("--freq", o->freq, "cpu-clock sampling frequency (default 4000)")
      ->check(cli::whole(1, 1000000))
      ->type_name("HZ");
  app.add_flag("--cold", o->cold, "clear the plan cache before every repetition (profile compiling too)");
  app.add_option("--format", *format, "how the sampled repetitions format their rows (default table)")
      ->check(cli::one_of({"table", "csv", "none"}))
      ->type_name("table|csv|none");
  app.add_flag("--instructions", o->instructions,
               "count instructions with callgrind instead of sampling: run phase only (preparation excluded, "
               "counted apart), --reps evaluations per statement; the same counts on every run of the same binary");
  app.add_option("--reps", o->reps,
                 "evaluations per statement for --instructions, and for callgrind when perf cannot sample (default 3)")
      ->check(cli::whole(1, 1000000))
      ->type_name("K");
  app.add_flag("--no-prepare", o->no_prepare,
               "count instructions (--instructions, or callgrind when perf cannot sample) without a cold preparation "
               "(faster with JITs)");
  app.add_option("--top", o->top, "routines listed per back end (default 15; 0: the split by subsystem alone)")
      ->check(cli::whole(0, 1000000))
      ->type_name("N");
  app.add_flag("--json", o->json, "one JSON document instead of tables");
  app.add_option("--page-size", o->page_size, "page size of new relations (default 1024)")
      ->check(cli::whole(64, kMaxPageSize))
      ->type_name("BYTES");
  cli::add_code_options(app, &o->code);
  app.add_option("--keep", o->keep,
                 "keep the raw perf.data / callgrind files in DIR (checked before any work), with perf's JIT symbol "
                 "maps perf-PID.map (copy one to /tmp for perf report to name generated code)")
      ->check(cli::a_name("a directory"))
      ->type_name("DIR");
  app.add_option("--perf", o->perf, "the perf to sample with (default: perf on PATH)")
      ->check(cli::a_name("a program"))
      ->type_name("PROGRAM");
  // The child's side (profile/child.h): this binary started again by the
  // parent, not for users; hidden from --help.
  app.add_option("--child", o->child)->group("")->check(cli::one_of({"perf", "callgrind"}));
  app.add_option("--child-dir", o->child_dir)->group("");
  app.add_option("--child-backend", o->child_backend)->group("");
  app.add_option("--ctl", o->ctl)->group("");
  app.add_option("--ack", o->ack)->group("");
  app.add_option("--stdin-script", o->stdin_script)->group("");
  return [&app, args, o, texts, files, parts, format] {
    o->format = *format == "csv" ? OutFormat::Csv : *format == "none" ? OutFormat::None : OutFormat::Table;
    finish_options(app, *o, *texts, *files, *parts);
    // The parent checks the options once; a child gets them all with its
    // one back end, which need not read each.
    if (o->child.empty()) cli::refuse_unread_backend_options(app, backend_list(*o));
    return run_profile(args, *o);
  };
}

namespace {

int run_profile(const std::vector<std::string>& words, const Options& o) {
  const size_t i = 0;  // args are the words after `profile`, as the children get them
  if (o.child == "perf") return child_perf(o);
  if (o.child == "callgrind") return child_callgrind(o);

  std::vector<std::pair<std::string, std::string>> labels = backend_list(o);  // validated while parsing
  // A script that cannot be read is an I/O error (exit 1), worded as the
  // session words it; found here, before any child or tool starts.
  for (const auto& [name, what] : o.scripts)
    if (name.empty() && access(what.c_str(), R_OK) != 0) {
      std::cerr << what << ": error: cannot open: " << std::strerror(errno) << "\n";
      return 1;
    }
  if (!o.keep.empty()) cli::require_output_dir("--keep", o.keep);

  TempDir dir;
  if (dir.path.empty()) {
    std::cerr << "quelkit profile: error: cannot make a temporary directory in $TMPDIR (or /tmp)\n";
    return 1;
  }
  // The script `-` is read here, once: the children's standard input is
  // /dev/null, so they read it from a file in the temporary directory.
  std::vector<std::string> args = words;
  for (const auto& [name, what] : o.scripts) {
    if (name != "-") continue;
    // Read as a script is (frontend/source.h): a line or a text past the
    // limits is refused here, before a child profiles part of it.
    std::string text;
    std::optional<Source::Cut> cut;
    const bool read = read_text(std::cin, &text, &cut);
    if (read && cut) {
      std::cerr << "quelkit profile: error: standard input: " << cut->message << "\n";
      return 1;
    }
    const std::string path = dir.path + "/stdin.quel";
    std::ofstream f(path, std::ios::binary);
    if (!read || !(f << text) || !f.flush()) {
      std::cerr << "quelkit profile: error: cannot read standard input\n";
      return 1;
    }
    args.push_back("--stdin-script=" + path);
    break;
  }
  catch_stop_signals();
  // Returned through here, dir's destructor removes the directory.
  auto stopped = [] {
    std::cerr << "quelkit profile: cancelled\n";
    return 128 + stop_signal();
  };

  std::vector<BackendProfile> profiles;
  std::string note, method = o.instructions ? "callgrind" : "perf";
  if (!o.instructions) {
    std::string why;
    // A path given (--perf /opt/perf) is not a package to install.
    if (!on_path(o.perf))
      why = o.perf.find('/') != std::string::npos
                ? o.perf + " is not an executable file (--perf)"
                : o.perf + " is not installed (Debian package linux-perf; ./kit profile installs it)";
    for (const auto& [name, mode] : labels) {
      if (!why.empty()) break;
      BackendProfile p;
      std::string err;
      int r = run_perf(args, i, dir.path, name + ":" + mode, o, p, &err);
      if (stop_signal()) return stopped();
      if (r < 0) {
        const bool nothing = err.find(kNothingToProfile) != std::string::npos;
        std::cerr << err << (nothing ? "" : "quelkit profile: the script failed under " + name + ":" + mode + "\n");
        return nothing ? 2 : 1;
      }
      if (r == 0) {
        why = err;
        profiles.clear();
        break;
      }
      profiles.push_back(std::move(p));
      if (!o.json) std::cerr << "quelkit profile: sampled " << name << ":" << mode << "\n";
    }
    if (!why.empty()) {
      note = "sampling is not available here (" + why +
             "); falling back to callgrind: shares below are of instructions, not time";
      std::cerr << "quelkit profile: " << note << "\n";
      method = "callgrind";
    }
  }
  if (method == "callgrind") {
    std::string err;
    std::vector<std::string> names;
    for (const auto& [name, mode] : labels) names.push_back(name + ":" + mode);
    const bool counted = run_callgrind(args, i, dir.path, names, profiles, &err);
    if (stop_signal()) return stopped();
    if (!counted) {
      const bool nothing = err.find(kNothingToProfile) != std::string::npos;
      std::cerr << err << (err.empty() || err.back() == '\n' ? "" : "\n")
                << (nothing ? "" : "quelkit profile: counting instructions failed\n");
      return nothing ? 2 : 1;
    }
  }
  // The raw files: the regular ones (perf's control FIFOs are not files to keep).
  std::string kept_error;
  if (!o.keep.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(o.keep, ec);
    for (fs::directory_iterator it(dir.path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file())
        fs::copy_file(it->path(), fs::path(o.keep) / it->path().filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) kept_error = "could not copy the raw files to " + o.keep + ": " + ec.message();
  }

  if (o.json) print_json(std::cout, profiles, o, method, note);
  else print_report(std::cout, profiles, o, method, note);
  if (!kept_error.empty()) {
    std::cerr << "quelkit profile: error: " << kept_error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

}  // namespace quelkit::profile
