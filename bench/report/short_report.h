// `quelkit short`: the short-statement workloads of issue 68 (the Distributed
// INGRES benchmark's 1,000 replaces on EMP, and the POSTGRES study's TP1) on
// every back end and SQLite; its measurement is bench/measure/short_run.h,
// this prints it, checks the targets and writes its files.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit {

// Declares the options of `quelkit short` (cli/command.h).
cli::Run define_short(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
