// `quelkit paper`: the paper's benchmark on every built back end, printed as
// tables shaped like Tables 1 and 2 of Stonebraker et al. (1981) with the VAX
// figures beside today's, and written as JSON and CSV with --out.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit {

// Declares the options of `quelkit paper` (cli/command.h).
cli::Run define_paper(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
