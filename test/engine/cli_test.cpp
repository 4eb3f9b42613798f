// The quelkit command as a user runs it: exit statuses (0 ok, 1 a statement
// failed, 2 bad usage), the terminal monitor's commands, --stats=json fields,
// and `gen parts` output byte-identical to the independent oracle's CSV.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

struct Out {
  int status = -1;
  std::string text;
};

// Runs a shell command, capturing stdout and stderr together.
Out sh(const std::string& cmd) {
  Out o;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.text.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

const std::string kBin = std::string(QUELKIT_BINARY_DIR) + "/bin/quelkit";

TEST(Cli, ExitStatuses) {
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = 1)'").status, 0);
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = 1 / 0)'").status, 1);
  EXPECT_EQ(sh(kBin + " -e 'retrieve (a = '").status, 1);
  EXPECT_EQ(sh(kBin + " --no-such-option").status, 2);
  EXPECT_EQ(sh(kBin + " -b nosuch -e 'retrieve (a = 1)'").status, 2);
  EXPECT_EQ(sh(kBin + " -b interp:nosuch -e 'retrieve (a = 1)'").status, 2);
  EXPECT_EQ(sh(kBin + " --parts abc").status, 2);
  EXPECT_EQ(sh(kBin + " --dump=nosuch -e 'retrieve (a = 1)'").status, 2);
  Out missing = sh(kBin + " /nonexistent/script.quel");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.text.find("cannot open"), std::string::npos);
}

TEST(Cli, ErrorsQuoteTheLineWithACaret) {
  Out o = sh(kBin + " -e 'retrieve (a = 1)\nretrieve (b = 1 +)'");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.text.find("<-e 1>:2:18: error:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("  retrieve (b = 1 +)\n                   ^"), std::string::npos) << o.text;
}

TEST(Cli, MonitorRunsBufferOnGoAndResets) {
  Out o = sh("printf 'retrieve (a = 1)\\n\\\\p\\n\\\\g\\nretrieve (b = 2)\\n\\\\r\\nretrieve (c = 3)\\n\\\\g\\n\\\\q\\n' | " + kBin +
             " --format csv");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("retrieve (a = 1)\na\n1\n"), std::string::npos) << o.text;  // \p then \g
  EXPECT_EQ(o.text.find("b\n2"), std::string::npos) << o.text;                      // \r dropped it
  EXPECT_NE(o.text.find("c\n3\n"), std::string::npos) << o.text;
}

TEST(Cli, StatsJsonHasEveryField) {
  Out o = sh(kBin + " --parts 210 --format none --stats=json --repeat 3 -e 'range of p is parts "
                    "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight'");
  ASSERT_EQ(o.status, 0) << o.text;
  for (const char* f : {"\"stmt\":", "\"line\":", "\"backend\":\"interp\"", "\"mode\":\"switch\"", "\"jit_opt\":",
                        "\"access_path\":", "\"rows_scanned\":210", "\"rows_qualified\":44", "\"rows_out\":44",
                        "\"prepares\":1", "\"cache_hits\":0", "\"prepare_ns\":", "\"irgen_ns\":", "\"opt_ns\":",
                        "\"codegen_ns\":", "\"run_ns\":", "\"run_ns_min\":", "\"run_ns_max\":",
                        "\"checksum\":\"629a105994fe2a1e\"", "\"error\":null"})
    EXPECT_NE(o.text.find(f), std::string::npos) << f << "\n" << o.text;
}

TEST(Cli, GenCsvIsByteIdenticalToTheOracle) {
  if (sh("python3 --version").status != 0) GTEST_SKIP() << "python3 not installed";
  const std::string oracle = std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/oracle.py";
  for (const char* args : {"--rows 1", "--rows 210", "--rows 3360", "--rows 3360 --wide", "--rows 40000"}) {
    SCOPED_TRACE(args);
    Out ours = sh(kBin + " gen parts " + args);
    Out theirs = sh("python3 " + oracle + " csv " + args);
    ASSERT_EQ(ours.status, 0);
    ASSERT_EQ(theirs.status, 0);
    EXPECT_EQ(ours.text, theirs.text);
  }
}

TEST(Cli, SeveralBackEndsAgree) {
  Out o = sh(kBin + " --parts 3360:isam:wide -b all --format none -e 'range of p is parts range of q is parts "
                    "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"'");
  EXPECT_EQ(o.status, 0) << o.text;
}

}  // namespace
