// Reading one callgrind output file: self cost per routine and the inclusive
// cost of every call, with code callgrind cannot name (generated at run time)
// named per instruction address from the perf map as it was at the dump.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profile/classify.h"
#include "profile/perf_reader.h"

namespace quelkit::profile {

struct CallgrindPart {
  std::string trigger;  // the dump's "Trigger: Client Request: ..." text
  uint64_t total = 0;   // sum of self costs
  std::map<CostKey, uint64_t> self;
  // (caller, callee) -> inclusive cost of the calls: lets library routines be
  // charged to the subsystem of the routine that called them.
  std::map<std::pair<CostKey, CostKey>, uint64_t> calls;
};

// Self cost (event Ir) per (object, function) of one callgrind output file
// written with --dump-instr=yes --compress-strings=no --compress-pos=no.
// Code callgrind cannot name is named per instruction address through
// `jit_map`; addresses the map does not cover are "[JIT] unnamed". Returns
// false if the file cannot be read.
bool read_callgrind(const std::string& path, const std::vector<MapEntry>& jit_map, CallgrindPart& out);

}  // namespace quelkit::profile
