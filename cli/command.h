// How every `quelkit` subcommand reads its options: with CLI11, through one
// dispatcher (run_command) that picks the subcommand, parses, and turns every
// usage error into one message and exit status 2 before any work starts. A
// subcommand is a row of the table cli/main.cpp passes in: its name, a line
// for --help, and a function that declares its options on a CLI::App and
// returns what runs once they have parsed. The validators below are shared,
// so `--reps 0` reads the same in paper, sweep and profile.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/code_options.h"

namespace quelkit::harness {
class Relation;
}

namespace quelkit::cli {

// What a subcommand runs after parsing; returns the exit status.
using Run = std::function<int()>;
// Declares a subcommand's options on `app`. `args` are the words after the
// subcommand's name as typed (profile hands them on to its child processes).
using Define = Run (*)(CLI::App& app, const std::vector<std::string>& args);

struct Subcommand {
  const char* name;
  const char* summary;  // one line in `quelkit --help`
  Define define;
};

// Parses argv (a subcommand when argv[1] names one, else the session command
// `main`) and runs it. --help prints and exits 0; any usage error, in parsing
// or thrown as UsageError by the Run, prints `PROG: error: MESSAGE` and the
// hint to --help on stderr and exits 2.
int run_command(int argc, char** argv, const Subcommand& main, std::span<const Subcommand> subcommands);

// A usage error found after parsing (options that contradict each other).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void usage_error(const std::string& msg);

// Validators. Each checks the text before CLI11 converts it, so the message
// names what was expected ("--reps: needs a whole number >= 1, not '0'").
CLI::Validator whole(uint64_t lo, uint64_t hi = UINT64_MAX);  // decimal digits only, lo..hi
CLI::Validator real_above(double lo, double hi = HUGE_VAL);    // a number > lo (and <= hi)
CLI::Validator real_between(double lo, double hi);             // lo <= number <= hi
CLI::Validator one_of(std::vector<std::string> words);
CLI::Validator a_name(const char* what);  // not empty: "needs a file name, not ''"
CLI::Validator list_of(std::vector<std::string> words);  // comma-separated, each one of words
CLI::Validator backend_list();                            // harness::parse_backend_list accepts it
// Refuses, as a usage error before any work, a size whose relations need
// more than the memory budget: "--sizes 60000000 needs about 12.1 GiB, more
// than the memory budget of 11.4 GiB (--memory-budget)".
void require_fits(const std::string& option, uint64_t n, uint64_t bytes);
// The bytes a heap of n tuples takes: the pages of n tuples at the tuples
// per page of `empty` (the relation made with none).
uint64_t heap_bytes(const harness::Relation& empty, uint64_t n);
// Sizes in tuples as parse_sizes reads them: [+]N,N,... ("" is none; "+"
// alone adds nothing, so it is refused), each at most `max`: the most tuples
// the relation's data can number (`of` says why, "pnum is an i4").
CLI::Validator size_list(uint64_t max, std::string of);
// The paper's queries, letters a-i, run together or comma-separated (ab,
// a,b); a transform (->transform), which leaves the option the letters alone.
CLI::Validator query_letters();

// Every list above is refused when an element of it is empty (`-b interp,`,
// `--points ,50`, `a,,b`): the message for `list`, or "" when it has none.
// The empty list itself is each option's own business.
std::string empty_element(const std::string& list);
// The elements of a comma list ("" has none), for lists empty_element passed.
std::vector<std::string> split(const std::string& list);
// A list's values with a repeated one dropped (the first kept, the order
// kept): `--sizes 1,1` runs and reports the size once.
template <class T>
std::vector<T> drop_repeats(std::vector<T> v) {
  std::vector<T> out;
  for (auto& x : v)
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(std::move(x));
  return out;
}

// The code-shaping options (code_options.h), each declared once:
// --jit-opt 0-3 (the session, difftest, profile, sweep); --jit-cpu generic
// (the default) or native (those and paper, wisconsin), and how their
// headers name the choice; --vector-batch, tuples per batch of the vector
// back end, 1 to 65535 (0, its default, where not given).
void add_jit_opt_option(CLI::App& app, int* value);
// --jit-lookup-opt 0-3|same (PrepareOptions::jit_lookup_opt; same: -1).
void add_jit_lookup_opt_option(CLI::App& app, int* value);
void add_jit_cpu_option(CLI::App& app, std::string* value);
const char* jit_cpu_description(bool native);
void add_vector_batch_option(CLI::App& app, uint32_t* value);
// All five, for the commands that prepare code a user asks about (the
// session, difftest, profile): the above, --jit-checks and --selection.
void add_code_options(CLI::App& app, CodeOptions* o);

// Back-end options that the selected back ends would not read are usage
// errors, in every command that takes them: --jit-opt, --jit-checks,
// --jit-cpu or --vector-batch, given (whichever `app` declares) where no back
// end in `backends` names it in its registration's reads_options ("--jit-opt
// would do nothing: no selected back end reads it (llvm, gccjit, adaptive)");
// and --selection where every selected mode evaluates tuple at a time.
void refuse_unread_backend_options(const CLI::App& app,
                                   const std::vector<std::pair<std::string, std::string>>& backends);

// --memory-budget (the monitor, paper, sweep, wisconsin): a size (K M G T) or
// a share of available memory (N%), into *value; apply_memory_budget sets the
// budget from it ("" leaves the default), before anything is sized against it.
void add_memory_budget_option(CLI::App& app, std::string* value);
void apply_memory_budget(const std::string& value);

// "1,210,3360" replaces the default sizes; "+10000000" adds to them; "" is
// none. Sorted, each once.
std::vector<uint64_t> parse_sizes(const std::string& spec, std::vector<uint64_t> defaults);

// Options that take a value take it as `--opt V` or `--opt=V`; `--opt=` is an
// empty value. A script option (-e TEXT) and the script files, in the order
// they were given: (name, text) with name "" for a file path in text and "-"
// for standard input.
CLI::Option* add_script_options(CLI::App& app, std::vector<std::string>* texts, std::vector<std::string>* files);
std::vector<std::pair<std::string, std::string>> scripts_in_order(const CLI::App& app,
                                                                  const std::vector<std::string>& texts,
                                                                  const std::vector<std::string>& files);

// An output directory, made and proved writable now, before any work: a
// report that cannot be written is a usage error, not a lost hour. Throws
// UsageError naming `opt`.
void require_output_dir(const std::string& opt, const std::string& dir);

}  // namespace quelkit::cli
