// The paper's queries (Stonebraker et al. 1981, Tables 1 and 2), written once:
// the report, the benchmark binaries, the profiler and the tests read their
// QUEL text and the VAX figures from here.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace quelkit {

struct PaperQuerySpec {
  const char* id;    // "a".."i"
  const char* text;  // QUEL, after `range of p is parts range of q is parts`
  bool keyed;        // (e)-(i): wide relation, ISAM (or hash) on pnum
  // The paper's VAX 11/780 CPU seconds (INGRES, DC-INGRES) by relation size.
  std::map<uint64_t, std::pair<double, double>> vax;
};
const std::vector<PaperQuerySpec>& paper_queries();
// The query whose id is `id`, or nullptr.
const PaperQuerySpec* paper_query(char id);

}  // namespace quelkit
