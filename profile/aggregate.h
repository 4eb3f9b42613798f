// One back end's profile out of what a tool measured: routines merged by name
// and ranked by share, the split by subsystem with library routines (and the
// kernel) charged to the kit routine that called them, and each Table 3
// routine's counterpart.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profile/classify.h"
#include "profile/meta.h"

namespace quelkit::profile {

// classify(k).subsystem, remembered: a profile meets the same few routines
// millions of times. A kit routine is one whose subsystem is not "other".
class SubsystemOf {
 public:
  explicit SubsystemOf(std::string_view backend) : backend_(backend) {}
  const std::string& operator()(const CostKey& k);
  bool kit(const CostKey& k) { return (*this)(k) != "other"; }

 private:
  std::string backend_;
  std::map<CostKey, std::string> memo_;
};

// Library routine -> kit routine that called it -> cost.
using Via = std::map<CostKey, std::map<CostKey, double>>;

// What a tool measured for one back end, in samples or instructions.
struct Costs {
  std::map<CostKey, double> self;         // per routine
  std::map<std::string, double> charged;  // per subsystem, library routines charged to their callers
  Via via;
};

// callgrind's side of Costs::charged and Costs::via: `self` is cost per
// routine, `calls` the inclusive cost of every (caller, callee) call, keys as
// read_callgrind gives them. Each routine's own cost is charged once: a kit
// routine's to its subsystem, a library routine's to the kit routines above
// it, in proportion to the calls that reached it (what the library calls
// back in the kit counts as itself).
std::map<std::string, double> charge_subsystems(const std::map<CostKey, double>& self,
                                                const std::map<std::pair<CostKey, CostKey>, double>& calls,
                                                std::string_view backend);
Via library_callers(const std::map<std::pair<CostKey, CostKey>, double>& calls, std::string_view backend);

// One routine of a profile.
struct Line {
  RoutineInfo info;
  double count = 0;  // samples or instructions
  double share = 0;  // percent of the back end's total
  std::map<std::string, double> via;  // library routines: the kit routines that called them
};

struct BackendProfile {
  std::string label;
  std::string method;  // "perf" or "callgrind"
  double total = 0;    // samples or instructions
  uint64_t executions = 0;
  uint64_t ns = 0;  // perf: wall time of the repetitions
  std::vector<StmtMeta> stmts;
  std::vector<Line> lines;                        // by share, descending
  std::map<std::string, double> subsystems;       // percent, library routines charged to their callers
  std::map<std::string, double> self_subsystems;  // percent, each routine where it is
};

// Fills p's lines, total and subsystems from c (p.label names the back end).
void finish(BackendProfile& p, const Costs& c);

// Tuples the profile's evaluations went through: per statement, its
// repetitions times the tuples of its largest relation.
double tuples_total(const BackendProfile& p);

// The counterpart of each Table 3 routine in one profile: the lines of that role.
struct Counterpart {
  double share = 0;
  std::string names;  // the routines of most of the share, then "+ N more" for the rest
};
std::map<std::string, Counterpart> counterparts(const BackendProfile& p);

}  // namespace quelkit::profile
