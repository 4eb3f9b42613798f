// The one place `quelkit` parses options (cli/command.h): the dispatcher,
// the validators the subcommands share, and the output-directory check.
#include "cli/command.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/backend.h"
#include "storage/budget.h"
#include "storage/relation.h"
#include "engine/session.h"

namespace quelkit::cli {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) v.push_back(item);
  return v;
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) s += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return s;
}

// A number written whole, or nullopt-like false.
bool parse_double(const std::string& s, double* d) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  *d = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno == 0 && std::isfinite(*d);
}

}  // namespace

std::string empty_element(const std::string& list) {
  if (list.empty() || (list.front() != ',' && list.back() != ',' && list.find(",,") == std::string::npos)) return {};
  return "has an empty element in '" + list + "' (nothing before, between or after a ',')";
}

void usage_error(const std::string& msg) { throw UsageError(msg); }

CLI::Validator whole(uint64_t lo, uint64_t hi) {
  std::string want = hi == UINT64_MAX ? "a whole number >= " + std::to_string(lo)
                                      : "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || p != s.data() + s.size() || ec != std::errc() || v < lo || v > hi)
          return "needs " + want + ", not '" + s + "'";
        return {};
      },
      "");
}

CLI::Validator real_above(double lo, double hi) {
  std::ostringstream want;
  want << "a number > " << lo;
  if (hi < HUGE_VAL) want << " and at most " << hi;
  return CLI::Validator(
      [w = want.str(), lo, hi](std::string& s) -> std::string {
        double d = 0;
        if (!parse_double(s, &d) || !(d > lo) || d > hi) return "needs " + w + ", not '" + s + "'";
        return {};
      },
      "");
}

CLI::Validator real_between(double lo, double hi) {
  std::ostringstream want;
  want << "a number from " << lo << " to " << hi;
  return CLI::Validator(
      [w = want.str(), lo, hi](std::string& s) -> std::string {
        double d = 0;
        if (!parse_double(s, &d) || d < lo || d > hi) return "needs " + w + ", not '" + s + "'";
        return {};
      },
      "");
}

void add_jit_opt_option(CLI::App& app, int* value) {
  app.add_option("--jit-opt", *value, "JIT optimisation level (default 1)")->check(whole(0, 3))->type_name("0-3");
}

void add_jit_lookup_opt_option(CLI::App& app, int* value) {
  app.add_option_function<std::string>(
         "--jit-lookup-opt",
         [value](const std::string& s) { *value = s == "same" ? -1 : std::stoi(s); },
         "JIT optimisation level of a plan whose scan is a keyed lookup run once in its statement (default 0: "
         "its few tuples do not repay optimising; same: --jit-opt's)")
      ->check(CLI::IsMember({"0", "1", "2", "3", "same"}))
      ->type_name("0-3|same");
}

void add_jit_cpu_option(CLI::App& app, std::string* value) {
  app.add_option("--jit-cpu", *value,
                 "JIT target: the generic CPU the kit itself is built for (default), or every instruction of this "
                 "machine's CPU")
      ->check(one_of({"generic", "native"}))
      ->type_name("generic|native");
}

void add_vector_batch_option(CLI::App& app, uint32_t* value) {
  app.add_option("--vector-batch", *value, "tuples per batch of the vector back end (default 128; batches span pages)")
      ->check(whole(1, 65535))
      ->type_name("N");
}

void add_code_options(CLI::App& app, CodeOptions* o) {
  add_jit_opt_option(app, &o->jit_opt);
  add_jit_lookup_opt_option(app, &o->jit_lookup_opt);
  app.add_flag("--jit-checks", o->jit_checks, "bounds assertions in the JIT back ends' generated code");
  add_jit_cpu_option(app, &o->jit_cpu);
  add_vector_batch_option(app, &o->vector_batch);
  app.add_option("--selection", o->selection,
                 "how page kernels select: a branch on the qualification, or the row written and kept by its "
                 "value; auto (default) probes the first pages with branch and picks by selectivity")
      ->check(one_of({"branch", "nobranch", "auto"}))
      ->type_name("branch|nobranch|auto");
}

void add_memory_budget_option(CLI::App& app, std::string* value) {
  app.add_option("--memory-budget", *value,
                 "memory for relations, temporaries and results; beyond it a statement fails (default 50% of "
                 "available memory; K M G T)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {  // an empty value too: it is no size, not the default
            uint64_t bytes = 0;
            std::string err;
            return harness::parse_memory_size(s, &bytes, &err) ? std::string() : err;
          },
          ""))
      ->type_name("BYTES|N%");
}

void apply_memory_budget(const std::string& value) {
  if (value.empty()) return;
  uint64_t bytes = 0;
  std::string err;
  if (!harness::parse_memory_size(value, &bytes, &err)) usage_error("--memory-budget: " + err);
  harness::memory_budget().set_limit(bytes);
}

void refuse_unread_backend_options(const CLI::App& app,
                                   const std::vector<std::pair<std::string, std::string>>& backends) {
  // The list is the kit's back-end options, not the registrations' union:
  // where no JIT back end is built --jit-opt is still declared, and is
  // refused ("none is built") rather than let through.
  for (const char* option : {"--jit-opt", "--jit-lookup-opt", "--jit-checks", "--jit-cpu", "--vector-batch"}) {
    const CLI::Option* declared = app.get_option_no_throw(option);
    if (!declared || declared->count() == 0) continue;
    std::string readers;
    bool read = false;
    for (const harness::BackendSpec& s : harness::registered_backends())
      if (std::find(s.reads_options.begin(), s.reads_options.end(), option) != s.reads_options.end()) {
        readers += (readers.empty() ? "" : ", ") + s.name;
        for (const auto& [b, mode] : backends) read = read || b == s.name;
      }
    if (!read)
      usage_error(std::string(option) + " would do nothing: no selected back end reads it (" +
                  (readers.empty() ? "none is built" : readers) + ")");
  }
  if (const CLI::Option* selection = app.get_option_no_throw("--selection"); selection && selection->count() > 0) {
    bool kernel = false;
    for (const auto& [b, mode] : backends) kernel = kernel || harness::has_page_kernel(b, mode);
    if (!kernel)
      usage_error("--selection would do nothing: every selected back end evaluates tuple at a time (no page "
                  "kernel)");
  }
}

const char* jit_cpu_description(bool native) {
  return native ? "this machine's CPU (--jit-cpu native)"
                : "the generic CPU the kit is built for (--jit-cpu native: this machine's)";
}

CLI::Validator one_of(std::vector<std::string> words) {
  return CLI::Validator(
      [words](std::string& s) -> std::string {
        if (std::find(words.begin(), words.end(), s) == words.end())
          return "must be " + joined(words) + ", not '" + s + "'";
        return {};
      },
      "");
}

CLI::Validator a_name(const char* what) {
  return CLI::Validator(
      [what](std::string& s) -> std::string { return s.empty() ? std::string("needs ") + what + ", not ''" : ""; }, "");
}

CLI::Validator list_of(std::vector<std::string> words) {
  return CLI::Validator(
      [words](std::string& s) -> std::string {
        if (std::string e = empty_element(s); !e.empty()) return e;
        for (const auto& x : split(s))
          if (std::find(words.begin(), words.end(), x) == words.end())
            return "takes a comma-separated list of " + joined(words) + ", not '" + x + "'";
        return {};
      },
      "");
}

CLI::Validator size_list(uint64_t max, std::string of) {
  return CLI::Validator(
      [max, of](std::string& spec) -> std::string {
        if (spec == "+") return "'+' adds the sizes after it to the default ones, and none follows it";
        if (std::string e = empty_element(spec.starts_with("+") ? spec.substr(1) : spec); !e.empty()) return e;
        std::stringstream ss(spec.starts_with("+") ? spec.substr(1) : spec);
        for (std::string x; std::getline(ss, x, ',');) {
          if (x.empty() || x.size() > 12 || x.find_first_not_of("0123456789") != std::string::npos || std::stoull(x) == 0)
            return "takes sizes in tuples (1 or more), comma-separated, not '" + x + "'";
          if (std::stoull(x) > max) return x + ": at most " + std::to_string(max) + " tuples (" + of + ")";
        }
        return {};
      },
      "");
}

void require_fits(const std::string& option, uint64_t n, uint64_t bytes) {
  const uint64_t limit = harness::memory_budget().limit();
  if (bytes > limit)
    usage_error(option + " " + std::to_string(n) + " needs about " + harness::memory_size_text(bytes) +
                ", more than the memory budget of " + harness::memory_size_text(limit) + " (--memory-budget)");
}

uint64_t heap_bytes(const harness::Relation& empty, uint64_t n) {
  const uint64_t tpp = empty.tuples_per_page();
  return (n + tpp - 1) / tpp * uint64_t(empty.page_size());
}

std::vector<uint64_t> parse_sizes(const std::string& spec, std::vector<uint64_t> v) {
  std::string s = spec;
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  else v.clear();
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (std::find(v.begin(), v.end(), std::stoull(x)) == v.end()) v.push_back(std::stoull(x));
  std::sort(v.begin(), v.end());
  return v;
}

CLI::Validator query_letters() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty()) return "needs letters of the paper's queries, a to i (ab or a,b)";
        if (std::string e = empty_element(s); !e.empty()) return e;
        for (char c : s)
          if (c != ',' && (c < 'a' || c > 'i'))
            return std::string("no paper query '") + c + "' in '" + s + "': takes letters a to i (ab or a,b)";
        std::erase(s, ',');  // the option holds the letters alone: a,b is ab
        return {};
      },
      "");
}

CLI::Validator backend_list() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (std::string e = empty_element(s); !e.empty()) return e;
        try {
          harness::parse_backend_list(s);
        } catch (QuelError& e) {
          return e.err.message;
        }
        return {};
      },
      "");
}

CLI::Option* add_script_options(CLI::App& app, std::vector<std::string>* texts, std::vector<std::string>* files) {
  // allow_extra_args(false): -e takes one word, the next is a file again.
  CLI::Option* e = app.add_option("-e", *texts, "run TEXT as a script (may be repeated)")
                       ->type_name("TEXT")
                       ->allow_extra_args(false);
  app.add_option("scripts", *files, "QUEL scripts, in order (- reads standard input)")->type_name("FILE.quel");
  return e;
}

std::vector<std::pair<std::string, std::string>> scripts_in_order(const CLI::App& app,
                                                                  const std::vector<std::string>& texts,
                                                                  const std::vector<std::string>& files) {
  // CLI11 keeps -e's values and the positionals apart; parse_order() says how
  // they interleaved, so `a.quel -e TEXT b.quel` runs in that order.
  std::vector<std::pair<std::string, std::string>> out;
  size_t t = 0, f = 0;
  for (const CLI::Option* o : app.parse_order()) {
    if (o->get_name() == "-e" && t < texts.size()) {
      out.emplace_back("<-e " + std::to_string(t + 1) + ">", texts[t]);
      ++t;
    } else if (o->get_name() == "scripts" && f < files.size()) {
      out.emplace_back(files[f] == "-" ? "-" : "", files[f] == "-" ? "" : files[f]);
      ++f;
    }
  }
  return out;
}

void require_output_dir(const std::string& opt, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) usage_error(opt + " " + dir + ": cannot make the directory: " + ec.message());
  if (!fs::is_directory(dir, ec)) usage_error(opt + " " + dir + ": not a directory");
  // access(W_OK) misses some refusals (read-only mounts seen through
  // permissions it cannot judge); a file made and removed does not.
  const fs::path probe = fs::path(dir) / (".quelkit-probe-" + std::to_string(getpid()));
  {
    std::ofstream f(probe);
    if (!f || !(f << "x") || !f.flush())
      usage_error(opt + " " + dir + ": cannot write there: " + std::strerror(errno ? errno : EACCES));
  }
  fs::remove(probe, ec);
}

namespace {

// CLI11's help prints each description on one line; this one wraps them
// under their column, so `--help` reads in an 100-column terminal.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* o) const override {
    const size_t width = 100 - get_column_width();
    std::string out, line;
    std::stringstream words(o->get_description());
    for (std::string w; words >> w;) {
      if (!line.empty() && line.size() + 1 + w.size() > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + w;
    }
    return out + line;
  }
};

}  // namespace

int run_command(int argc, char** argv, const Subcommand& main, std::span<const Subcommand> subcommands) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const Subcommand* sub = &main;
  if (!args.empty())
    for (const Subcommand& s : subcommands)
      if (args[0] == s.name) sub = &s;
  if (sub != &main) args.erase(args.begin());
  const std::string prog = sub == &main ? std::string("quelkit") : "quelkit " + std::string(sub->name);

  CLI::App app(sub->summary, prog);
  auto formatter = std::make_shared<WrappingFormatter>();
  formatter->column_width(34);
  app.formatter(formatter);
  // A value given twice: the last one counts, as shells and scripts expect
  // when they append an option to a user's list (./kit paper adds --out).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (sub == &main) {
    std::string list = "subcommands (quelkit NAME --help):\n";
    for (const Subcommand& s : subcommands) list += "  " + std::string(s.name) + std::string(std::max<size_t>(2, 12 - std::strlen(s.name)), ' ') + s.summary + "\n";
    app.footer(list);
  }
  Run run = sub->define(app, args);

  // The help that lists the options an error is about: the subcommand's
  // given (`quelkit gen wisconsin --seed x`), whose options --help of its
  // parent does not show.
  auto help = [&] {
    std::string cmd = prog;
    for (const CLI::App* a = &app; !a->get_subcommands().empty();) {
      a = a->get_subcommands().front();
      cmd += " " + a->get_name();
    }
    return "\n(" + cmd + " --help shows the options)\n";
  };
  // CLI11 takes `--opt=` as an option still waiting for its value; say it is
  // the empty value (`--count-sizes=`: no count block). A flag's `--stats=`
  // is neither the flag alone nor a value of it: CLI11 would take it as set.
  std::vector<std::string> words;
  for (const std::string& a : args) {
    const CLI::Option* takes = a.size() > 3 && a.starts_with("--") && a.back() == '=' && a.find('=') == a.size() - 1
                                   ? app.get_option_no_throw(a.substr(0, a.size() - 1))
                                   : nullptr;
    if (takes && takes->get_expected_min() > 0) {
      words.push_back(a.substr(0, a.size() - 1));
      words.emplace_back();
    } else if (takes) {
      std::cerr << prog << ": error: " << a << " gives an empty value: write " << a.substr(0, a.size() - 1)
                << " alone, or with its value" << help();
      return 2;
    } else {
      words.push_back(a);
    }
  }
  std::reverse(words.begin(), words.end());  // CLI11's vector form reads from the back
  try {
    app.parse(words);
    return run();
  } catch (const CLI::ExtrasError&) {
    // CLI11 2.1 lists these back to front; said here in the order typed.
    std::string words;
    for (const std::string& w : app.remaining(true)) words += " " + w;
    std::cerr << prog << ": error: unknown option or extra argument:" << words << help();
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << prog << ": error: " << e.what() << help();
    return 2;
  } catch (const UsageError& e) {
    std::cerr << prog << ": error: " << e.what() << help();
    return 2;
  }
}

}  // namespace quelkit::cli
