// The profiled child process: `quelkit profile --child=perf|callgrind`, one
// per back end, started by launch.cpp under perf record or valgrind. It sets
// the data up, runs the script once, repeats the script's expression
// statements while the tool measures, and writes what it did to the meta file.
#pragma once

#include "profile/options.h"

namespace quelkit::profile {

// Under perf record: repeats the script for --seconds with perf's events
// enabled through its control fifo (--ctl, --ack) only around the repetitions.
int child_perf(const Options& o);

// Under valgrind --tool=callgrind: per statement, --reps evaluations with
// collection on and every prepare() off, and a cold preparation counted apart.
int child_callgrind(const Options& o);

// What a child says of a script with no expression statement: the parent
// passes it on as a usage error (exit 2), not as a script that failed.
inline constexpr const char* kNothingToProfile =
    "nothing to profile: the script has no retrieve, append, replace or delete";

}  // namespace quelkit::profile
