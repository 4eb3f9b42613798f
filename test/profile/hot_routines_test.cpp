// The modules' tables of hot routines (runtime/routine_table.h), which
// `quelkit profile` classifies by: every row must name routines that exist in
// bin/quelkit and that the classifier reaches, so renaming a routine fails
// here when it does not already fail to compile (rows holding the function's
// address); and a row's address must be the routine its name says.
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backends/backends.h"
#include "profile/classify.h"
#include "engine/backend.h"

namespace {

namespace prof = quelkit::profile;
using quelkit::harness::HotRoutine;

const std::string kBin = std::string(QUELKIT_BINARY_DIR) + "/bin/quelkit";

// Function symbols of an executable (nm -C): address -> demangled names.
// Empty if nm cannot read it.
std::multimap<uint64_t, std::string> functions(const std::string& exe) {
  std::multimap<uint64_t, std::string> out;
  FILE* p = popen(("nm -C --defined-only '" + exe + "' 2>/dev/null").c_str(), "r");
  if (!p) return out;
  std::string line;
  std::array<char, 4096> buf;
  while (fgets(buf.data(), int(buf.size()), p)) {
    line = buf.data();
    if (!line.empty() && line.back() == '\n') line.pop_back();
    // "0000000000012340 T quelkit::interp::getsymbol(...)"
    size_t a = line.find(' ');
    if (a == std::string::npos || a + 3 > line.size()) continue;
    char type = line[a + 1];
    if (type != 'T' && type != 't' && type != 'W' && type != 'w') continue;
    out.emplace(std::strtoull(line.substr(0, a).c_str(), nullptr, 16), line.substr(a + 3));
  }
  pclose(p);
  return out;
}

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

// Where this executable was loaded: its addresses minus nm's.
uint64_t load_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uint64_t*>(data) = info->dlpi_addr;
        return 1;  // the first object is the executable
      },
      &bias);
  return bias;
}

bool jit_built() {
  quelkit::register_all_backends();
  return quelkit::harness::find_backend("llvm") || quelkit::harness::find_backend("gccjit");
}

std::string where(const prof::ModuleTable& t, const HotRoutine& r) {
  return std::string(t.module) + ": " + std::string(r.name);
}

TEST(ProfileHotRoutines, EveryRowNamesRoutinesOfTheBinaryThatTheClassifierReaches) {
  auto syms = functions(kBin);
  if (syms.empty()) GTEST_SKIP() << "nm cannot read " << kBin << " (binutils missing?)";
  std::set<std::string> names;
  for (const auto& [addr, s] : syms) names.insert(prof::short_symbol(s));
  // The row each routine of the binary is classified by: the first that matches.
  std::map<const HotRoutine*, std::string> reached;
  for (const std::string& n : names) {
    bool found = false;
    for (const prof::ModuleTable& t : prof::module_tables()) {
      for (const HotRoutine& r : t.routines)
        if (r.matches(n)) {
          reached.emplace(&r, n);
          found = true;
          break;
        }
      if (found) break;
    }
  }
  bool jit = jit_built(), stencil = quelkit::harness::find_backend("stencil") != nullptr;
  size_t rows = 0;
  for (const prof::ModuleTable& t : prof::module_tables()) {
    if (t.module == "jit" && !jit) continue;  // no JIT back end linked in: its routines are absent
    for (const HotRoutine& r : t.routines) {
      if (!stencil && r.name.starts_with("jit::stencil::")) continue;  // built without clang-19
      ++rows;
      EXPECT_TRUE(reached.count(&r))
          << where(t, r) << ": no routine of bin/quelkit is classified by this row (renamed? or an earlier row takes "
          << (r.family() ? "its members" : "it") << ")";
    }
  }
  EXPECT_GT(rows, 40u);
  // The runtime names every helper (it has no namespace to fall back on);
  // the operators' rule helpers are the JITs' (jit/hot_routines.h).
  for (const std::string& n : names) {
    if (!n.starts_with("qk_") || n.starts_with("qk_rule_")) continue;
    bool listed = false;
    for (const prof::ModuleTable& t : prof::module_tables())
      for (const HotRoutine& r : t.routines) listed = listed || (t.module == "runtime" && r.matches(n));
    EXPECT_TRUE(listed) << n << " is a runtime helper without a row in runtime/hot_routines.h";
  }
}

TEST(ProfileHotRoutines, AddressesAreTheRoutinesTheirRowsName) {
  auto syms = functions(self_exe());
  if (syms.empty()) GTEST_SKIP() << "nm cannot read this test binary (binutils missing?)";
  uint64_t bias = load_bias();
  size_t checked = 0;
  for (const prof::ModuleTable& t : prof::module_tables())
    for (const HotRoutine& r : t.routines) {
      const void* a = r.address ? r.address() : nullptr;
      if (!a) continue;
      ++checked;
      auto [lo, hi] = syms.equal_range(reinterpret_cast<uint64_t>(a) - bias);
      std::string seen;
      bool ok = false;
      for (auto it = lo; it != hi; ++it) {
        std::string n = prof::short_symbol(it->second);
        ok = ok || r.matches(n);
        seen += " " + n;
      }
      EXPECT_TRUE(ok) << where(t, r) << ": its address is" << (seen.empty() ? " no function" : seen);
    }
  EXPECT_GT(checked, 30u);  // most rows name their function, not only its name
}

TEST(ProfileHotRoutines, RowsClassifyAsTheySay) {
  std::set<std::string> paper;
  for (const auto& p : prof::paper_table3()) paper.insert(p.name);
  for (const prof::ModuleTable& t : prof::module_tables())
    for (const HotRoutine& r : t.routines) {
      EXPECT_FALSE(r.what.empty()) << where(t, r);
      if (!r.role.empty()) {
        EXPECT_TRUE(paper.count(std::string(r.role))) << where(t, r) << ": role " << r.role;
      }
      if (r.family()) continue;
      // The symbol as the tools print it, in our binary ("quelkit::" is dropped
      // from the runtime's C names as from everything).
      prof::RoutineInfo info = prof::classify("quelkit::" + std::string(r.name) + "()", "/x/bin/quelkit");
      EXPECT_EQ(info.name, r.name) << where(t, r);
      EXPECT_EQ(info.what, r.describe ? r.describe(r.name) : std::string(r.what)) << where(t, r);
      EXPECT_EQ(info.subsystem, quelkit::harness::subsystem_name(r.subsystem)) << where(t, r);
      EXPECT_EQ(info.role, r.role) << where(t, r);
    }
}

}  // namespace
