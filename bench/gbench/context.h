// What a Google Benchmark run of the kit measured with, added to the JSON's
// "context" (and the console header) beside the library's own host and CPU
// fields: the kit's version and commit, its build type, the machine as `quelkit paper` names it, and
// the preparation settings every benchmark of the binary runs under, so a
// results file can be compared with paper.json and sweep.json without
// guessing. Google Benchmark's own "library_build_type" is the library's, not
// the kit's.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/backend.h"
#include "engine/measure.h"
#include "storage/page.h"
#include "engine/version.h"

namespace quelkit::bench {

inline void add_kit_context(const std::vector<std::string>& backends, const std::string& page_sizes) {
  harness::PrepareOptions defaults;
  std::string list;
  for (const auto& b : backends) list += (list.empty() ? "" : ",") + b;
  benchmark::AddCustomContext("quelkit_version", harness::kit_version());
  benchmark::AddCustomContext("quelkit_commit", harness::kit_commit());
  benchmark::AddCustomContext("quelkit_build", QUELKIT_BUILD_TYPE);
  benchmark::AddCustomContext("quelkit_machine", harness::machine_description());
  benchmark::AddCustomContext("quelkit_backends", list);
  benchmark::AddCustomContext("quelkit_page_bytes", page_sizes);
  benchmark::AddCustomContext("quelkit_jit_opt", std::to_string(defaults.jit_opt));
  benchmark::AddCustomContext("quelkit_jit_cpu", defaults.jit_native_cpu ? "native" : "generic");
  benchmark::AddCustomContext("quelkit_selection", harness::selection_name(defaults.selection));
}

}  // namespace quelkit::bench
