// Entry point of `quelkit difftest` (cli/main.cpp dispatches to it). The
// generator, checker, shrinker, SQLite oracle and corpus runner behind it are
// the quelkit_difftest library, which the tests link directly.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace quelkit::difftest {

struct Summary;

// args[i..] are the options after `difftest`. Returns the exit status.
int difftest_main(const std::vector<std::string>& args, size_t i);
void print_summary(std::ostream& os, const Summary& s, const std::vector<std::string>& runners, uint64_t seed);

}  // namespace quelkit::difftest
