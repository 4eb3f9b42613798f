// Smaller defects of issue 67, each as a user meets it: a --wisconsin
// relation named by a keyword (no statement could name it), a 100 KB name in
// an error message, PARTS' tuple bound said alike for --parts and gen parts
// --rows however many digits, and the overflow pages README says the keyed
// --parts structures have.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>

#include "frontend/lexer.h"
#include "test/engine/shell.h"

namespace quelkit::test {
namespace {

bool has(const Out& o, const std::string& s) { return o.text.find(s) != std::string::npos; }

TEST(SmallDefects, AWisconsinRelationCannotBeNamedByAKeyword) {
  // Every reserved word, from the lexer's own list, in any case.
  const char* words[] = {
#define QK_TEST_WORD(ID, SPELL) SPELL,
      QK_KEYWORDS(QK_TEST_WORD)
#undef QK_TEST_WORD
  };
  for (std::string w : words) {
    if (w == "delete") w = "DeLeTe";
    Out o = sh(kBin + " --wisconsin " + w + "=10 -e 'help'");
    EXPECT_EQ(o.status, 2) << w << ": " << o.text;
    EXPECT_TRUE(has(o, "'" + w + "' is a QUEL keyword, which cannot name a relation")) << o.text;
  }
  Out o = sh(kBin + " --wisconsin retrieved=10 -e 'retrieve (n = count(retrieved.unique1))'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(has(o, "|10|")) << o.text;
}

// The script in a file: one argument of a command line holds at most 128 KiB.
Out run_script(const std::string& text) {
  char path[] = "/tmp/quelkit-long-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return {};
  close(fd);
  std::ofstream(path, std::ios::binary) << text;
  Out o = sh(kBin + " " + path);
  unlink(path);
  return o;
}

TEST(SmallDefects, ALongNameIsCutInMessagesAsALongTokenIs) {
  const std::string name(100000, 'x');
  const std::string cut = "'" + std::string(29, 'x') + "...'";
  // A name error (the binder's message) and a syntax error (the token found).
  for (const std::string& text : {"retrieve (a = " + name + ".b)", "retrieve (a = 1) " + name,
                                  "range of p is " + name}) {
    Out o = run_script(text);
    EXPECT_EQ(o.status, 1);
    EXPECT_TRUE(has(o, cut)) << o.text.substr(0, 300);
    EXPECT_LT(o.text.size(), 1000u) << o.text.substr(0, 300);
  }
  // A runtime error names its relation cut the same way.
  Out o = run_script("create " + name + " (n = i4) append to " + name + " (n = 0) range of r is " + name +
                     " retrieve (d = 1 / r.n)");
  EXPECT_EQ(o.status, 1);
  // (append's message "(1 row appended to ...)" is no error: it names the relation whole.)
  const size_t error = o.text.find(": error: ");
  ASSERT_NE(error, std::string::npos) << o.text.substr(0, 300);
  EXPECT_TRUE(has(o, "(relation " + std::string(29, 'x') + "..., tuple 1)")) << o.text.substr(error, 300);
  EXPECT_LT(o.text.size() - error, 1000u) << o.text.substr(error, 300);
  // Prose between quotes is not a token: kept whole.
  o = sh(kBin + " -e 'retrieve (a = 1) \\p'");
  EXPECT_TRUE(has(o, "works only in the terminal monitor (a script may use \\g, \\i and \\q)")) << o.text;
}

TEST(SmallDefects, PartsCountsHaveOneBoundAndOneMessage) {
  for (const std::string n : {"2147483648", "4294967297", "1000000000000", "99999999999999999999999"}) {
    for (const std::string& cmd : {kBin + " --parts " + n + " -e 'help'", kBin + " gen parts --rows " + n,
                                   kBin + " --parts " + n + ":isam:wide -e 'help'"}) {
      Out o = sh(cmd);
      EXPECT_EQ(o.status, 2) << cmd << ": " << o.text;
      EXPECT_TRUE(has(o, " " + n + ": at most 2147483647 tuples (pnum is an i4)")) << cmd << ": " << o.text;
    }
  }
  Out o = sh(kBin + " gen parts --rows 3");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "pnum,pname,color,weight,qoh\n1,piston,yellow,55,374\n2,gasket,red,77,374\n3,valve,brown,61,483\n");
  o = sh(kBin + " gen parts --rows 3x");
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_TRUE(has(o, "--rows needs a number of tuples, not '3x'")) << o.text;
}

// README: the keyed setup appends 130 of 3360 tuples after modify; ISAM puts
// them in overflow pages, hash into its buckets' free space but for :wide.
TEST(SmallDefects, TheKeyedPartsOverflowAsTheReadmeSays) {
  const std::pair<std::string, std::string> cases[] = {{"isam", "197 (116 primary, 81 overflow)"},
                                                       {"isam:wide", "767 (646 primary, 121 overflow)"},
                                                       {"hash", "231 (231 primary, 0 overflow)"},
                                                       {"hash:wide", "1652 (1615 primary, 37 overflow)"}};
  for (const auto& [spec, pages] : cases) {
    Out o = sh(kBin + " --parts 3360:" + spec + " -e 'help parts'");
    EXPECT_EQ(o.status, 0) << o.text;
    EXPECT_TRUE(has(o, "Pages:               " + pages)) << spec << ": " << o.text;
  }
}

}  // namespace
}  // namespace quelkit::test
