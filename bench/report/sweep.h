// `quelkit sweep`: ns per tuple against selectivity for every back end with a
// page kernel under each --selection (docs/DESIGN.md, "Selection with and
// without a branch").
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"
#include "engine/backend.h"
#include "engine/measure.h"

namespace quelkit {

// What `quelkit sweep` was asked for, as its options read it.
struct SweepOptions {
  std::string sizes = "+", points = "0,1,5,10,25,50,75,90,95,99,100";
  std::string selections = "branch,nobranch,auto", backends, out_dir, jit_cpu = "generic", memory_budget;
  // Every point's checks are the sweep's targets, so it takes the paper's
  // repetitions at its targets' sizes (bench/report/report.cpp): 15 of them, a lane
  // whose 15 would outlast `budget` seconds at a point as many as fit, at
  // least kSweepMinReps. With 5 longer ones the default sweep missed checks
  // by lanes whose neighbours' noise moved their medians; 15 missed fewer,
  // for a longer sweep (docs/DESIGN.md, "Selection with and without a
  // branch", has the figures).
  int reps = 15;
  int jit_opt = harness::PrepareOptions{}.jit_opt;
  double min_time = 0.01, budget = 0.5;
};
constexpr int kSweepMinReps = 5;

// Runs the sweep on the registered back ends, printing to stdout; an error
// (a lane that fails a statement, or whose answer differs from the first
// lane's) goes to stderr and returns 1. Returns 0 otherwise, whatever the
// selection axis's checks say (they are measurements, printed).
int run_sweep(const SweepOptions& o);

// Declares the options of `quelkit sweep` (cli/command.h).
cli::Run define_sweep(CLI::App& app, const std::vector<std::string>& args);

}  // namespace quelkit
