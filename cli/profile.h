// `quelkit profile`: Table-3-style profiles of every back end (Stonebraker et
// al. 1981 profiled INGRES and found GETSYMBOL 17.1%, INTERPRET 14.8%), JIT code
// included, by sampling (perf) or by counting instructions (callgrind). The
// pieces (naming routines, reading perf and callgrind, the child process,
// aggregation, printing) live in cli/profile/; docs/profile.md describes it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace quelkit::profile {

// args[i..] are the options after `profile`; returns the exit status.
int profile_main(const std::vector<std::string>& args, size_t i);

}  // namespace quelkit::profile
