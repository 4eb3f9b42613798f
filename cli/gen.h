// `quelkit gen parts|wisconsin`: the generated relations as CSV, so other
// engines (and `copy`) load exactly the tuples quelkit measures.
#pragma once

#include "cli/command.h"

namespace quelkit::cli {

Run define_gen(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit::cli
