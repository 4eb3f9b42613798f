// `quelkit paper`: the paper's benchmark on every built back end, printed as
// tables shaped like Tables 1 and 2 of Stonebraker et al. (1981) with the VAX
// figures beside today's, and written as JSON and CSV with --out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace quelkit {

// The paper's queries, written once: the report, the benchmark suite and the
// tests read them from here.
struct PaperQuerySpec {
  const char* id;    // "a".."i"
  const char* text;  // QUEL, after `range of p is parts range of q is parts`
  bool keyed;        // (e)-(i): wide relation, ISAM (or hash) on pnum
  // The paper's VAX 11/780 CPU seconds (INGRES, DC-INGRES) by relation size.
  std::map<uint64_t, std::pair<double, double>> vax;
};
const std::vector<PaperQuerySpec>& paper_queries();

// args[i..] are the options after `paper`; returns the exit status.
int run_paper(const std::vector<std::string>& args, size_t i);
}
