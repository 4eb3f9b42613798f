// `quelkit profile`: Table-3-style profiles of every back end (Stonebraker et
// al. 1981 profiled INGRES and found GETSYMBOL 17.1%, INTERPRET 14.8%), JIT code
// included, by sampling (`perf record -e cpu-clock`) or by counting instructions
// under callgrind (`--instructions`: only the run phase, deterministic). The
// workload runs in a child process (under perf or valgrind); this side reads
// what the tools wrote, names every routine, says what it does and which
// subsystem it belongs to. The pieces are exposed for the tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quelkit::profile {

// args[i..] are the options after `profile`; returns the exit status.
int profile_main(const std::vector<std::string>& args, size_t i);

// ---- naming routines ----

// The subsystems of the breakdown, in print order.
inline constexpr const char* kSubsystems[] = {"front end",  "prepare/compile", "scan and storage",
                                              "evaluation", "output",          "other"};

struct RoutineInfo {
  std::string name;       // short display name: "interp::getsymbol", "q2_kernel", "libLLVM (compiler)"
  std::string what;       // one-line explanation
  std::string subsystem;  // one of kSubsystems
  std::string role;       // the paper's Table 3 routine it corresponds to ("GETSYMBOL", ...), or ""
};

// `symbol` as perf or callgrind print it (demangled, possibly with its
// parameter list); `dso` the object file it lives in ("" or "[JIT]" for
// generated code, "[kernel]" for the kernel). `backend` names the back end the
// profile is of (explanations of generated code say which JIT made it).
RoutineInfo classify(std::string_view symbol, std::string_view dso, std::string_view backend = "");

// Drops parameter lists, ABI tags, "quelkit::" and "(anonymous namespace)::".
std::string short_symbol(std::string_view symbol);

// ---- JIT addresses ----

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

// ---- callgrind ----

// Self cost (event Ir) per (object, function) of one callgrind output file
// written with --dump-instr=yes --compress-strings=no --compress-pos=no.
// Code callgrind cannot name (generated at run time) is named per instruction
// address through `jit_map`; addresses the map does not cover are "[JIT]
// unnamed". Returns false if the file cannot be read.
struct CostKey {
  std::string dso, symbol;
  bool operator<(const CostKey& o) const { return dso != o.dso ? dso < o.dso : symbol < o.symbol; }
};
struct CallgrindPart {
  std::string trigger;  // the dump's "Trigger: Client Request: ..." text
  uint64_t total = 0;   // sum of self costs
  std::map<CostKey, uint64_t> self;
  // (caller, callee) -> inclusive cost of the calls: lets library routines be
  // charged to the subsystem of the routine that called them.
  std::map<std::pair<CostKey, CostKey>, uint64_t> calls;
};
bool read_callgrind(const std::string& path, const std::vector<MapEntry>& jit_map, CallgrindPart& out);

// ---- subsystems ----

// The breakdown by subsystem with library routines (and the kernel) charged to
// the kit routine that called them: `self` is cost per routine, `calls` the
// inclusive cost of every call. Keys as read_callgrind gives them.
std::map<std::string, double> charge_subsystems(const std::map<CostKey, double>& self,
                                                const std::map<std::pair<CostKey, CostKey>, double>& calls,
                                                std::string_view backend);

// ---- the paper's Table 3 ----

struct PaperRoutine {
  const char* name;     // GETSYMBOL
  double percent;       // 17.1
  const char* what;     // symbol fetch
};
const std::vector<PaperRoutine>& paper_table3();

}  // namespace quelkit::profile
