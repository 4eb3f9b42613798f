// Entry point of `quelkit difftest` (cli/main.cpp dispatches to it). The
// generator, checker, shrinker, SQLite oracle and corpus runner behind it are
// the quelkit_difftest library, which the tests link directly.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit::difftest {

struct Summary;

// Declares the options of `quelkit difftest` (cli/command.h).
cli::Run define_difftest(CLI::App& app, const std::vector<std::string>& args);
void print_summary(std::ostream& os, const Summary& s, const std::vector<std::string>& runners, uint64_t seed);

}  // namespace quelkit::difftest
