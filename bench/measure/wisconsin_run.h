// The Wisconsin report's measurement core (`quelkit wisconsin`, issue 17): the
// statements of the POSTGRES study's Figures 2.1, 2.4, 2.5 and 2.6, and a few
// aggregates, read from the scripts in bench/workloads/wisconsin (the one source of the
// statements), each timed on every back end of a session and on SQLite over
// the same tuples, its prepare cost measured apart. A statement that changes
// the database (retrieve into, append, delete, replace) runs every repetition
// on the state the script gives it, restored off the clock. Nothing here
// prints; bench/report/wisconsin_report.cpp prints and writes what this returns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/measure/paper_run.h"
#include "engine/session.h"
#include "bench/workloads/wisconsin.h"

namespace quelkit {

// A script of bench/workloads/wisconsin: its file stem ("fig2_1"), the figure it stands
// for ("2.1"; "agg" for aggregates.quel) and its text. fig3_11.quel, the whole
// benchmark, runs only on the study's heaps (it modifies and indexes them
// itself), its statements tagged "/* Qn ... */" timed as query n, the others
// run once off the clock.
struct WisconsinScript {
  std::string name, figure, text;
};
// The scripts of the report, in order, from `dir`; false (and *err) if one
// cannot be read or does not parse.
bool load_wisconsin_scripts(const std::string& dir, std::vector<WisconsinScript>* out, std::string* err);

// A cell of the report: Cell's figures, and the rows of every run (all equal
// when every repetition saw the same state). timed_runs counts runs as they
// go; once measured, the runs the repetitions timed (reps x iterations).
struct WisconsinCell : Cell {
  uint64_t timed_runs = 0, rows_min = UINT64_MAX, rows_max = 0;
  bool rows_only = false;  // SQLite after an update: its changed rows compared, no checksum
};

struct WisconsinStmtRow {
  std::string figure, id;  // "2.4", "2.4.3": the statement's number in its script (3.11: the query's number)
  std::string label;       // 3.11: what the query is ("joinAselB, no index"), from the script's comment
  std::string kind;        // retrieve, retrieve into, append, delete, replace
  std::string text, sql;   // QUEL as run (constants scaled); SQL, "" where SQLite is not asked
  uint64_t size = 0;       // tuples of tenk1 in this data set
  uint64_t input = 0;      // tuples of the relations the statement reads (per tuple = time / input)
  harness::Structure structure = harness::Structure::Heap;
  std::vector<WisconsinCell> cells;  // the session's back ends in order, then SQLite if asked
};

// What one data set holds: the study's relations (onek, onek1, onek2 of
// onek_rows tuples; tenk1, tenk2 of tenk_rows), or tenk1 alone of tenk_rows
// for the selections and simple aggregates at the larger sizes.
struct WisconsinDataSet {
  bool study = true;
  uint64_t onek_rows = 1000, tenk_rows = 10000;
  harness::Structure structure = harness::Structure::Heap;
  std::vector<harness::WisconsinRelationSpec> relations() const;
};

struct WisconsinRunOptions {
  harness::Timing timing;
  // Cold preparations (plan cache cleared) whose median is prepare_ns, each
  // checking the result; 0: the first timed run prepares and checks.
  int cold_runs = 3;
  bool sqlite = true;
};

// Runs the scripts on one data set. Beyond the study's relations, only the
// retrieves that read tenk1 alone run. Where tenk1 is not of the study's
// 10,000 tuples (the larger sizes; the study's relations at a tenth for
// --quick, onek_rows = tenk_rows / 10), every integer constant of 100 or more
// is scaled by tenk_rows / 10,000, so a selection keeps its selectivity and an
// update finds its tuple. A back
// end or SQLite that disagrees with the first back end is written to `err`
// and sets *mismatch; a failed statement returns false.
bool measure_wisconsin(const harness::SessionOptions& so, const WisconsinDataSet& data,
                       const std::vector<WisconsinScript>& scripts, const WisconsinRunOptions& o,
                       std::vector<WisconsinStmtRow>* rows, bool* mismatch, std::string* err);

}  // namespace quelkit
