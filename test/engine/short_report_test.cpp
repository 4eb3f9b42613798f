// `quelkit short` (the short-statement workloads of issue 68) at tiny sizes,
// as a user runs it: the report's tables and targets, its JSON and CSV, and
// the correctness check it makes: every back end and both SQLite modes end
// with the same data (each relation's checksum), and that data is what the
// statements made of it. No test asserts a speed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "test/engine/shell.h"

namespace quelkit::test {
namespace {

using nlohmann::json;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// What one run printed and wrote.
struct Report {
  std::string csv;
  json doc;
  Out out;
};

Report run_short(const std::string& args) {
  char dir[] = "/tmp/quelkit-short-XXXXXX";
  Report r;
  if (!mkdtemp(dir)) return r;
  r.out = sh(kBin + " short -b interp:switch,threaded:goto " + args + " --out " + dir + " 2>&1");
  const std::string js = slurp(std::string(dir) + "/short.json");
  if (!js.empty()) r.doc = json::parse(js);
  r.csv = slurp(std::string(dir) + "/short.csv");
  std::filesystem::remove_all(dir);
  return r;
}

const std::string kTiny = "--emp-rows 300 --accounts 100 --transactions 20";

// The cells of a workload by engine.
std::map<std::string, json> cells(const Report& r, const std::string& workload) {
  std::map<std::string, json> out;
  for (const json& c : r.doc.at("results"))
    if (c.at("workload") == workload) out[c.at("backend").get<std::string>()] = c;
  return out;
}

TEST(ShortReport, BothWorkloadsOnTwoBackendsAndSqliteEndWithTheSameData) {
  Report r = run_short(kTiny + " --replaces 50");
  ASSERT_EQ(r.out.status, 0) << r.out.text;
  for (const char* t : {"Distributed INGRES on one site", "TP1 (POSTGRES study, Figure 2.2)", "Targets (issue 68)",
                        "at most 3 prepares over the replaces", "threaded:goto at most 1.1x interp:switch",
                        "SQLite's prepared", "transactions per second"})
    EXPECT_NE(r.out.text.find(t), std::string::npos) << t << "\n" << r.out.text;
  ASSERT_TRUE(r.doc.contains("results")) << r.out.text;
  const std::set<std::string> engines = {"interp:switch", "threaded:goto", "sqlite:text", "sqlite:prepared"};
  for (const char* w : {"emp", "tp1"}) {
    auto cs = cells(r, w);
    std::set<std::string> seen;
    for (const auto& [name, c] : cs) seen.insert(name);
    EXPECT_EQ(seen, engines) << w;
    const json& ref = cs.at("sqlite:prepared").at("checksums");
    for (const auto& [name, c] : cs) {
      EXPECT_EQ(c.at("checksums"), ref) << w << " " << name;
      EXPECT_TRUE(c.at("same_data").get<bool>()) << w << " " << name;
      EXPECT_EQ(c.at("statements").get<int>(), w == std::string("emp") ? 50 : 20 * 7) << w << " " << name;
      EXPECT_EQ(c.at("transactions").get<int>(), w == std::string("emp") ? 50 : 20) << w << " " << name;
    }
  }
  // Threaded code prepares each shape once and finds it in the cache after.
  auto emp = cells(r, "emp");
  EXPECT_LE(emp.at("threaded:goto").at("prepares").get<int>(), 3);
  EXPECT_GE(emp.at("threaded:goto").at("cache_hits").get<int>(), 47);
  EXPECT_TRUE(emp.at("threaded:goto").at("reuses_plans").get<bool>());
  // Each replace's text after the first of its key (a salary of i2 or of
  // i4) finds its parse and binding in the statement cache, on every back end.
  for (const char* e : {"threaded:goto", "interp:switch"}) {
    EXPECT_GE(emp.at(e).at("text_hits").get<int>(), 48) << e;
    EXPECT_GE(cells(r, "tp1").at(e).at("text_hits").get<int>(), 100) << e;
  }
  EXPECT_NE(r.out.text.find("statement cache: on"), std::string::npos);
  EXPECT_EQ(emp.at("sqlite:prepared").at("prepares").get<int>(), 1);
  EXPECT_EQ(emp.at("sqlite:text").at("prepares").get<int>(), 50);
  // The appends reached history: 20 of them, the same on every engine.
  EXPECT_NE(cells(r, "tp1").at("interp:switch").at("checksums").at("history"), "0000000000000000");
  // The CSV has a column per fixed cost, a row per engine and workload.
  EXPECT_EQ(r.csv.substr(0, r.csv.find('\n')),
            "workload,backend,statements,transactions,us_per_statement,per_second,wall_ns,setup_ns,prepares,"
            "cache_hits,text_hits,parse_ns,bind_ns,plan_ns,lookup_ns,prepare_ns,run_ns,result_ns,total_ns,same_data");
  EXPECT_EQ(std::count(r.csv.begin(), r.csv.end(), '\n'), 1 + 2 * 4);
}

// The checksums see the statements: another number of replaces ends emp
// with other salaries (and the TP1 relations with the same data as before).
TEST(ShortReport, TheDataChecksumFollowsTheReplaces) {
  Report a = run_short(kTiny + " --reps 1 --replaces 50"), b = run_short(kTiny + " --reps 1 --replaces 49");
  ASSERT_EQ(a.out.status, 0) << a.out.text;
  ASSERT_EQ(b.out.status, 0) << b.out.text;
  EXPECT_NE(cells(a, "emp").at("interp:switch").at("checksums").at("emp"),
            cells(b, "emp").at("interp:switch").at("checksums").at("emp"));
  EXPECT_EQ(cells(a, "tp1").at("interp:switch").at("checksums"), cells(b, "tp1").at("interp:switch").at("checksums"));
}

TEST(ShortReport, BadOptionsAreUsageErrors) {
  for (const char* args : {"--replaces 0", "--workload nope", "--emp-rows x", "--reps 0"}) {
    Out o = sh(kBin + " short " + args + " 2>&1");
    EXPECT_EQ(o.status, 2) << args << "\n" << o.text;
    EXPECT_NE(o.text.find("error"), std::string::npos) << args << "\n" << o.text;
  }
}

}  // namespace
}  // namespace quelkit::test
