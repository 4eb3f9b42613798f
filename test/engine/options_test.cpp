// The command's options as CLI11 reads them (cli/command.h): every
// subcommand answers --help; bad values are usage errors (exit 2, a message
// naming the option) found before any work; output directories are checked
// before the first measurement; an empty corpus fails instead of passing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test/engine/shell.h"

namespace quelkit::test {
namespace {

// A scratch directory, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/quelkit-options-XXXXXX";
    path = mkdtemp(t) ? t : "";
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(Options, EverySubcommandAnswersHelp) {
  for (const char* sub : {"", "gen", "gen parts", "gen wisconsin", "paper", "sweep", "difftest", "profile"}) {
    SCOPED_TRACE(sub);
    Out o = sh(kBin + " " + sub + " --help");
    EXPECT_EQ(o.status, 0) << o.text;
    EXPECT_NE(o.text.find("Usage: quelkit" + std::string(*sub ? " " : "") + sub), std::string::npos) << o.text;
  }
  // The session command's help lists the subcommands.
  Out o = sh(kBin + " --help");
  for (const char* sub : {"gen", "paper", "sweep", "difftest", "profile"})
    EXPECT_NE(o.text.find(std::string("\n  ") + sub + " "), std::string::npos) << sub << "\n" << o.text;
}

// Each of these used to be read loosely (0 became 1 or the default, abc
// became 0) or was unknown; now each is exit 2 with the option's name, said
// before anything runs (paper and difftest would otherwise take minutes).
TEST(Options, BadValuesAreUsageErrorsBeforeAnyWork) {
  struct Case {
    const char* args;
    const char* says;
  };
  const Case cases[] = {
      {"paper --reps 0", "--reps"},
      {"paper --min-time abc", "--min-time"},
      {"paper --min-time 0", "--min-time"},
      {"paper --min-time 1e300", "--min-time"},  // no bound once ran until killed
      {"paper --out ''", "--out: needs a directory"},  // once exit 0, nothing written
      {"sweep --out ''", "--out: needs a directory"},
      {"sweep --min-time 0", "--min-time"},
      {"sweep --sizes +", "--sizes"},
      {"paper --queries a --count-sizes 1000", "--count-sizes: the count block runs (b)-(e)"},  // once ignored
      // The budget a size is refused against is the one --memory-budget sets
      // (the message named the option, which these commands lacked).
      {"paper --memory-budget abc", "--memory-budget"},
      {"sweep --memory-budget 1M --sizes 100000", "more than the memory budget of 1.0 MiB (--memory-budget)"},
      {"wisconsin --memory-budget 1M --sizes 100000", "more than the memory budget of 1.0 MiB (--memory-budget)"},
      {"paper --queries a --keyed-sizes 1000", "--keyed-sizes: the keyed relation runs (e)-(i)"},
      {"paper --queries z", "--queries"},
      {"paper --target-reps 0", "--target-reps"},
      // Fewer at the target sizes than --reps would be silently more.
      {"paper --target-reps 2 --reps 5 --queries a --sizes=", "--target-reps 2 is fewer than --reps 5"},
      // One message for the one range (two checks said "> 0" and "from 0 to 60").
      {"wisconsin --min-time 100", "--min-time: needs a number > 0 and at most 60, not '100'"},
      {"sweep --min-time 0", "--min-time: needs a number > 0 and at most 60, not '0'"},
      {"paper --target-budget 0", "--target-budget"},
      {"paper --children x", "--children"},
      {"paper --sizes 0", "--sizes"},
      {"paper --sizes +", "'+' adds the sizes after it"},
      {"paper --sizes 3000000000", "--sizes: 3000000000: at most 2147483647 tuples (pnum is an i4)"},
      // A terabyte: refused before the smaller sizes run, not an abort after them.
      {"paper --keyed-sizes +2147483647", "--keyed-sizes 2147483647 needs about"},
      {"paper --profile-json /nonexistent/profile.json", "--profile-json"},
      {"paper -b nosuch", "nosuch"},
      {"paper --queries a --sizes=", "nothing to run"},
      {"difftest --count 0", "--count"},
      {"difftest --count 1.5", "--count"},
      {"difftest --minutes abc", "--minutes"},
      {"difftest --max-mismatches 0", "--max-mismatches"},
      {"difftest --jit-opt 4", "--jit-opt"},
      {"difftest --rewrite", "--rewrite requires --corpus"},
      // What shapes a random run does nothing to a corpus: not silently ignored.
      {"difftest --corpus . --seed 3", "--seed excludes --corpus"},
      {"difftest --corpus . --aggregates 5", "--corpus excludes --aggregates"},
      {"difftest --corpus /dev/null", "--corpus /dev/null: neither a file nor a directory"},
      {"sweep --reps 0", "--reps"},
      {"sweep --budget 0", "--budget"},
      {"sweep --sizes 10,x", "--sizes"},
      {"profile --seconds 0 --query d", "--seconds"},
      {"profile --reps 0 --query d", "--reps"},
      {"profile --query z", "--query"},
      {"gen parts", "--rows"},
      {"gen parts --rows x", "--rows"},
      {"gen parts --rows 3 --seed 4", "--seed"},
      {"gen wisconsin --rows 3 --wide", "--wide"},
      {"gen nosuch", "nosuch"},
      // A subcommand's error points at the help that lists its options.
      {"gen wisconsin --rows 5 --seed x", "(quelkit gen wisconsin --help shows the options)"},
      {"gen parts --rows 5 --csv ''", "--csv: needs a file name, not ''"},
      {"--stats= -e 'retrieve (a = 1)'", "--stats= gives an empty value: write --stats alone, or with its value"},
      {"--repeat 0 -e 'retrieve (a = 1)'", "--repeat"},
      {"--jit-opt 4 -e 'retrieve (a = 1)'", "--jit-opt"},
      {"--page-size 10 -e 'retrieve (a = 1)'", "--page-size"},
      {"--vector-batch 0 -e 'retrieve (a = 1)'", "--vector-batch"},
      {"--format xml -e 'retrieve (a = 1)'", "--format"},
      {"--stats=xml -e 'retrieve (a = 1)'", "--stats"},
      {"--dump=bogus -e 'retrieve (a = 1)'", "--dump=bogus: unknown form (ast ir folded decomp postfix threaded vector llvm"},
      {"--dump= -e 'retrieve (a = 1)'", "--dump needs a form (ast ir folded"},
      {"--dump=ast,,ir -e 'retrieve (a = 1)'", "--dump: has an empty element in 'ast,,ir'"},
      {"--dump=ast, -e 'retrieve (a = 1)'", "has an empty element in 'ast,'"},
      {"--dump=ast,stencil -e 'retrieve (a = 1)'", "--dump=stencil: no selected back end prints that form (stencil, adaptive do)"},
      // A back-end option no selected back end reads would do nothing (they
      // were accepted, exit 0); --plan-cache-size contradicts --no-plan-cache.
      {"-b interp,threaded --jit-opt 3 -e 'retrieve (a = 1)'",
       "--jit-opt would do nothing: no selected back end reads it (llvm, gccjit, adaptive)"},
      {"-b interp --jit-checks -e 'retrieve (a = 1)'", "--jit-checks would do nothing"},
      {"-b vector --jit-cpu native -e 'retrieve (a = 1)'", "--jit-cpu would do nothing"},
      {"-b threaded --vector-batch 3 -e 'retrieve (a = 1)'",
       "--vector-batch would do nothing: no selected back end reads it (vector)"},
      {"-b interp --selection nobranch -e 'retrieve (a = 1)'",
       "--selection would do nothing: every selected back end evaluates tuple at a time"},
      // So in every command that takes them (they were accepted there);
      // each ends in what the old code refused, or failed on, quickly.
      {"sweep -b interp,threaded --jit-opt 2 --selections=",
       "--jit-opt would do nothing: no selected back end reads it"},
      {"sweep -b vector --jit-cpu native --selections=", "--jit-cpu would do nothing"},
      {"paper -b interp --jit-cpu native --queries a --sizes=", "--jit-cpu would do nothing"},
      {"wisconsin -b threaded --jit-cpu native --figures=", "--jit-cpu would do nothing"},
      {"profile -b interp --jit-opt 2 /nonexistent/x.quel", "--jit-opt would do nothing"},
      {"difftest -b interp,threaded --jit-opt 2 --corpus /dev/null", "--jit-opt would do nothing"},
      {"difftest -b interp --selection branch --corpus /dev/null", "--selection would do nothing"},
      {"difftest -b threaded --jit-cpu native --corpus /dev/null", "--jit-cpu would do nothing"},
      {"profile -b interp --jit-cpu native /nonexistent/x.quel", "--jit-cpu would do nothing"},
      {"profile -b interp --jit-checks /nonexistent/x.quel", "--jit-checks would do nothing"},
      {"profile -b threaded --vector-batch 3 /nonexistent/x.quel",
       "--vector-batch would do nothing: no selected back end reads it (vector)"},
      {"profile -b interp --selection branch /nonexistent/x.quel", "--selection would do nothing"},
      {"profile --selection sometimes", "--selection"},
      {"difftest --jit-cpu fast", "--jit-cpu"},
      {"--no-plan-cache --plan-cache-size 5 -e 'retrieve (a = 1)'",
       "--plan-cache-size and --no-plan-cache contradict each other"},
      // Each below ends in an option that, read loosely, stops the run before
      // any work, so a value let through fails on the wrong message, quickly.
      {"paper -b interp, --queries a --sizes=", "--backend: has an empty element in 'interp,'"},
      {"paper -b ,interp --queries a --sizes=", "has an empty element in ',interp'"},
      {"paper -b interp,,threaded --queries a --sizes=", "has an empty element in 'interp,,threaded'"},
      {"paper --keyed-structures isam, --queries a --sizes=", "--keyed-structures: has an empty element"},
      {"paper --sizes 1, --profile-json /nonexistent/profile.json", "--sizes: has an empty element"},
      {"paper --queries a, --sizes=", "--queries: has an empty element in 'a,'"},
      {"paper --queries a,z --sizes=", "no paper query 'z' in 'a,z': takes letters a to i (ab or a,b)"},
      {"-b interp, -e 'retrieve (a = 1)'", "has an empty element in 'interp,'"},
      {"sweep --sizes 1000, --selections=", "--sizes: has an empty element"},
      {"sweep --points ,50 --selections=", "--points: has an empty element in ',50'"},
      {"sweep -b threaded, --selections=", "has an empty element in 'threaded,'"},
      {"sweep --selections branch, --points=", "--selections: has an empty element"},
      {"wisconsin --figures 2.1, --structure=", "--figures: has an empty element"},
      {"wisconsin --structure heap, --scripts /nonexistent", "--structure: has an empty element"},
      {"wisconsin --large-reps 5 --reps 2 --structure=", "--large-reps 5 is more than --reps 2"},
      {"wisconsin --large-reps 5 --structure=", "--large-reps 5 is more than --reps 3 (the default)"},
      {"profile --query a,,b", "has an empty element in 'a,,b'"},
      // Commas are read: a,e is (a) and (e), which profile refuses together.
      {"profile --query a,e", "profile them separately"},
      {"paper --queries a,b --sizes=", "nothing to run"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto t0 = std::chrono::steady_clock::now();
    Out o = sh(kBin + " " + c.args);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(o.status, 2) << o.text;
    EXPECT_NE(o.text.find("error:"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find(c.says), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("--help shows the options"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("Table 1"), std::string::npos) << "the report started: " << o.text;
    EXPECT_LT(s, 10.0) << "a usage error is found before any work";
  }
}

// What stays as it was: both spellings of a value, the last of two values,
// `--opt=` as the empty value, and scripts in the order given.
TEST(Options, ValuesAndScriptsReadAsBefore) {
  EXPECT_EQ(sh(kBin + " --format=csv -e 'retrieve (a = 1)'").text, "a\n1\n");
  EXPECT_EQ(sh(kBin + " --format csv -e 'retrieve (a = 1)'").text, "a\n1\n");
  EXPECT_EQ(sh(kBin + " --format table --format csv -e 'retrieve (a = 1)'").text, "a\n1\n");
  TempDir d;
  const std::string f = d.path + "/f.quel";
  std::ofstream(f) << "retrieve (f = 1)\n";
  Out o = sh(kBin + " --format csv " + f + " -e 'retrieve (e = 2)' " + f + " -e 'retrieve (g = 3)'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "f\n1\n\ne\n2\n\nf\n1\n\ng\n3\n");  // a blank line between two results
  o = sh("echo 'retrieve (s = 4)' | " + kBin + " --format csv -e 'retrieve (e = 2)' -");
  EXPECT_EQ(o.text, "e\n2\n\ns\n4\n");
  Out eq = sh(kBin + " gen parts --rows=2");
  EXPECT_EQ(eq.status, 0) << eq.text;
  EXPECT_EQ(std::count(eq.text.begin(), eq.text.end(), '\n'), 3) << eq.text;  // header and 2 rows
  EXPECT_EQ(eq.text, sh(kBin + " gen parts --rows 2").text);
  // --dump takes a comma list, and more than once.
  for (const char* dumps : {"--dump=ast,folded", "--dump ast --dump=folded", "--dump=folded,ast"}) {
    o = sh(kBin + " --format csv " + dumps + " -e 'retrieve (a = 1 + 2)'");
    EXPECT_EQ(o.status, 0) << dumps << o.text;
    EXPECT_NE(o.text.find("-- ast q1\n(retrieve (targets (a (+ 1 2))))"), std::string::npos) << dumps << o.text;
    EXPECT_NE(o.text.find("-- folded q1\ntarget a:\n"), std::string::npos) << dumps << o.text;
  }
  // A back-end option is taken when one selected back end reads it.
  o = sh(kBin + " -b interp,vector,adaptive --jit-opt 3 --jit-checks --vector-batch 7 --selection branch --format csv "
                "-e 'retrieve (a = 1)'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text, "a\n1\n");
}

// Under --selection auto a scan starts with the branch kernel and may switch
// to nobranch (engine/selection.h), so a dump of a form that differs by
// selection prints both variants, each said; one asked for prints it alone,
// and threaded code (one program for both) and a plan without a
// qualification print once. A dump printed one variant, branch's, where
// --stats said auto:nobranch ran. adaptive prints its tiers' forms.
TEST(Options, DumpUnderAutoPrintsBothKernelVariants) {
  const std::string q = " --parts 100 --format none -e 'range of p is parts retrieve (p.pnum) where p.qoh < 50'";
  Out o = sh(kBin + " --dump vector,threaded -b vector,threaded" + q);
  ASSERT_EQ(o.status, 0) << o.text;
  const size_t b = o.text.find("-- vector q2 (vector:inplace), --selection auto: branch, which a scan starts with\n");
  const size_t nb = o.text.find("-- vector q2 (vector:inplace), --selection auto: nobranch, which a scan may switch "
                                "to (--stats' selection says which ran)\n");
  ASSERT_NE(b, std::string::npos) << o.text;
  ASSERT_NE(nb, std::string::npos) << o.text;
  EXPECT_NE(o.text.find("selection: branch (", b), std::string::npos) << o.text;
  EXPECT_LT(o.text.find("selection: branch (", b), nb) << o.text;
  EXPECT_NE(o.text.find("selection: nobranch (", nb), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("-- threaded q2 (threaded:goto)\n"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("-- threaded q2 (threaded:goto),"), std::string::npos) << "threaded prints once:\n" << o.text;

  o = sh(kBin + " --dump vector -b vector --selection nobranch" + q);
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("-- vector q2 (vector:inplace)\nvector q2:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("selection: nobranch ("), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("selection: branch ("), std::string::npos) << o.text;

  o = sh(kBin + " --parts 100 --format none --dump vector -b vector -e 'range of p is parts retrieve (p.pnum)'");
  ASSERT_EQ(o.status, 0) << o.text;
  EXPECT_EQ(o.text.find("auto:"), std::string::npos) << "every tuple qualifies: branch alone\n" << o.text;

  if (sh(kBin + " -b stencil -e 'retrieve (a = 1)'").status == 0) {
    o = sh(kBin + " --dump stencil,threaded -b adaptive" + q);
    ASSERT_EQ(o.status, 0) << o.text;
    EXPECT_NE(o.text.find("q2_kernel at"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("q2_nb_kernel at"), std::string::npos) << o.text;
    EXPECT_NE(o.text.find("-- threaded q2 (adaptive:tiered)\n"), std::string::npos) << o.text;
  }
}

// A statement's aggregates' inner queries are plans of their own, named
// q<statement>_a<k>, each dumped (ir, folded and the back ends' forms) as it
// runs, before the statement's: all were q<statement>, two of them not told
// apart, and none had its ir dumped (nor the statement, when one failed).
TEST(Options, DumpOfAggregatesNamesEachInnerQuery) {
  const std::string q = " --parts 200 --format none --dump ir,threaded -b threaded -e 'range of p is parts "
                        "retrieve (n = count(p.pnum where p.qoh > 5), s = sum(p.qoh)) where p.pnum < 3'";
  Out o = sh(kBin + q);
  ASSERT_EQ(o.status, 0) << o.text;
  std::vector<size_t> at;
  for (const char* head : {"-- ir q2_a1\n", "-- threaded q2_a1 (threaded:goto)\n", "-- ir q2_a2\n",
                           "-- threaded q2_a2 (threaded:goto)\n", "-- ir q2\n", "-- threaded q2 (threaded:goto)\n"}) {
    at.push_back(o.text.find(head));
    ASSERT_NE(at.back(), std::string::npos) << head << o.text;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << o.text;
  // A failing aggregate: its query's ir is there, before its error.
  o = sh(kBin + " --parts 200 --format none --dump ir -b threaded -e 'range of p is parts "
                "retrieve (s = sum(p.qoh / (p.pnum - 150)))'");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("-- ir q2_a1\ntarget value:\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("division by zero"), std::string::npos) << o.text;
}

// `paper --queries` takes the letters run together or comma-separated, as
// every other list option takes its list: a,c runs (a) and (c), as ac does.
TEST(Options, PaperQueriesTakeCommas) {
  for (const char* queries : {"a,c", "ac", "c,a"}) {
    SCOPED_TRACE(queries);
    TempDir d;
    Out o = sh(kBin + " paper --sizes 1 --keyed-sizes= --count-sizes= --queries " + queries +
               " --reps 1 --min-time 0.001 --children 1 -b interp --no-sqlite --out " + d.path);
    ASSERT_EQ(o.status, 0) << o.text;
    // No size of 1M: the targets block says none was checked (it was left out).
    EXPECT_NE(o.text.find("Targets (docs/DESIGN.md, \"The kit's targets\"): none checked in this run"),
              std::string::npos)
        << o.text;
    std::ifstream csv(d.path + "/paper.csv");
    std::string line, ran;
    std::getline(csv, line);  // the header
    while (std::getline(csv, line))
      if (ran.find(line.substr(0, 1)) == std::string::npos) ran += line.substr(0, 1);
    EXPECT_EQ(ran, "ac");
  }
}

// `paper --out DIR` used to run the whole benchmark before failing to write
// DIR; now DIR is made and written to first.
TEST(Options, OutputDirectoriesAreCheckedBeforeAnyWork) {
  TempDir d;
  const std::string file = d.path + "/a-file";
  std::ofstream(file) << "x";
  for (const std::string& args :
       {std::string("paper --sizes 1 --queries a --out /proc/quelkit-x"), "paper --sizes 1 --queries a --out " + file,
        std::string("sweep --sizes 1000 --out /proc/quelkit-x"),
        std::string("profile --query d -b interp --keep /proc/quelkit-x")}) {
    SCOPED_TRACE(args);
    Out o = sh(kBin + " " + args);
    EXPECT_EQ(o.status, 2) << o.text;
    EXPECT_NE(o.text.find("error: --"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("Table 1"), std::string::npos) << o.text;
    EXPECT_EQ(o.text.find("tuples, single"), std::string::npos) << o.text;
  }
  // A directory that does not exist yet is made.
  Out o = sh(kBin + " sweep --sizes 1000 --reps 1 --points 50 --selections branch -b threaded --out " + d.path +
             "/new/dir");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_TRUE(std::filesystem::exists(d.path + "/new/dir/sweep.csv"));
}

// A corpus that holds nothing used to pass with 0 cases.
TEST(Options, AnEmptyCorpusIsAnError) {
  TempDir d;
  Out o = sh(kBin + " difftest -b interp --corpus " + d.path);
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("no .quel files"), std::string::npos) << o.text;
  std::ofstream(d.path + "/empty.quel") << "/* nothing here */\n";
  o = sh(kBin + " difftest -b interp --corpus " + d.path);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("holds no cases"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("all pass"), std::string::npos) << o.text;
  o = sh(kBin + " difftest -b interp --corpus " + d.path + "/missing");
  EXPECT_EQ(o.status, 2) << o.text;
  // A directive is an option: a bad one is a usage error before any file
  // runs (a.quel, before it in order, would fail its case if it ran).
  std::ofstream(d.path + "/a.quel") << "retrieve (x = 1)\n/*= rows\nx\n2\n*/\n";
  std::ofstream(d.path + "/b.quel") << "/*! parts abc */\nretrieve (x = 1)\n/*= ok */\n";
  o = sh(kBin + " difftest -b interp --corpus " + d.path);
  EXPECT_EQ(o.status, 2) << o.text;
  EXPECT_NE(o.text.find("b.quel:1: parts directive: --parts needs a number of tuples, not 'abc'"), std::string::npos)
      << o.text;
  EXPECT_NE(o.text.find("quelkit difftest --help"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("expected rows"), std::string::npos) << o.text;
  // Failures and failed cases are counted apart: a case can fail twice.
  std::filesystem::remove(d.path + "/b.quel");
  std::ofstream(d.path + "/c.quel") << "retrieve (y = 1 / 0)\nretrieve (y = 1)\n/*= rows\ny\n2\n*/\n";
  o = sh(kBin + " difftest -b interp --corpus " + d.path);
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("corpus: 3 files, 2 cases on interp:switch: 3 failures; 2 of 2 cases failed; plan reuse: "),
            std::string::npos)
      << o.text;
}

// Relations the command line asks for that cannot be made are usage errors
// said before anything is built (they used to abort or meet the OOM killer);
// a directory given as a script is an I/O error, not an empty script.
TEST(Options, RelationsThatCannotBeMadeAreUsageErrors) {
  struct Case {
    const char* args;
    int status;
    const char* says;
  };
  const Case cases[] = {
      {"--page-size 64 --parts 10:wide -e 'retrieve (a = 1)'", 2, "too small for --parts 10:wide"},
      {"--parts 99999999999 -e 'retrieve (a = 1)'", 2, "at most 2147483647 tuples"},
      {"--memory-budget 1M --parts 1000000 -e 'retrieve (a = 1)'", 2, "more than the memory budget"},
      {"--memory-budget lots -e 'retrieve (a = 1)'", 2, "--memory-budget"},
      // An empty value is no size (it once meant the default); KB and KiB are K.
      {"--memory-budget '' -e 'retrieve (a = 1)'", 2, "a memory size is BYTES, N[K|M|G|T][B|iB] or N%, not ''"},
      {"--memory-budget 1KiB -e 'retrieve (a = 1)'", 1, "more than the 1 KiB budget"},
      {"/tmp", 1, "/tmp: error: is a directory"},
      {"--parts 10:isam:hash -e 'retrieve (a = 1)'", 2, "more than one structure"},
      {"--parts 10: -e 'retrieve (a = 1)'", 2, "an empty qualifier"},
      {"--parts 10::wide -e 'retrieve (a = 1)'", 2, "an empty qualifier"},
      {"--wisconsin 10:hash:isam -e 'retrieve (a = 1)'", 2, "more than one structure"},
      {"--wisconsin 10:seed=1:seed=2 -e 'retrieve (a = 1)'", 2, "more than one seed"},
      {"--wisconsin 10:seed= -e 'retrieve (a = 1)'", 2, "--wisconsin: seed= needs a number\n"},
      {"--wisconsin 10:seed -e 'retrieve (a = 1)'", 2, "--wisconsin: seed= needs a number\n"},
      {"--wisconsin 10:seed=-5 -e 'retrieve (a = 1)'", 2, "seed= needs a whole number (at most 19 digits), not '-5'"},
      {"--wisconsin 10:isam= -e 'retrieve (a = 1)'", 2, "--wisconsin: isam takes no value, not 'isam='"},
      {"--wisconsin study:seed=5 -e 'retrieve (a = 1)'", 2, "study takes no seed"},
      {"--parts 10:wide=1 -e 'retrieve (a = 1)'", 2, "--parts: wide takes no value, not 'wide=1'"},
      {"--parts 10:hash= -e 'retrieve (a = 1)'", 2, "--parts: hash takes no value, not 'hash='"},
      {"--parts 5 --parts 6 -e 'retrieve (a = 1)'", 2, "relation 'parts' is made twice"},
      {"--parts 5 --wisconsin parts=10 -e 'retrieve (a = 1)'", 2, "by --parts 5 and by --wisconsin parts=10"},
      {"--wisconsin study --wisconsin onek=5 -e 'retrieve (a = 1)'", 2, "relation 'onek' is made twice"},
      // Budgets below a MiB are said in KiB, not rounded to "0 MiB" or "1 MiB".
      {"--memory-budget 700K --parts 20000 -e 'retrieve (a = 1)'", 2, "needs about 715 KiB, more than the memory budget of 700 KiB"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    Out o = sh(kBin + " " + c.args);
    EXPECT_EQ(o.status, c.status) << o.text;
    EXPECT_NE(o.text.find(c.says), std::string::npos) << o.text;
  }
}

// The NAME-less form with a seed, as --help writes it: the '=' of seed=S is
// not a NAME= prefix.
TEST(Options, WisconsinSeedWithoutAName) {
  Out o = sh(kBin + " --wisconsin 10:isam:seed=5 --format csv -e 'range of w is wisc retrieve (n = count(w.unique1))'");
  EXPECT_EQ(o.status, 0) << o.text;
  EXPECT_NE(o.text.find("n\n10\n"), std::string::npos) << o.text;
  // The seed is the one given: another seed orders unique1 differently.
  const std::string first = " --format csv -e 'range of w is wisc retrieve (w.unique1) where w.unique2 = 0'";
  Out a = sh(kBin + " --wisconsin 1000:seed=5" + first), b = sh(kBin + " --wisconsin 1000:seed=6" + first),
      c = sh(kBin + " --wisconsin wisc=1000:seed=5" + first);
  EXPECT_EQ(a.status, 0) << a.text;
  EXPECT_NE(a.text, b.text);
  EXPECT_EQ(a.text, c.text);
}

// paper --profile-json's content is checked before the benchmark, not found
// wanting in Table 3 after it (exit 0).
TEST(Options, PaperProfileJsonIsCheckedBeforeAnyWork) {
  const std::string f = ::testing::TempDir() + "/quelkit_profile_" + std::to_string(::getpid()) + ".json";
  for (const char* text : {"{bad", "{\"backends\": 5}", "[]", "[{\"label\": \"x\"}]"}) {
    SCOPED_TRACE(text);
    std::ofstream(f) << text;
    const auto t0 = std::chrono::steady_clock::now();
    Out o = sh(kBin + " paper --profile-json " + f);
    EXPECT_EQ(o.status, 2) << o.text;
    EXPECT_NE(o.text.find("--profile-json " + f + ": is not"), std::string::npos) << o.text;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  }
  std::remove(f.c_str());
}

// A difftest run that compared nothing is no pass.
TEST(Options, ADifftestOfNoQueryFails) {
  Out o = sh(kBin + " difftest -b interp --no-sqlite --seconds 1e-300");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_NE(o.text.find("no query ran in the time given"), std::string::npos) << o.text;
}

// Results that cannot be written (a full disk) fail the run, exit 1 and a
// message, where they were lost silently with exit 0.
TEST(Options, LostStandardOutputIsAnError) {
  for (const char* args : {" gen parts --rows 20000", " --parts 20000 --format csv -e 'range of p is parts retrieve (p.all)'"}) {
    SCOPED_TRACE(args);
    Out o = sh("{ " + kBin + args + " >/dev/full; }");  // stderr still to the test
    EXPECT_EQ(o.status, 1) << o.text;
    EXPECT_NE(o.text.find("error: writing standard output"), std::string::npos) << o.text;
  }
  // The reason given is the write's, or none: errno from long before (a
  // lookup of some file) once read "No such file or directory".
  Out o = sh("echo 'range of p is parts retrieve (p.pnum)' | { " + kBin +
             " --parts 100 --stats=json -b all >/dev/full; }");
  EXPECT_EQ(o.status, 1) << o.text;
  EXPECT_TRUE(o.text.find("writing standard output: No space left on device") != std::string::npos ||
              o.text.find("writing standard output: some of it could not be written") != std::string::npos)
      << o.text;
}

// Standard input that cannot be read, a directory or a closed descriptor,
// is an error for `-` and for piped statements, not an empty script.
TEST(Options, UnreadableStandardInputIsAnError) {
  for (const char* redirect : {" < /", " <&-"})
    for (const char* dash : {" -", ""}) {
      SCOPED_TRACE(std::string(redirect) + dash);
      Out o = sh("{ " + kBin + " --parts 10" + dash + redirect + "; }");
      EXPECT_EQ(o.status, 1) << o.text;
      EXPECT_NE(o.text.find("quelkit: error: cannot read standard input: "), std::string::npos) << o.text;
    }
}

}  // namespace
}  // namespace quelkit::test
