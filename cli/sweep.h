// `quelkit sweep`: ns per tuple against selectivity for every back end with a
// page kernel under each --selection (docs/DESIGN.md, "Selection with and
// without a branch").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace quelkit {

// args[i..] are the options after `sweep`; returns the exit status.
int run_sweep(const std::vector<std::string>& args, size_t i);

}  // namespace quelkit
