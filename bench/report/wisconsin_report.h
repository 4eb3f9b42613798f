// `quelkit wisconsin`: the Wisconsin benchmark as the POSTGRES performance
// study ran it (issue 17), on every back end and SQLite; its measurement is
// bench/measure/wisconsin_run.h, this prints it and writes its files.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit {

// Declares the options of `quelkit wisconsin` (cli/command.h).
cli::Run define_wisconsin(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
