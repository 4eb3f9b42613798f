// `quelkit sweep`: ns per tuple against selectivity for every back end with a
// page kernel under each --selection (docs/DESIGN.md, "Selection with and
// without a branch").
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"
#include "harness/backend.h"
#include "harness/measure.h"

namespace quelkit {

// What `quelkit sweep` was asked for, as its options read it.
struct SweepOptions {
  std::string sizes = "1000000,10000000", points = "0,1,5,10,25,50,75,90,95,99,100";
  std::string selections = "branch,nobranch,auto", backends, out_dir, jit_cpu = "generic";
  int reps = harness::kDefaultReps;
  int jit_opt = harness::PrepareOptions{}.jit_opt;
  double min_time = 0.02;
};

// Runs the sweep on the registered back ends, printing to stdout; an error
// (a lane that fails a statement, or whose answer differs from the first
// lane's) goes to stderr and returns 1. Returns 0 otherwise, whatever the
// selection axis's checks say (they are measurements, printed).
int run_sweep(const SweepOptions& o);

// Declares the options of `quelkit sweep` (cli/command.h).
cli::Run define_sweep(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
