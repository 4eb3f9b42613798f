// `quelkit profile` (cli/profile.h): the command's entry and its options.
// Two processes: this one parses the options, starts a child per back end
// under perf or valgrind (cli/profile/launch.h), and prints what they measured
// (cli/profile/print.h); the child is this binary again, `profile --child=...`
// (cli/profile/child.h). The pieces in between live in cli/profile/.
#include "cli/profile.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "bench/measure/backends.h"
#include "cli/profile/child.h"
#include "cli/profile/launch.h"
#include "cli/profile/options.h"
#include "cli/profile/print.h"
#include "bench/measure/paper_queries.h"

namespace quelkit::profile {

using namespace harness;

std::vector<std::pair<std::string, std::string>> backend_list(const Options& o) {
  if (!o.child_backend.empty()) return parse_backend_list(o.child_backend);
  if (!o.backends.empty()) return parse_backend_list(o.backends);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& b : registered_backends()) all.emplace_back(b.name, b.modes.front());
  return all;
}

namespace {

const char* kHelp = R"(usage: quelkit profile [options] FILE.quel ... | -e TEXT | --query LETTERS
Table-3-style profiles of each back end: % time (or instructions) per routine, what it does,
and the split by subsystem; the 1976 interpreter's beside the paper's Table 3.
  -b, --backend LIST      back ends (name[:mode], comma separated, or all);
                          default: every built back end in its default mode
  --parts N[:heap|:isam|:hash][:wide]
                          create relation parts with N generated tuples first
  --query LETTERS         profile the paper's queries (a-i) instead of a script
                          (default relation: 3360 tuples, heap or the keyed setup)
  -e TEXT                 the script as text (may be repeated)
  --seconds S             sampling time per back end (default 2)
  --freq HZ               cpu-clock sampling frequency (default 4000)
  --cold                  clear the plan cache before every repetition (profile compiling too)
  --format table|csv|none how the sampled repetitions format their rows (default table)
  --instructions          count instructions with callgrind instead of sampling: run phase
                          only (preparation excluded, counted apart), --reps evaluations
                          per statement; the same counts on every run of the same binary
  --reps K                evaluations per statement for --instructions (default 3)
  --no-prepare            --instructions without counting a cold preparation (faster with JITs)
  --top N                 routines listed per back end (default 15)
  --json                  one JSON document instead of tables
  --page-size BYTES, --jit-opt 0-3
  --keep DIR              keep the raw perf.data / callgrind files in DIR
  --perf PROGRAM          the perf to sample with (default: perf on PATH)
Sampling needs perf (Debian linux-perf; ./kit profile installs it); when perf cannot sample
here, the profile says so and counts instructions with callgrind (valgrind) instead.
)";

[[noreturn]] void usage_error(const std::string& m) {
  std::cerr << "quelkit profile: error: " << m << "\n(quelkit profile --help shows the options)\n";
  std::exit(2);
}

uint64_t number(const std::string& s, const char* what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    usage_error(std::string(what) + " needs a number, not '" + s + "'");
  return std::stoull(s);
}

PartsSpec parse_parts(const std::string& spec) {
  PartsSpec p;
  std::string err;
  if (!parse_parts_spec(spec, &p, &err)) usage_error(err);
  return p;
}

Options parse_options(const std::vector<std::string>& args, size_t i) {
  Options o;
  auto value = [&](const std::string& a) -> std::string {
    auto eq = a.find('=');
    if (eq != std::string::npos && a.starts_with("--")) return a.substr(eq + 1);
    if (i >= args.size()) usage_error(a + " needs a value");
    return args[i++];
  };
  while (i < args.size()) {
    std::string a = args[i++];
    std::string name = a.starts_with("--") ? a.substr(0, a.find('=')) : a;
    if (a == "-h" || a == "--help") {
      std::cout << kHelp;
      std::exit(0);
    } else if (name == "-b" || name == "--backend") {
      o.backends = value(a);
    } else if (name == "--parts") {
      o.parts.push_back(parse_parts(value(a)));
    } else if (name == "--query" || name == "--queries") {
      o.queries = value(a);
    } else if (name == "-e") {
      o.scripts.emplace_back("<-e " + std::to_string(o.scripts.size() + 1) + ">", value(a));
    } else if (name == "--seconds") {
      o.seconds = std::atof(value(a).c_str());
      if (!(o.seconds > 0)) usage_error("--seconds must be positive");
    } else if (name == "--freq") {
      o.freq = int(number(value(a), "--freq"));
      if (o.freq < 1) usage_error("--freq must be positive");
    } else if (name == "--reps") {
      o.reps = int(number(value(a), "--reps"));
      if (o.reps < 1) usage_error("--reps must be at least 1");
    } else if (name == "--top") {
      o.top = int(number(value(a), "--top"));
    } else if (a == "--cold") {
      o.cold = true;
    } else if (a == "--no-prepare") {
      o.no_prepare = true;
    } else if (a == "--instructions") {
      o.instructions = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (name == "--format") {
      std::string f = value(a);
      if (f == "table") o.format = OutFormat::Table;
      else if (f == "csv") o.format = OutFormat::Csv;
      else if (f == "none") o.format = OutFormat::None;
      else usage_error("--format must be table, csv or none");
    } else if (name == "--page-size") {
      uint64_t ps = number(value(a), "--page-size");
      if (ps < 64 || ps > 65536) usage_error("--page-size must be between 64 and 65536");
      o.page_size = uint32_t(ps);
    } else if (name == "--jit-opt") {
      o.jit_opt = int(number(value(a), "--jit-opt"));
      if (o.jit_opt > 3) usage_error("--jit-opt must be 0, 1, 2 or 3");
    } else if (name == "--perf") {
      o.perf = value(a);
    } else if (name == "--keep") {
      o.keep = value(a);
    } else if (name == "--child") {
      o.child = value(a);
    } else if (name == "--child-dir") {
      o.child_dir = value(a);
    } else if (name == "--child-backend") {
      o.child_backend = value(a);
    } else if (name == "--ctl") {
      o.ctl = value(a);
    } else if (name == "--ack") {
      o.ack = value(a);
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option " + a);
    } else {
      o.scripts.emplace_back("", a);
    }
  }
  if (!o.queries.empty()) {
    if (!o.scripts.empty()) usage_error("give a script or --query, not both");
    std::string text = "range of p is parts range of q is parts\n";
    int keyed = -1;
    for (char c : o.queries) {
      const PaperQuerySpec* q = nullptr;
      for (const auto& pq : paper_queries())
        if (pq.id[0] == c) q = &pq;
      if (!q) usage_error(std::string("--query: no paper query '") + c + "' (a-i)");
      if (keyed >= 0 && keyed != int(q->keyed))
        usage_error("--query: (a)-(d) run on a heap, (e)-(i) on the keyed relation: profile them separately");
      keyed = int(q->keyed);
      text += std::string(q->text) + "\n";
    }
    o.scripts.emplace_back("<paper " + o.queries + ">", text);
    if (o.parts.empty()) o.parts.push_back(PartsSpec{3360, keyed ? Structure::Isam : Structure::Heap, keyed == 1});
  }
  if (o.scripts.empty() && o.child.empty()) usage_error("nothing to profile: give FILE.quel, -e TEXT or --query");
  return o;
}

}  // namespace

int profile_main(const std::vector<std::string>& args, size_t i) {
  register_all_backends();
  Options o = parse_options(args, i);
  if (o.child == "perf") return child_perf(o);
  if (o.child == "callgrind") return child_callgrind(o);
  if (!o.child.empty()) usage_error("--child must be perf or callgrind");

  std::vector<std::pair<std::string, std::string>> labels;
  try {
    labels = backend_list(o);
  } catch (QuelError& e) {
    usage_error(e.err.message);
  }
  for (const auto& [name, what] : o.scripts)
    if (name.empty() && access(what.c_str(), R_OK) != 0)
      usage_error("cannot open " + what + ": " + std::strerror(errno));

  TempDir dir;
  if (dir.path.empty()) {
    std::cerr << "quelkit profile: error: cannot make a temporary directory in /tmp\n";
    return 1;
  }

  std::vector<BackendProfile> profiles;
  std::string note, method = o.instructions ? "callgrind" : "perf";
  if (!o.instructions) {
    std::string why;
    if (!on_path(o.perf))
      why = o.perf + " is not installed (Debian package linux-perf; ./kit profile installs it)";
    for (const auto& [name, mode] : labels) {
      if (!why.empty()) break;
      BackendProfile p;
      std::string err;
      int r = run_perf(args, i, dir.path, name + ":" + mode, o, p, &err);
      if (r < 0) {
        std::cerr << err << "quelkit profile: the script failed under " << name << ":" << mode << "\n";
        return 1;
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
    if (!run_callgrind(args, i, dir.path, names, profiles, &err)) {
      std::cerr << err << (err.empty() || err.back() == '\n' ? "" : "\n")
                << "quelkit profile: counting instructions failed\n";
      return 1;
    }
  }
  if (!o.keep.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.keep, ec);
    std::filesystem::copy(dir.path, o.keep,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                          ec);
    if (ec) std::cerr << "quelkit profile: could not copy the raw files to " << o.keep << ": " << ec.message() << "\n";
  }

  if (o.json) {
    print_json(std::cout, profiles, o, method, note);
    return 0;
  }
  print_report(std::cout, profiles, o, method, note);
  return 0;
}

}  // namespace quelkit::profile
