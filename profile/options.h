// The options of `quelkit profile`, parsed in profile/profile.cpp (the command's
// entry). Both sides read them: the parent, and the child it starts with the
// same options plus --child=... (the child's own fields, below).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/code_options.h"
#include "storage/page.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit::profile {

struct Options {
  std::vector<std::pair<std::string, std::string>> scripts;  // (name, text); name "" = file path in text
  std::vector<harness::PartsSpec> parts;
  std::string backends;  // "" = every back end in its default mode
  std::string queries;   // paper query letters
  bool instructions = false, json = false, cold = false, no_prepare = false;
  double seconds = 2.0;
  int freq = 4000;
  int reps = 3;
  int top = 15;
  harness::OutFormat format = harness::OutFormat::Table;
  uint32_t page_size = harness::kDefaultPageSize;
  cli::CodeOptions code;  // --jit-opt, --jit-checks, --jit-cpu, --vector-batch, --selection
  std::string keep;
  std::string perf = "perf";  // the perf program (--perf PATH)
  // The child's side.
  std::string child, child_dir, child_backend, ctl, ack;
  std::string stdin_script;  // the script `-` read from standard input, as a file the parent wrote
};

// The (name, mode) pairs to profile: the child's one back end, -b's list, or
// every registered back end in its default mode. Throws QuelError on a bad list.
std::vector<std::pair<std::string, std::string>> backend_list(const Options& o);

}  // namespace quelkit::profile
