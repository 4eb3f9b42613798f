// What perf's formats say, read back: the perf map that names code generated
// at run time (/tmp/perf-PID.map, written by jit/perfmap.h; callgrind's
// counts are named through it too) and `perf script`'s samples with their call
// chains.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "profile/aggregate.h"

namespace quelkit::profile {

struct MapEntry {
  uint64_t start = 0, size = 0;
  std::string name;
};
// Reads a perf map (/tmp/perf-PID.map), sorted by start address; only its
// first `lines` lines (the map as it was at some moment: code freed by a
// cleared plan cache leaves its memory to the next plan, so an address names
// different functions over time; at one address the latest entry wins).
std::vector<MapEntry> read_perf_map(const std::string& path, size_t lines = size_t(-1));
// The entry containing addr, or nullptr.
const MapEntry* find_in_map(const std::vector<MapEntry>& map, uint64_t addr);

// The output of `perf script -F ip,sym,dso` (samples with call chains,
// unwound from DWARF, separated by blank lines), added to `out`: each sample
// counts for the routine it hit and for the subsystem of the nearest kit
// routine on its chain (a memmove called by the output code is output).
// `backend` is the back end the samples are of. A frame perf could not name
// whose address `map` holds is generated code, named from the map: perf reads
// the map only for anonymous memory, and libgccjit's code is a shared object
// loaded from a file it has since deleted.
void read_perf_script(std::istream& in, std::string_view backend, Costs& out,
                      const std::vector<MapEntry>& map = {});

}  // namespace quelkit::profile
