// The Wisconsin workload end to end: `v.all` in retrieve (terminal and into),
// append and replace on every back end, checked against the generator's own
// rows; `copy` reading what `gen wisconsin` writes; `gen wisconsin` byte-
// identical to the independent oracle's CSV; and each of the study's figure
// scripts (bench/workloads/wisconsin) run by `quelkit -b all` on heap, ISAM and hash
// relations, where every back end must agree on every statement.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "bench/workloads/wisconsin.h"
#include "support.h"

namespace quelkit::test {
namespace {

using harness::Structure;

const std::string kBin = std::string(QUELKIT_BINARY_DIR) + "/bin/quelkit";
const std::string kSrc = QUELKIT_SOURCE_DIR;

std::string temp_path(const std::string& what) {
  return ::testing::TempDir() + "/quelkit_wisc_" + std::to_string(::getpid()) + "_" + what;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Runs `cmd` with stdout and stderr into *out; its exit status.
int shell(const std::string& cmd, std::string* out) {
  std::string file = temp_path("out.txt");
  int st = std::system((cmd + " >" + file + " 2>&1").c_str());
  *out = read_file(file);
  std::remove(file.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// The first `rows` records of the generator's CSV, header first.
std::string csv_head(uint64_t n, uint64_t seed, size_t rows) {
  std::ostringstream os;
  harness::write_wisconsin_csv(os, n, seed);
  std::string s = os.str();
  size_t at = 0;
  for (size_t i = 0; i <= rows && at != std::string::npos; ++i) at = s.find('\n', at) + 1;
  return s.substr(0, at);
}


class WisconsinAll : public ::testing::TestWithParam<std::string> {
 protected:
  // w: 40 tuples on a heap (seed 1983); v: 40 tuples, ISAM on unique2, seed 1984.
  void SetUp() override {
    k_ = std::make_unique<Kit>(GetParam());
    k_->session().catalog().add(harness::make_wisconsin(40, Structure::Heap, harness::kDefaultPageSize, "w"));
    k_->session().catalog().add(
        harness::make_wisconsin(40, Structure::Isam, harness::kDefaultPageSize, "v", harness::kWisconsinSeed + 1));
  }
  std::unique_ptr<Kit> k_;
};

TEST_P(WisconsinAll, RetrieveAllIsEveryAttributeInOrder) {
  auto r = k_->run("retrieve (w.all)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, csv_head(40, harness::kWisconsinSeed, 40));
  r = k_->run("range of x is v retrieve (x.all) where x.unique2 < 7");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, csv_head(40, harness::kWisconsinSeed + 1, 7));
}

TEST_P(WisconsinAll, RetrieveIntoKeepsNamesAndFormats) {
  // retrieve into stores its tuples sorted on every domain (unique1 first):
  // read back in unique2's order, they are the relation's first ten.
  auto r = k_->run("retrieve into t (w.all) where w.unique2 < 10  retrieve (t.all) sort by unique2");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find(csv_head(40, harness::kWisconsinSeed, 10)), std::string::npos) << r.out;
  const auto& got = k_->session().catalog().find("t")->schema();
  Schema want = harness::wisconsin_schema();
  ASSERT_EQ(got.attrs.size(), want.attrs.size());
  for (size_t i = 0; i < want.attrs.size(); ++i) {
    EXPECT_EQ(got.attrs[i].name, want.attrs[i].name);
    EXPECT_EQ(got.attrs[i].type, want.attrs[i].type);
  }
  EXPECT_EQ(got.tuple_len, 208u);
}

TEST_P(WisconsinAll, JoinWithAll) {
  auto r = k_->run("retrieve (w.all, v.unique1) where w.unique2 = v.unique2 and v.unique2 < 5");
  ASSERT_TRUE(r.ok) << r.err;
  std::istringstream lines(csv_head(40, harness::kWisconsinSeed, 5));
  auto v1 = harness::wisconsin_unique1(40, harness::kWisconsinSeed + 1);
  std::string want, line;
  for (int i = -1; std::getline(lines, line); ++i) want += line + "," + (i < 0 ? "unique1" : std::to_string(v1[size_t(i)])) + "\n";
  EXPECT_EQ(r.out, want);
}

TEST_P(WisconsinAll, AppendAndReplaceAll) {
  auto r = k_->run("retrieve into t (w.all) where w.unique2 < 3\n"
                   "append to t (v.all) where v.unique2 >= 38\n"
                   "replace t (v.all) where t.unique2 = v.unique2 and t.unique2 = 1\n"
                   "retrieve (t.all) sort by unique2");
  ASSERT_TRUE(r.ok) << r.err;
  std::string w = csv_head(40, harness::kWisconsinSeed, 40), v = csv_head(40, harness::kWisconsinSeed + 1, 40);
  auto record = [](const std::string& csv, int i) {  // record i (0 = header)
    std::istringstream in(csv);
    std::string line;
    for (int k = 0; k <= i; ++k) std::getline(in, line);
    return line + "\n";
  };
  std::string want = record(w, 0) + record(w, 1) + record(v, 2) + record(w, 3) + record(v, 39) + record(v, 40);
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, WisconsinAll, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

// `copy` reads what `gen wisconsin` writes, attribute for attribute.
TEST(Wisconsin, CopyLoadsTheGeneratedCsv) {
  std::string file = temp_path("copy.csv");
  {
    std::ofstream f(file, std::ios::binary);
    harness::write_wisconsin_csv(f, 300);
  }
  std::string cols;
  for (const auto& a : harness::wisconsin_schema().attrs)
    cols += (cols.empty() ? "" : ", ") + a.name + " = " + type_name(a.type);
  Kit k;
  auto r = k.run("create c (" + cols + ")\ncopy c (" + cols + ") from \"" + file + "\"\nretrieve (c.all)");
  std::remove(file.c_str());
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find(csv_head(300, harness::kWisconsinSeed, 300)), std::string::npos);
}

TEST(Wisconsin, GenIsByteIdenticalToTheOracle) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not found";
  for (const char* args : {"--rows 1", "--rows 1000", "--rows 1000 --seed 1984", "--rows 10000"}) {
    SCOPED_TRACE(args);
    std::string ours_file = temp_path("gen.csv"), ours, theirs, out;
    ASSERT_EQ(shell(kBin + " gen wisconsin " + args + " --csv " + ours_file, &out), 0) << out;
    ours = read_file(ours_file);
    std::remove(ours_file.c_str());
    ASSERT_EQ(shell("python3 " + kSrc + "/test/oracle/oracle.py wisconsin " + args, &theirs), 0) << theirs;
    EXPECT_EQ(ours, theirs);
  }
}

TEST(Wisconsin, UsageErrors) {
  std::string out;
  EXPECT_EQ(shell(kBin + " --wisconsin abc -e 'retrieve (a = 1)'", &out), 2) << out;
  EXPECT_NE(out.find("--wisconsin"), std::string::npos) << out;
  EXPECT_EQ(shell(kBin + " --wisconsin study:seed=3", &out), 2) << out;
  EXPECT_EQ(shell(kBin + " gen wisconsin", &out), 2) << out;
  EXPECT_EQ(shell(kBin + " gen wisconsin --rows 3 --wide", &out), 2) << out;
  EXPECT_EQ(shell(kBin + " gen parts --rows 3 --seed 4", &out), 2) << out;
  EXPECT_EQ(shell(kBin + " --wisconsin t=5:hash -e 'help t'", &out), 0) << out;
  EXPECT_NE(out.find("hash on unique2"), std::string::npos) << out;
}

// The study's figures, each on every built back end at once.
class WisconsinFigures : public ::testing::TestWithParam<std::string> {};

TEST_P(WisconsinFigures, EveryBackEndAgrees) {
  std::string fig = GetParam().substr(0, GetParam().find(':'));
  std::string structure = GetParam().substr(GetParam().find(':') + 1);
  std::string out;
  int st = shell(kBin + " -b all --format none --wisconsin study:" + structure + " " + kSrc + "/bench/workloads/wisconsin/" +
                     fig + ".quel",
                 &out);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out.find("error"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Study, WisconsinFigures,
                         ::testing::Values("fig2_1:heap", "fig2_1:isam", "fig2_1:hash", "fig2_4:heap",
                                           "fig2_4:isam", "fig2_4:hash", "fig2_5:heap", "fig2_5:isam",
                                           "fig2_5:hash", "fig2_6:heap", "fig2_6:isam", "fig2_6:hash", "aggregates:heap",
                                           "aggregates:isam", "aggregates:hash", "fig3_11:heap"),
                         backend_test_name);

}  // namespace
}  // namespace quelkit::test
