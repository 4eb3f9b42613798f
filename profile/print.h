// Printing profiles: the report (per back end its statements, the routines by
// share, the split by subsystem, and beside the 1976 interpreter's profile the
// paper's Table 3; with callgrind, instructions per tuple across back ends),
// or the one JSON document of --json (docs/profile.md lists its keys).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "profile/aggregate.h"
#include "profile/options.h"

namespace quelkit::profile {

// `method` is what measured: "perf" or "callgrind"; `note` why it is not what
// was asked for, or "".
void print_report(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                  const std::string& note);
void print_json(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                const std::string& note);

}  // namespace quelkit::profile
