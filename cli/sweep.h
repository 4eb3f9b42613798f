// `quelkit sweep`: ns per tuple against selectivity for every back end with a
// page kernel under each --selection (docs/DESIGN.md, "Selection with and
// without a branch").
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit {

// Declares the options of `quelkit sweep` (cli/command.h).
cli::Run define_sweep(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
