// Naming routines for `quelkit profile`: a symbol as perf or callgrind prints
// it, and the object file it lives in, become a short name, a line saying what
// it does, its subsystem and the paper's Table 3 routine it corresponds to.
// Kit routines come from each module's table of hot routines
// (runtime/routine_table.h); generated code and libraries are recognised here.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/routine_table.h"

namespace quelkit::profile {

struct RoutineInfo {
  std::string name;       // short display name: "interp::getsymbol", "q2_kernel", "libLLVM (compiler)"
  std::string what;       // one-line explanation
  std::string subsystem;  // one of harness::kSubsystemNames
  std::string role;       // the paper's Table 3 routine it corresponds to ("GETSYMBOL", ...), or ""
};

// A routine as a tool names it: the object file and the symbol.
struct CostKey {
  std::string dso, symbol;
  bool operator<(const CostKey& o) const { return dso != o.dso ? dso < o.dso : symbol < o.symbol; }
  bool operator==(const CostKey&) const = default;
};

// `symbol` as perf or callgrind print it (demangled, possibly with its
// parameter list); `dso` the object file it lives in ("" or "[JIT]" for
// generated code, "[kernel]" for the kernel). `backend` names the back end the
// profile is of (explanations of generated code say which JIT made it).
RoutineInfo classify(std::string_view symbol, std::string_view dso, std::string_view backend = "");
inline RoutineInfo classify(const CostKey& k, std::string_view backend) { return classify(k.symbol, k.dso, backend); }

// Drops parameter lists, ABI tags, "quelkit::" and "(anonymous namespace)::".
std::string short_symbol(std::string_view symbol);

// The modules' tables, in the order classify() consults them (first match
// wins), so that test/profile can check every row against bin/quelkit.
struct ModuleTable {
  std::string_view module;  // "interp", "runtime", ...
  std::span<const harness::HotRoutine> routines;
};
std::span<const ModuleTable> module_tables();

// ---- the paper's Table 3 ----

struct PaperRoutine {
  const char* name;  // GETSYMBOL
  double percent;    // 17.1
  const char* what;  // symbol fetch
};
const std::vector<PaperRoutine>& paper_table3();

}  // namespace quelkit::profile
