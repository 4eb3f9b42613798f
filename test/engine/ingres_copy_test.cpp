// copy in University INGRES's formats as statements: round trips of the
// PARTS relation in every format and the kit's CSV, then retrieves over what was read, on
// every back end; the copy manual page's examples; and the statement's
// errors, with their carets, and that a failed copy adds nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "support.h"

namespace quelkit::test {
namespace {

std::string temp_file(const std::string& leaf) {
  return ::testing::TempDir() + "/quelkit_ingres_" + std::to_string(::getpid()) + "_" + leaf;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

class IngresCopy : public ::testing::TestWithParam<std::string> {};

TEST_P(IngresCopy, EveryFormatAndTheCsvRoundTripAndRetrieveTheSameTuples) {
  Kit k(GetParam());
  k.add_parts(210);
  const std::string file = temp_file("parts");
  // Each list writes PARTS and reads it back as written: the kit's CSV
  // (a list of i/f/cN alone), then INGRES's formats.
  const char* const lists[] = {
      "(pnum = i2, pname = c20, color = c8, weight = i2, qoh = i2)",
      "()",
      "(pnum = i2, pname = c20, color = c8, weight = i2, qoh = i2, nl = d1)",
      "(qoh = i4, color = c0tab, pname = c0comma, weight = f8, pnum = c0nl)",
      "(pnum = c6, pname = c0\"|\", color = c0sp, weight = c0colon, qoh = \"c0&\", nl = d1)",
      "(pname = c25, pnum = i4, color = c8, weight = i4, qoh = c0nl)",
      // binary fields alone, no record separator: INGRES's only when asked
      "(qoh = i2, weight = f4, pnum = i4, color = c8, pname = c20) with ingres",
  };
  for (const std::string list : lists) {
    SCOPED_TRACE(list);
    const size_t with = list.find(" with ");
    const std::string cols = list.substr(0, with), tail = with == std::string::npos ? "" : list.substr(with);
    auto r = k.run("copy parts " + cols + " into \"" + file + "\"" + tail);
    ASSERT_TRUE(r.ok) << r.err;
    r = k.run(std::string("create p2 (pnum = i2, pname = c20, color = c8, weight = i2, qoh = i2)\n") +
              "copy p2 " + cols + " from \"" + file + "\"" + tail + "\n" +
              "range of a is parts range of b is p2\n"
              "retrieve (n = a.pnum) where a.pnum = b.pnum and a.pname = b.pname and a.color = b.color\n"
              "                            and a.weight = b.weight and a.qoh = b.qoh");
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(k.session().catalog().find("p2")->ntuples(), 210u);
    // Every tuple read back equals its original in every attribute (pnum is
    // unique), so a copy that lost or mangled any column matches fewer.
    EXPECT_EQ(k.last_report().stats.rows_out, 210u);
    // 210 records of 38 bytes: INGRES's binary, not a CSV.
    if (!tail.empty()) {
      EXPECT_EQ(std::filesystem::file_size(file), 210u * 38);
    }
    ASSERT_TRUE(k.run("destroy p2").ok);
  }
  std::remove(file.c_str());
}

TEST_P(IngresCopy, TheManualsExamplesRun) {
  Kit k(GetParam());
  const std::string mine = temp_file("myfile"), yours = temp_file("yourfile"), ours = temp_file("ourfile");
  // copy emp (name=c10,sal=f4,bdate=i2,mgr=c10,xxx=d1) from "/mnt/me/myfile"
  std::string fixed;
  auto record = [&](const char* name, float sal, int16_t bdate, const char* mgr) {
    fixed += (std::string(name) + "          ").substr(0, 10);
    fixed.append(reinterpret_cast<const char*>(&sal), 4).append(reinterpret_cast<const char*>(&bdate), 2);
    fixed += (std::string(mgr) + "          ").substr(0, 10) + "\n";
  };
  record("Blow, Joe", 9000.5f, 1950, "Smith");
  record("Ross", 12000, 1944, "");
  record("Smith", 15000, 1931, "Ross");
  write_file(mine, fixed);
  auto r = k.run("create emp (name = c10, sal = f4, bdate = i2, mgr = c10)\n"
                 "copy emp (name=c10,sal=f4,bdate=i2,mgr=c10,xxx=d1) from \"" + mine + "\"\n"
                 "copy emp (name=c0,comma=d1,sal=c0,nl=d1) into \"" + yours + "\"\n"
                 "range of e is emp\n"
                 "retrieve (e.name, e.sal) where e.bdate < 1945 sort by sal");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_NE(r.out.find("name,sal\nRoss,12000.0\nSmith,15000.0\n"), std::string::npos) << r.out;
  std::ifstream in(yours, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "Blow\\, Joe ,9000.5\nRoss      ,12000\nSmith     ,15000\n");
  // The bulk copy into a file and back from it: the same tuples again.
  r = k.run("copy emp () into \"" + ours + "\"\n"
            "copy emp () from \"" + ours + "\"\n"
            "retrieve unique (e.name, e.sal, e.bdate, e.mgr)");
  ASSERT_TRUE(r.ok) << r.err;
  EXPECT_EQ(k.session().catalog().find("emp")->ntuples(), 6u);
  EXPECT_EQ(k.last_report().stats.rows_out, 3u);
  for (const auto& f : {mine, yours, ours}) std::remove(f.c_str());
}

INSTANTIATE_TEST_SUITE_P(AllBackends, IngresCopy, ::testing::ValuesIn(all_backend_modes()), backend_test_name);

struct CopyErr {
  std::string text;
  const char* message;  // substring of the message
  const char* col;      // column on its line
};

TEST(IngresCopyErrors, AtTheirCaretAndAFailedCopyAddsNothing) {
  const std::string file = temp_file("bad");
  const std::string lines = "1,a\n2,b\n3,c\n4x,d\n5,e\n";
  const CopyErr cases[] = {
      {"copy parts (pnum = c0xx) from \"" + file + "\"", "'c0xx' is not a copy format", "20"},
      {"copy parts (pnum = c0\"ab\") from \"" + file + "\"", "is not a copy format", "20"},
      {"copy parts (pnum = d1nl) into \"" + file + "\"", "is not a copy format", "20"},
      {"copy parts (pnum = c0, pname = c0nl) from \"" + file + "\"", "_bad:4: column pnum: \"4x\" is not an integer",
       "43"},
      {"copy parts (pnum = c0, pnum = c0nl) from \"" + file + "\"", "attribute pnum listed twice", "24"},
      {"copy parts (pnum = c0, xyz = d1) into \"" + file + "\"", "'xyz' names none", "24"},
      {"copy parts (pnum = c0, nope = c0nl) from \"" + file + "\"", "no attribute nope", "24"},
      {"copy parts () from \"" + file + ".bin\"", "record 1 (byte 30): column weight: the file ends after 1 of its 2 bytes", "20"},
  };
  write_file(file, lines);
  write_file(file + ".bin", std::string(31, 'z'));  // PARTS' tuple is 34 bytes
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Kit k;
    k.add_parts(10);
    // Inside a transaction: the copy's failure undoes the append before it.
    auto r = k.run("begin append to parts (pnum = 99)\n" + c.text, "e.quel");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.err.find(std::string("e.quel:2:") + c.col + ": error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    k.run("abort");
    EXPECT_EQ(k.session().catalog().find("parts")->ntuples(), 10u);
    // Alone, too: nothing added, and the session goes on.
    EXPECT_FALSE(k.run(c.text).ok);
    EXPECT_EQ(k.session().catalog().find("parts")->ntuples(), 10u);
    EXPECT_TRUE(k.run("retrieve (parts.pnum) where parts.pnum = 3").ok);
  }
  std::remove(file.c_str());
  std::remove((file + ".bin").c_str());
}

}  // namespace
}  // namespace quelkit::test
