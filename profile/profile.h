// `quelkit profile`: Table-3-style profiles of every back end (Stonebraker et
// al. 1981 profiled INGRES and found GETSYMBOL 17.1%, INTERPRET 14.8%), JIT code
// included, by sampling (perf) or by counting instructions (callgrind). The
// pieces (naming routines, reading perf and callgrind, the child process,
// aggregation, printing) live in profile/; docs/profile.md describes it.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace quelkit::profile {

// Declares the options of `quelkit profile` (cli/command.h).
cli::Run define_profile(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit::profile
