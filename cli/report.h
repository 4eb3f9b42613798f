// `quelkit paper`: the paper's benchmark on every built back end, printed as
// tables shaped like Tables 1 and 2 of Stonebraker et al. (1981) with the VAX
// figures beside today's, and written as JSON and CSV with --out.
#pragma once

#include <string>
#include <vector>

namespace quelkit {

// args[i..] are the options after `paper`; returns the exit status.
int run_paper(const std::vector<std::string>& args, size_t i);

}  // namespace quelkit
