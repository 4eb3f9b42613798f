// `quelkit profile`: the instruction counts users get from --instructions (the
// 1976 interpreter's symbol fetch is a real share of its work on query (d),
// generated functions carry their statement's name, two runs count the same,
// stencil counts stay right when the arena reuses pages),
// the fallback to callgrind when perf cannot sample, and the pieces that name
// routines and read perf maps and callgrind files. Nothing here needs perf to
// be permitted; the callgrind tests skip when valgrind is missing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backends.h"
#include "profile/aggregate.h"
#include "profile/callgrind_reader.h"
#include "profile/classify.h"
#include "profile/perf_reader.h"
#include "engine/backend.h"
#include "jit/perfmap.h"
#include "test/distinct_shapes.h"

namespace {

namespace prof = quelkit::profile;
using nlohmann::json;

const std::string kBin = std::string(QUELKIT_BINARY_DIR) + "/bin/quelkit";

struct Out {
  int status = -1;
  std::string out, err;
};

// Runs a shell command; stdout and stderr apart (stdout is the JSON).
Out sh(const std::string& cmd) {
  Out o;
  char errf[] = "/tmp/quelkit-profile-test-XXXXXX";
  int fd = mkstemp(errf);
  if (fd >= 0) close(fd);
  FILE* p = popen((cmd + " 2>" + errf).c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream f(errf);
  o.err.assign(std::istreambuf_iterator<char>(f), {});
  std::remove(errf);
  return o;
}

bool have_valgrind() { return sh("valgrind --version").status == 0; }

#define NEED_VALGRIND()                                                                     \
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed: --instructions cannot run"

// `quelkit profile --instructions --json` on the paper's query (d) at 210
// tuples: short, and every routine of the run phase is there.
json instructions(const std::string& backends, const std::string& extra = "") {
  Out o = sh(kBin + " profile --instructions --json --no-prepare --reps 1 --parts 210 --query d -b " + backends + " " +
             extra);
  EXPECT_EQ(o.status, 0) << o.err;
  if (o.status != 0) return json();
  return json::parse(o.out);
}

const json* routine(const json& backend, const std::string& name) {
  for (const auto& r : backend.at("routines"))
    if (r.at("routine").get<std::string>() == name) return &r;
  return nullptr;
}

std::vector<std::string> jit_backends() {
  quelkit::register_all_backends();
  std::vector<std::string> v;
  for (const char* b : {"llvm", "gccjit", "stencil"})
    if (quelkit::harness::find_backend(b)) v.push_back(b);
  return v;
}

TEST(ProfileInstructions, InterpreterSymbolFetchOnQueryD) {
  NEED_VALGRIND();
  json j = instructions("interp:all");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.at("method").get<std::string>(), "callgrind");
  ASSERT_EQ(j.at("backends").size(), 2u);  // switch and goto
  for (const auto& b : j.at("backends")) {
    SCOPED_TRACE(b.at("label").get<std::string>());
    const json* gs = routine(b, "interp::getsymbol");
    ASSERT_NE(gs, nullptr);
    EXPECT_GE(gs->at("percent").get<double>(), 5.0);
    EXPECT_EQ(gs->at("role").get<std::string>(), "GETSYMBOL");
    const json* in = routine(b, "interp::interpret");
    ASSERT_NE(in, nullptr);
    EXPECT_GE(in->at("percent").get<double>(), 5.0);
    // log(9.5) is computed per tuple (no folding in 1976): the logarithm shows.
    double log = 0;
    for (const auto& r : b.at("routines"))
      if (r.at("role").get<std::string>() == "LOG") log += r.at("percent").get<double>();
    EXPECT_GT(log, 1.0);
    // Table 3 beside it, with the counterpart of GETSYMBOL.
    ASSERT_EQ(b.at("table3").size(), 8u);
    EXPECT_EQ(b.at("table3").at(0).at("routine").get<std::string>(), "GETSYMBOL");
    EXPECT_DOUBLE_EQ(b.at("table3").at(0).at("paper_percent").get<double>(), 17.1);
    EXPECT_GE(b.at("table3").at(0).at("percent").get<double>(), 5.0);
    // Each row's counterpart accounts for every routine of its role: those it
    // names, and "+ N more" for the rest its share holds.
    for (const auto& row : b.at("table3")) {
      SCOPED_TRACE(row.at("routine").get<std::string>());
      int of_role = 0;
      for (const auto& r : b.at("routines"))
        of_role += r.at("role").get<std::string>() == row.at("routine").get<std::string>();
      const std::string& names = row.at("counterpart").get<std::string>();
      int accounted = names.empty() ? 0 : 1;
      for (size_t at = names.find(" + "); at != std::string::npos; at = names.find(" + ", at + 3)) {
        const std::string rest = names.substr(at + 3);
        const size_t more = rest.find(" more");
        accounted += more != std::string::npos && rest.find(" + ") == std::string::npos ? std::stoi(rest) : 1;
      }
      EXPECT_EQ(accounted, of_role) << names;
    }
    // 210 tuples, one evaluation: instructions per tuple is total / 210.
    const json& st = b.at("statements").at(0);
    EXPECT_EQ(st.at("tuples").get<double>(), 210);
    EXPECT_NEAR(st.at("instructions_per_tuple").get<double>(), st.at("instructions").get<double>() / 210.0, 0.01);
  }
}

// The split by subsystem charges each instruction once: the kit's own
// routines, and a library routine's to the kit routines above it.
TEST(ProfileInstructions, SubsystemsAddUpToTheWhole) {
  NEED_VALGRIND();
  std::string list = "interp,threaded";
  for (const auto& j : jit_backends()) list += "," + j;
  json j = instructions(list);
  ASSERT_TRUE(j.is_object());
  ASSERT_GE(j.at("backends").size(), 2u);
  for (const auto& b : j.at("backends")) {
    SCOPED_TRACE(b.at("label").get<std::string>());
    for (const char* split : {"subsystems", "subsystems_self"}) {
      double sum = 0;
      for (const auto& [sub, share] : b.at(split).items()) sum += share.get<double>();
      EXPECT_NEAR(sum, 100.0, 0.1) << split;
    }
    // No routine named after a qualifier (what a nested lambda once became).
    for (const auto& r : b.at("routines")) EXPECT_NE(r.at("routine").get<std::string>(), "const");
  }
}

TEST(ProfileInstructions, GeneratedFunctionsAreNamed) {
  NEED_VALGRIND();
  std::vector<std::string> jits = jit_backends();
  if (jits.empty()) GTEST_SKIP() << "no JIT back end is built (llvm, gccjit): nothing generated to name";
  for (const auto& jit : jits) {
    SCOPED_TRACE(jit);
    json j = instructions(jit);
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j.at("backends").size(), 1u);
    const json& b = j.at("backends").at(0);
    // The statement is q3 (after two range declarations): its functions are
    // q3_qual / q3_project / q3_kernel, and they do real work.
    double named = 0, unnamed = 0;
    for (const auto& r : b.at("routines")) {
      if (std::regex_match(r.at("routine").get<std::string>(), std::regex("q3_(qual|project|kernel)"))) {
        named += r.at("percent").get<double>();
        EXPECT_EQ(r.at("subsystem").get<std::string>(), "evaluation");
        EXPECT_NE(r.at("what").get<std::string>().find("statement 3"), std::string::npos)
            << r.at("what").get<std::string>();
      }
      if (r.at("routine").get<std::string>().find("[JIT]") != std::string::npos)
        unnamed += r.at("percent").get<double>();
    }
    EXPECT_GT(named, 5.0);
    EXPECT_LT(unnamed, 0.5);
  }
}

TEST(ProfileInstructions, TwoRunsCountTheSame) {
  NEED_VALGRIND();
  std::string list = "interp,threaded";
  for (const auto& j : jit_backends()) list += "," + j;
  Out a = sh(kBin + " profile --instructions --json --no-prepare --reps 2 --parts 210 --query d -b " + list);
  Out b = sh(kBin + " profile --instructions --json --no-prepare --reps 2 --parts 210 --query d -b " + list);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  json ja = json::parse(a.out);
  ASSERT_GE(ja.at("backends").size(), 2u);
  for (const auto& be : ja.at("backends"))
    EXPECT_GT(be.at("total").get<double>(), 0) << be.at("label").get<std::string>();
  // Every count of every routine of every back end: the whole document.
  EXPECT_EQ(a.out, b.out);
}

// The options that shape a back end's code reach the profiled child as they
// reach a session (profile took --jit-opt and --jit-cpu alone): vector's
// batch of one tuple does its per-batch work per tuple, and the settings
// say which code ran.
TEST(ProfileInstructions, CodeOptionsShapeTheProfiledCode) {
  NEED_VALGRIND();
  quelkit::register_all_backends();
  if (!quelkit::harness::find_backend("vector")) GTEST_SKIP() << "vector is not built";
  const json dflt = instructions("vector");
  const json one = instructions("vector", "--vector-batch 1 --selection nobranch");
  ASSERT_TRUE(dflt.is_object());
  ASSERT_TRUE(one.is_object());
  EXPECT_TRUE(dflt.at("settings").at("vector_batch").is_null());  // the back end's default
  EXPECT_EQ(dflt.at("settings").at("selection").get<std::string>(), "auto");
  EXPECT_TRUE(dflt.at("settings").at("jit_checks").is_boolean());
  EXPECT_FALSE(dflt.at("settings").at("jit_checks").get<bool>());
  EXPECT_EQ(one.at("settings").at("vector_batch").get<double>(), 1);
  EXPECT_EQ(one.at("settings").at("selection").get<std::string>(), "nobranch");
  // Each back end's own, as --stats names them beside the mode.
  EXPECT_EQ(dflt.at("backends").at(0).at("settings").get<std::string>(), "batch 128");
  EXPECT_EQ(one.at("backends").at(0).at("settings").get<std::string>(), "batch 1");
  const double batched = dflt.at("backends").at(0).at("statements").at(0).at("instructions_per_tuple").get<double>();
  const double single = one.at("backends").at(0).at("statements").at(0).at("instructions_per_tuple").get<double>();
  ASSERT_GT(batched, 0);
  EXPECT_GT(single, 1.3 * batched) << "a batch of one tuple counted " << single << " instructions per tuple, "
                                   << "the default batch " << batched;
  // The text report's settings line names them too.
  if (quelkit::harness::find_backend("llvm")) {
    Out text = sh(kBin + " profile --instructions --no-prepare --reps 1 --parts 28 --query d -b llvm:fused "
                         "--jit-checks --selection branch");
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("settings: --jit-opt 1 (generic CPU), --jit-lookup-opt 0, --jit-checks, --selection branch, --page-size "),
              std::string::npos)
        << text.out.substr(0, 1000);
    EXPECT_NE(text.out.find("\n== llvm:fused [-O1, lookups -O0, generic CPU, checks] -- "), std::string::npos)
        << text.out.substr(0, 1000);
  }
}

// Statements a user profiles as a session runs them: one with aggregates
// (their inner queries first; it once failed to bind, "an aggregate cannot
// appear inside another aggregate"), a script read from standard input (the
// children's is /dev/null: it was an empty script), and an empty relation
// (no per-tuple figure, where it once said "1 tuple").
TEST(ProfileInstructions, AggregatesStandardInputAndEmptyRelations) {
  NEED_VALGRIND();
  Out o = sh("printf 'range of p is parts\\nretrieve (n = count(p.pnum where p.qoh > 100))\\n"
             "retrieve (p.color, m = max(p.qoh by p.color))\\n' | " +
             kBin + " profile --instructions --json --no-prepare --reps 1 --parts 50 -b interp -");
  ASSERT_EQ(o.status, 0) << o.err;
  json j = json::parse(o.out);
  const auto& stmts = j.at("backends").at(0).at("statements");
  ASSERT_EQ(stmts.size(), 2u);
  EXPECT_EQ(stmts.at(0).at("tuples").get<double>(), 50) << "the relation its aggregate scans";
  EXPECT_EQ(stmts.at(0).at("rows_out").get<double>(), 1);
  EXPECT_GT(stmts.at(0).at("instructions_per_tuple").get<double>(), 0);
  EXPECT_EQ(stmts.at(1).at("tuples").get<double>(), 50);
  Out empty = sh(kBin + " profile --instructions --json --no-prepare --reps 1 --parts 0 -b interp -e "
                        "'range of p is parts retrieve (p.pnum)'");
  ASSERT_EQ(empty.status, 0) << empty.err;
  json e = json::parse(empty.out);
  const json& st = e.at("backends").at(0).at("statements").at(0);
  EXPECT_EQ(st.at("tuples").get<double>(), 0);
  EXPECT_TRUE(st.at("instructions_per_tuple").is_null());
}

// Stencil code lives in an arena whose freed pages are reused (jit/stencil/
// arena.h): the profile clears the plan cache before each statement's cold
// prepare, so 80 statements of distinct plans (one arena page each, windows of
// 32 pages) put later plans on pages an earlier plan ran from under valgrind
// (the kept callgrind files showed the 80 kernels at 48 addresses). Counted
// after that reuse, every statement still returns its own rows (the new code
// ran, not a stale translation of the old) and the last one costs what it
// costs profiled alone, its instructions charged to its own kernel's name:
// the perf map then names one address twice, and the latest name must win.
TEST(ProfileInstructions, StencilCountsAreRightAfterArenaPagesAreReused) {
  NEED_VALGRIND();
  quelkit::register_all_backends();
  if (!quelkit::harness::find_backend("stencil")) GTEST_SKIP() << "stencil is not built";
  const int kStatements = 80;
  std::string script = "range of p is parts";
  // Distinct shapes, so each kernel's code is its own: statements differing
  // only in a literal share their code, and a stale translation would return their rows.
  for (int k = 0; k < kStatements; ++k) script += " retrieve (p.pnum) where " + quelkit::test::distinct_shape_qual(k);
  const std::string last = "range of p is parts retrieve (p.pnum) where " + quelkit::test::distinct_shape_qual(kStatements - 1);
  const std::string common = " --parts 28 -b stencil:fused";

  // The rows each statement returns, natively, each plan prepared anew.
  Out native = sh(kBin + common + " --format none --no-plan-cache --stats=json -e '" + script + "'");
  ASSERT_EQ(native.status, 0) << native.err;
  std::vector<double> rows;
  std::istringstream lines(native.out);
  for (std::string ln; std::getline(lines, ln);) {
    json j = json::parse(ln);
    // Every statement has an object (range's too): the retrieves' rows.
    if (j.is_object() && j.value("statement", "") == "retrieve" && j.at("rows_out").is_number())
      rows.push_back(j.at("rows_out").get<double>());
  }
  ASSERT_EQ(rows.size(), size_t(kStatements));
  ASSERT_NE(rows.front(), rows.back()) << "the statements must differ in what they return";

  Out all = sh(kBin + " profile --instructions --json --reps 1" + common + " -e '" + script + "'");
  Out alone = sh(kBin + " profile --instructions --json --reps 1" + common + " -e '" + last + "'");
  ASSERT_EQ(all.status, 0) << all.err;
  ASSERT_EQ(alone.status, 0) << alone.err;
  json ja = json::parse(all.out), jl = json::parse(alone.out);
  const json& stmts = ja.at("backends").at(0).at("statements");
  ASSERT_EQ(stmts.size(), size_t(kStatements));
  for (int k = 0; k < kStatements; ++k)
    EXPECT_EQ(stmts.at(size_t(k)).at("rows_out").get<double>(), rows[size_t(k)]) << "statement " << k;

  const json& mine = stmts.back();
  const json& lone = jl.at("backends").at(0).at("statements").at(0);
  EXPECT_EQ(mine.at("rows_out").get<double>(), lone.at("rows_out").get<double>());
  const double a = mine.at("instructions_per_execution").get<double>(),
               b = lone.at("instructions_per_execution").get<double>();
  ASSERT_GT(b, 0);
  EXPECT_NEAR(a / b, 1.0, 0.02) << a << " instructions after reuse, " << b << " alone";
  const std::string kernel = "q" + std::to_string(int(mine.at("stmt").get<double>())) + "_kernel";
  const json* r = routine(ja.at("backends").at(0), kernel);
  ASSERT_NE(r, nullptr) << kernel << " is not among the routines: " << all.out.substr(0, 2000);
  EXPECT_GT(r->at("percent").get<double>(), 0.0);
}

TEST(Profile, FallsBackToCallgrindWhenPerfCannotSample) {
  NEED_VALGRIND();
  // No perf to sample with: the profile says so and counts instructions instead.
  Out o = sh(kBin + " profile --perf /nonexistent/perf --json --no-prepare --reps 1 --parts 28 --query d -b interp");
  ASSERT_EQ(o.status, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_EQ(j.at("method").get<std::string>(), "callgrind");
  EXPECT_NE(j.at("note").get<std::string>().find("sampling is not available"), std::string::npos)
      << j.at("note").get<std::string>();
  EXPECT_NE(j.at("machine").get<std::string>().find("cores"), std::string::npos)
      << o.out;  // what a reader needs to reproduce it
  EXPECT_EQ(j.at("settings").at("page_size").get<double>(), 1024);
  EXPECT_EQ(j.at("settings").at("parts").at(0).get<std::string>(), "28:heap");
  EXPECT_NE(o.err.find("sampling is not available"), std::string::npos) << o.err;
  EXPECT_NE(routine(j.at("backends").at(0), "interp::getsymbol"), nullptr);
}

// Ctrl-C (SIGINT to the profile alone, as `kill -INT` sends it) while a
// child runs: exit 130 and the temporary directory gone, where it once stayed
// with megabytes of samples. Under callgrind, so that it works without perf.
TEST(Profile, CancelledProfileLeavesNoTemporaryDirectory) {
  NEED_VALGRIND();
  char tmp[] = "/tmp/quelkit-profile-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmp), nullptr);
  const std::string dir = tmp;
  Out o = sh("{ TMPDIR=" + dir + " " + kBin + " profile --instructions --reps 200 --parts 3360 --query d -b interp & "
             "sleep 1.5; ls " + dir + " | grep -c quelkit-profile-; kill -INT $!; wait $!; echo rc=$?; ls " + dir + "; }");
  EXPECT_NE(o.out.find("1\nrc=130\n"), std::string::npos) << "the directory existed while it ran, then rc 130\n"
                                                              << o.out << o.err;
  EXPECT_EQ(o.out.substr(o.out.find("rc=130\n") + 7), "") << "left in " << dir << ": " << o.out;
  EXPECT_NE(o.err.find("quelkit profile: cancelled"), std::string::npos) << o.err;
  rmdir(dir.c_str());
}

// --keep after sampling: perf's data and the children's output, where the
// copy once stopped at perf's control FIFOs, kept nothing and exited 0.
TEST(Profile, KeepsTheRawFilesOfASample) {
  char tmp[] = "/tmp/quelkit-profile-keep-XXXXXX";
  ASSERT_NE(mkdtemp(tmp), nullptr);
  const std::string dir = tmp;
  Out o = sh(kBin + " profile --json --seconds 0.2 --parts 28 --query d -b interp --keep " + dir);
  ASSERT_EQ(o.status, 0) << o.err;
  if (json::parse(o.out).at("method").get<std::string>() != "perf") {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "perf cannot sample here";
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/perf.interp_switch.data")) << o.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/meta.interp:switch")) << o.err;
  EXPECT_EQ(o.err.find("could not copy"), std::string::npos) << o.err;
  std::filesystem::remove_all(dir);
  // Generated code's names go with it: perf's JIT map (kept data named
  // [JIT] and an address without it).
  if (sh(kBin + " -b llvm -e 'create t (a = i4)'").status != 0) return;  // llvm is not built
  char jit[] = "/tmp/quelkit-profile-keep-XXXXXX";
  ASSERT_NE(mkdtemp(jit), nullptr);
  o = sh(kBin + " profile --seconds 0.2 --parts 28 --query d -b llvm:fused --keep " + std::string(jit));
  ASSERT_EQ(o.status, 0) << o.err;
  bool map = false;
  for (const auto& f : std::filesystem::directory_iterator(jit))
    map = map || (f.path().filename().string().starts_with("perf-") && f.path().extension() == ".map" &&
                  f.file_size() > 0);
  EXPECT_TRUE(map) << o.err;
  std::filesystem::remove_all(jit);
}

TEST(Profile, UsageErrors) {
  EXPECT_EQ(sh(kBin + " profile").status, 2);
  // A script with no expression statement profiles nothing: said once, exit
  // 2 (it went on "the script failed under interp:switch", exit 1).
  {
    char tmp[] = "/tmp/quelkit-profile-empty-XXXXXX";
    ASSERT_NE(mkdtemp(tmp), nullptr);
    const std::string file = std::string(tmp) + "/create.quel";
    std::ofstream(file) << "create t (a = i4)\n";
    Out o = sh(kBin + " profile -b interp " + file);
    EXPECT_EQ(o.status, 2) << o.err;
    EXPECT_NE(o.err.find("nothing to profile: the script has no retrieve"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("failed"), std::string::npos) << o.err;
    std::filesystem::remove_all(tmp);
  }
  EXPECT_EQ(sh(kBin + " profile --query z").status, 2);
  EXPECT_EQ(sh(kBin + " profile --query de").status, 2);  // heap and keyed queries together
  EXPECT_EQ(sh(kBin + " profile -b nosuch --query d").status, 2);
  EXPECT_EQ(sh(kBin + " profile --help").status, 0);
  // Sampling's options contradict --instructions, which samples nothing.
  for (const char* opt : {"--seconds 1", "--freq 100", "--perf perf", "--cold", "--format csv"}) {
    Out o = sh(kBin + " profile --query a -b interp --instructions " + opt);
    EXPECT_EQ(o.status, 2) << opt << o.err;
    EXPECT_NE(o.err.find("--instructions counts with callgrind instead"), std::string::npos) << o.err;
  }
  Out o = sh(kBin + " profile --query a -b interp --keep ''");
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_NE(o.err.find("--keep: needs a directory, not ''"), std::string::npos) << o.err;
}

TEST(Profile, UnreadableScriptIsAnErrorAsInTheSession) {
  // Not a usage error: exit 1 and the session's wording, before any tool runs.
  const std::string missing = ::testing::TempDir() + "quelkit-no-such-script.quel";
  Out session = sh(kBin + " " + missing);
  Out profile = sh(kBin + " profile -b interp " + missing);
  EXPECT_EQ(session.status, 1) << session.err;
  EXPECT_EQ(profile.status, 1) << profile.err;
  EXPECT_EQ(profile.err, missing + ": error: cannot open: No such file or directory\n");
  EXPECT_EQ(session.err, profile.err);
}

// ---- the pieces, without tools ----

TEST(ProfileNames, ShortSymbols) {
  EXPECT_EQ(prof::short_symbol("quelkit::interp::getsymbol(quelkit::interp::Symbol const*, quelkit::interp::Cell*, "
                               "unsigned char const*)"),
            "interp::getsymbol");
  EXPECT_EQ(prof::short_symbol("quelkit::interp::(anonymous namespace)::PreparedProgram<quelkit::interp::"
                               "SwitchDispatch>::qualify(unsigned char const*, qk_ctx*)"),
            "interp::PreparedProgram<SwitchDispatch>::qualify");
  EXPECT_EQ(prof::short_symbol("log@@GLIBC_2.29"), "log");
  EXPECT_EQ(prof::short_symbol("quelkit::harness::print_table(std::ostream&, quelkit::Schema const&) [clone .cold]"),
            "harness::print_table");
  // perf cuts long names: a lambda belongs to its function all the same.
  EXPECT_EQ(prof::short_symbol("quelkit::harness::print_table(std::ostream&, quelkit::Schema const&, unsigned char "
                               "const*, unsigned long)::{lambda(std::__cxx11::basic_string<char, std::char_tr"),
            "harness::print_table");
  EXPECT_EQ(prof::short_symbol("std::_Function_handler<bool (unsigned int), quelkit::harness::Exec::execute(int)::{"
                               "lambda(unsigned int)#2}>::_M_invoke(std::_Any_data const&, unsigned int&&)"),
            "harness::Exec::execute");
  // A lambda inside a lambda: the outer one's call operator is const.
  EXPECT_EQ(prof::short_symbol("quelkit::harness::Exec::execute(quelkit::harness::Plan const&, bool)::{lambda(unsigned "
                               "int)#11}::operator()(unsigned int) const::{lambda(unsigned int)#2}::operator()("
                               "unsigned int) const"),
            "harness::Exec::execute");
  EXPECT_EQ(prof::short_symbol("quelkit::ir::shape(quelkit::ir::Node const&)'2"), "ir::shape");
  // Function templates: the return type goes; operators keep their words.
  EXPECT_EQ(prof::short_symbol("long quelkit::threaded::(anonymous namespace)::goto_run<true>(quelkit::threaded::"
                               "Node const*, long)"),
            "threaded::goto_run<true>");
  EXPECT_EQ(prof::short_symbol("operator new(unsigned long)"), "operator new");
  EXPECT_EQ(prof::short_symbol("(below main)"), "(below main)");
}

// callgrind's split by subsystem, with made-up counts: a kit routine sorts
// through the library, which calls the kit's comparator back and copies
// with memmove; malloc is called from two subsystems.
TEST(ProfileCharge, EachInstructionOnceCallbacksAsThemselves) {
  const prof::CostKey print{"quelkit", "quelkit::harness::print_table(std::ostream&, quelkit::Schema const&)"},
      sort{"quelkit", "std::__merge_sort_with_buffer<unsigned char const**>(unsigned char const**)"},
      compare{"quelkit", "quelkit::harness::compare_value(quelkit::Attribute const&, unsigned char const*)"},
      move{"libc.so.6", "memmove"}, alloc{"libc.so.6", "malloc"}, orphan{"libc.so.6", "_dl_start"};
  ASSERT_EQ(prof::classify(print, "").subsystem, "output");
  ASSERT_EQ(prof::classify(compare, "").subsystem, "scan and storage");
  ASSERT_EQ(prof::classify(sort, "").subsystem, "other");
  const std::map<prof::CostKey, double> self{{print, 10}, {sort, 20}, {compare, 30}, {move, 40},
                                             {alloc, 10}, {orphan, 5}};
  const std::map<std::pair<prof::CostKey, prof::CostKey>, double> calls{
      {{print, sort}, 90}, {{sort, compare}, 30}, {{sort, move}, 40}, {{sort, sort}, 20},  // and recursion
      {{print, alloc}, 6}, {{compare, alloc}, 4}};
  auto ch = prof::charge_subsystems(self, calls, "");
  EXPECT_DOUBLE_EQ(ch["output"], 10 + 20 + 40 + 6);  // print, the sort and its memmove, 6 of malloc's 10
  EXPECT_DOUBLE_EQ(ch["scan and storage"], 30 + 4);  // the comparator as itself, 4 of malloc's
  EXPECT_DOUBLE_EQ(ch["other"], 5);                  // no kit routine above it
  double all = 0;
  for (const auto& [sub, v] : ch) all += v;
  EXPECT_DOUBLE_EQ(all, 115);  // every instruction once
}

TEST(ProfileNames, Classify) {
  quelkit::register_all_backends();
  auto k = prof::classify("q3_kernel.17", "[JIT]", "llvm:fused");
  EXPECT_EQ(k.name, "q3_kernel");
  EXPECT_EQ(k.subsystem, "evaluation");
  EXPECT_NE(k.what.find("page kernel"), std::string::npos);
  EXPECT_NE(k.what.find("(llvm)"), std::string::npos);
  auto nb = prof::classify("q3_nb_kernel.4", "[JIT]", "gccjit:fused");
  EXPECT_EQ(nb.what, "generated page kernel (qualify + project), selecting without a branch, of statement 3 (gccjit)");
  auto s = prof::classify("q5_s1_qual.2", "[JIT]", "gccjit:qual");
  EXPECT_EQ(s.name, "q5_s1_qual");
  EXPECT_NE(s.what.find("substituted query 1"), std::string::npos) << s.what;
  // An aggregate's inner query (engine/aggregate.cpp names its plans q<k>_a<n>).
  EXPECT_EQ(prof::classify("q4_a2_nb_kernel", "[JIT]", "llvm:fused").what,
            "generated page kernel (qualify + project), selecting without a branch, of statement 4, aggregate query 2 "
            "(llvm)");
  EXPECT_EQ(prof::classify("q4_a1_s1_qual", "[JIT]", "llvm:qual").what,
            "generated qualification of statement 4, aggregate query 1, substituted query 1 (llvm)");
  EXPECT_EQ(prof::classify("quelkit::interp::getsymbol(quelkit::interp::Symbol const*)", "quelkit").role, "GETSYMBOL");
  EXPECT_EQ(prof::classify("quelkit::interp::interpret(quelkit::interp::SwitchDispatch)", "quelkit").role,
            "INTERPRET");
  EXPECT_EQ(prof::classify("__ieee754_log_fma", "/usr/lib/x86_64-linux-gnu/libm.so.6").role, "LOG");
  EXPECT_EQ(prof::classify("__memmove_avx_unaligned_erms", "libc.so.6").role, "BMOVE");
  auto h = prof::classify("quelkit::threaded::(anonymous namespace)::handler<3>(quelkit::threaded::Node const*)", "q");
  EXPECT_EQ(h.name, "threaded::handler<3>");
  EXPECT_EQ(h.what.rfind("node handler: ", 0), 0u) << h.what;
  EXPECT_EQ(prof::classify("llvm::SelectionDAG::Combine", "/usr/lib/llvm-19/lib/libLLVM.so.19.1").subsystem,
            "prepare/compile");
  EXPECT_EQ(prof::classify("quelkit::frontend::parse(std::shared_ptr<quelkit::Source const> const&)",
                           "/work/build-prof/bin/quelkit")
                .subsystem,
            "front end");
  // A build directory whose name looks like a tool's is still our binary.
  EXPECT_EQ(prof::classify("quelkit::harness::Relation::scan_pages(int) const", "/x/build-ld-as/bin/quelkit").subsystem,
            "scan and storage");
  // An address perf could not name is said to be that, with its object, not
  // described as what the object mostly holds (libstdc++: "containers").
  auto u = prof::classify("[unknown]", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30");
  EXPECT_EQ(u.name, "[unknown]");
  EXPECT_EQ(u.what, "addresses perf could not name, in libstdc++.so.6.0.30");
  EXPECT_EQ(prof::classify("", "[unknown]").what, "addresses perf could not name");
  EXPECT_NE(prof::classify("__vdso_clock_gettime", "[vdso]").what.find("clock_gettime"), std::string::npos);
}

TEST(ProfileMaps, CallgrindNamesJitAddressesFromThePerfMap) {
  char path[] = "/tmp/quelkit-profile-cg-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    f << "# callgrind format\nversion: 1\npositions: instr\nevents: Ir\n"
         "desc: Trigger: Client Request: quelkit-profile 2\n\n"
         "ob=???\nfl=???\nfn=0x0000000004a00000\n0x4a00000 10\n0x4a00010 5\n"
         "cob=/bin/q\ncfn=qk_rule_LOG_F8\ncalls=3 0x1000\n0x4a00014 900\n"
         "0x4a00100 7\n\n"
         "ob=/bin/q\nfl=x.cpp\nfn=quelkit::interp::getsymbol(int)\n0x1000 20\n0x1004 3\n";
  }
  std::vector<prof::MapEntry> map = {{0x4a00000, 0x20, "q3_qual.1"}};
  prof::CallgrindPart part;
  ASSERT_TRUE(prof::read_callgrind(path, map, part));
  std::remove(path);
  EXPECT_EQ(part.trigger, "quelkit-profile 2");
  EXPECT_EQ(part.total, 45u);  // the call's inclusive 900 is not self cost
  EXPECT_EQ((part.self[{"[JIT]", "q3_qual.1"}]), 15u);
  EXPECT_EQ((part.self[{"[JIT]", "[JIT] unnamed"}]), 7u);
  EXPECT_EQ((part.self[{"/bin/q", "quelkit::interp::getsymbol(int)"}]), 23u);
}

// perf cannot name code in a shared object loaded from a file since deleted
// (libgccjit's fake.so): it prints the address as an offset into the file.
// The mmap events place the file's code, and the perf map names it; the
// events themselves are not frames.
TEST(ProfileMaps, PerfScriptNamesCodeOfADeletedObjectFromThePerfMap) {
  std::istringstream in(
      "PERF_RECORD_MMAP2 7/7: [0x7f0000001000(0x1000) @ 0x1000 fe:00 11 22]: r-xp /tmp/libgccjit-ab/fake.so\n"
      "\n"
      "\t            1073 [unknown] (/tmp/libgccjit-ab/fake.so)\n"
      "\t          5a0000 quelkit::harness::Exec::execute() (/bin/quelkit)\n"
      "\n"
      "\t            1200 [unknown] (/tmp/libgccjit-ab/fake.so)\n"
      "\n");
  std::vector<prof::MapEntry> map = {{0x7f0000001050, 0x100, "q3_nb_kernel.1"}};
  prof::Costs c;
  prof::read_perf_script(in, "gccjit:fused", c, map);
  EXPECT_EQ((c.self[{"[JIT]", "q3_nb_kernel.1"}]), 1);
  EXPECT_EQ((c.self[{"/tmp/libgccjit-ab/fake.so", "[unknown]"}]), 1);  // outside every map entry
  double total = 0;
  for (const auto& [k, v] : c.self) total += v;
  EXPECT_EQ(total, 2);  // two samples: the event line is none
}

TEST(ProfileMaps, PerfMapWriterOnlyWhenEnabled) {
  namespace h = quelkit::harness;
  std::string path = h::perfmap_path();
  std::remove(path.c_str());
  static const char code[64] = {};
  h::perfmap_enable(false);
  h::perfmap_register(code, 16, "q1_qual.1");
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "disabled: no file";
  h::perfmap_enable(true);
  h::perfmap_register(code, 16, "q1_qual.1");
  h::perfmap_register(code + 16, 32, "q1_project.1");
  h::perfmap_register(code + 48, 0, "empty");  // nothing to name
  std::vector<prof::MapEntry> m = prof::read_perf_map(path);
  h::perfmap_close(true);
  h::perfmap_enable(false);
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "closed with remove";
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].name, "q1_qual.1");
  EXPECT_EQ(m[1].size, 32u);
  const prof::MapEntry* e = prof::find_in_map(m, reinterpret_cast<uintptr_t>(code) + 20);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "q1_project.1");
  EXPECT_EQ(prof::find_in_map(m, reinterpret_cast<uintptr_t>(code) + 48), nullptr);
}

}  // namespace
