// What runs of a script and of statements piped to the monitor: `\i FILE` in
// a script (files, -e texts) runs the file there, nested, a cycle refused at
// its \i, 16 deep at most; a syntax error stops the text it is in and the
// text that included it, while a name or runtime error skips only its own
// statement; piped in, the buffer stays after \g (a second \g runs it again)
// and a syntax error stops the rest of the input.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test/engine/shell.h"

namespace quelkit::test {
namespace {

class Scripts : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/quelkit-scripts-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // Writes `text` to `name` in the test's directory; returns its path.
  std::string file(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // quelkit run in the test's directory (\i names are the current directory's).
  Out run(const std::string& args) { return sh("cd " + dir_ + " && " + kBin + " " + args); }
  std::string dir_;
};

bool has(const Out& o, const std::string& s) { return o.text.find(s) != std::string::npos; }

TEST_F(Scripts, IncludeRunsTheFileThere) {
  file("b.quel", "retrieve (b = 2)\n\\q\nretrieve (never = 9)\n");
  file("a.quel", "retrieve (a = 1)\n\\i b.quel\nretrieve (c = 3)\n");
  Out o = run("a.quel");
  EXPECT_EQ(o.status, 0) << o.text;
  // In order, and the included file's \q ends that file alone.
  const size_t a = o.text.find("|a|"), b = o.text.find("|b|"), c = o.text.find("|c|");
  ASSERT_NE(a, std::string::npos) << o.text;
  ASSERT_NE(b, std::string::npos) << o.text;
  ASSERT_NE(c, std::string::npos) << o.text;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_FALSE(has(o, "never")) << o.text;
  // An -e text may include too, and a quoted name with blanks around it.
  o = run("-e '\\i  \"b.quel\"  '");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(has(o, "|b|")) << o.text;
}

TEST_F(Scripts, AnIncludedFilesErrorsNameIt) {
  file("b.quel", "retrieve (b = 2)\nretrieve (x = 1 / 0)\n");
  file("a.quel", "\\i b.quel\nretrieve (c = 3)\n");
  Out o = run("a.quel");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "b.quel:2:17: error: division by zero")) << o.text;
  EXPECT_TRUE(has(o, "|c|")) << o.text;  // a runtime error skips only its own statement
}

TEST_F(Scripts, AFileThatCannotBeIncludedIsAPositionedErrorOfItsOwn) {
  file("a.quel", "retrieve (a = 1)\n  \\i missing.quel\nretrieve (c = 3)\n");
  Out o = run("a.quel");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "a.quel:2:6: error: \\i missing.quel: cannot open")) << o.text;
  EXPECT_TRUE(has(o, "\n    \\i missing.quel\n       ^")) << o.text;
  EXPECT_TRUE(has(o, "|a|")) << o.text;
  EXPECT_TRUE(has(o, "|c|")) << o.text;
  o = run("-e '\\i'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "<-e 1>:1:1: error: \\i needs a file name")) << o.text;
}

TEST_F(Scripts, ACycleIsRefusedAtItsInclude) {
  // Directly and through another file: each file runs once; the \i that
  // would read a file being read is an error, not a loop.
  file("self.quel", "append to t (n = 1)\n\\i self.quel\n");
  file("a.quel", "append to t (n = 10)\n\\i b.quel\n");
  file("b.quel", "append to t (n = 100)\n\\i ./a.quel\n");
  for (const std::string& f : {"self.quel", "a.quel"}) {
    Out o = run("-e 'create t (n = i4)' " + f + " -e 'retrieve (s = sum(t.n))'");
    EXPECT_EQ(o.status, 1) << o.text;
    EXPECT_TRUE(has(o, "is being read already")) << o.text;
    EXPECT_TRUE(has(o, f == "a.quel" ? "|110|" : "|1|")) << o.text;
  }
}

TEST_F(Scripts, IncludesNestSixteenDeep) {
  // f0 includes f1, ... f16 includes f17: the 17th include is refused.
  for (int i = 0; i <= 17; ++i)
    file("f" + std::to_string(i) + ".quel",
         "append to t (n = 1)\n" + (i < 17 ? "\\i f" + std::to_string(i + 1) + ".quel\n" : std::string()));
  Out o = run("-e 'create t (n = i4)' f0.quel -e 'retrieve (s = count(t.n))'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "f16.quel:2:4: error: \\i f17.quel: files included 16 deep")) << o.text;
  EXPECT_TRUE(has(o, "|17|")) << o.text;  // f0 .. f16 ran
}

TEST_F(Scripts, AnIncludedSyntaxErrorStopsTheIncludingText) {
  file("b.quel", "retrieve (b = 2)\nretrieve (x = )\nretrieve (b_after = 1)\n");
  file("a.quel", "\\i b.quel\nretrieve (a_after = 1)\n");
  Out o = run("a.quel -e 'retrieve (next_script = 1)'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "|b|")) << o.text;
  EXPECT_TRUE(has(o, "b.quel:2:15: error: expected an expression")) << o.text;
  EXPECT_TRUE(has(o, "a.quel:1:4: \\i b.quel: stopped by its syntax error")) << o.text;
  EXPECT_FALSE(has(o, "_after")) << o.text;
  EXPECT_TRUE(has(o, "|next_script|")) << o.text;  // a script of its own, as after any failed script
}

TEST_F(Scripts, PipedInASyntaxErrorStopsTheRestOfTheInput) {
  file("in", "retrieve (a = 1)\n\\g\nretrieve (b = )\n\\g\nretrieve (c = 3)\n\\g\n");
  Out o = sh("cd " + dir_ + " && " + kBin + " < in");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "|a|")) << o.text;
  EXPECT_TRUE(has(o, "<monitor:2>:1:15: error: expected an expression")) << o.text;
  EXPECT_TRUE(has(o, "a syntax error stops statements piped in; nothing after line 4 runs")) << o.text;
  EXPECT_FALSE(has(o, "|c|")) << o.text;
  // A runtime error skips only its own statement: the next \g runs.
  file("in2", "retrieve (a = 1 / 0)\n\\g\nretrieve (c = 3)\n\\g\n");
  o = sh("cd " + dir_ + " && " + kBin + " < in2");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "|c|")) << o.text;
}

TEST_F(Scripts, AMonitorIncludeStopsAtItsSyntaxError) {
  // \i in the monitor reads the file as typed; its \g that meets a syntax
  // error stops it and the file that includes it.
  file("inner.quel", "retrieve (x = )\n\\g\nretrieve (inner_after = 1)\n\\g\n");
  file("outer.quel", "\\i inner.quel\nretrieve (outer_after = 1)\n\\g\n");
  Out o = sh("cd " + dir_ + " && printf '\\\\i outer.quel\\n' | " + kBin);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(has(o, "inner.quel:1:15: error: expected an expression")) << o.text;
  EXPECT_TRUE(has(o, "\\i inner.quel: stopped by the syntax error; not read after line 2")) << o.text;
  EXPECT_TRUE(has(o, "\\i outer.quel: stopped by the syntax error; not read after line 1")) << o.text;
  EXPECT_FALSE(has(o, "_after")) << o.text;
}

TEST_F(Scripts, PipedInTheBufferStaysAfterGo) {
  // \p shows what ran, a second \g runs it again; the end of the input and
  // \q do not run it a second time.
  file("in", "create t (n = i4)\n\\g\nappend to t (n = 1)\n\\g\n\\p\n\\g\nretrieve (s = count(t.n))\n\\g\n\\q\n");
  Out o = sh("cd " + dir_ + " && " + kBin + " < in");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(has(o, "append to t (n = 1)\n")) << o.text;  // \p
  EXPECT_TRUE(has(o, "|2|")) << o.text;
  EXPECT_EQ(o.text.find("(1 row)"), o.text.rfind("(1 row)")) << o.text;  // the retrieve ran once
}

}  // namespace
}  // namespace quelkit::test
