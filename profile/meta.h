// The file each profiled child writes for the parent (DIR/meta.LABEL), one
// tab-separated record a line: its pid first, flushed at once (it names the
// child's perf map, and its absence says the tool never started the child),
// the repetitions it ran, a line per statement, and "done" when it finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace quelkit::profile {

struct StmtMeta {
  std::string label;  // back end:mode
  int k = 0;          // statement number (names its plans: q<k>)
  uint32_t line = 0;
  uint64_t tuples = 0, scanned = 0, rows = 0, reps = 0;
  int run_part = 0, prep_part = 0;   // callgrind: the dumps of the run and of the cold preparation
  size_t run_map = 0, prep_map = 0;  // perf map lines at each dump
  std::string text;
  uint64_t run_cost = 0, prep_cost = 0;  // callgrind: instructions (the parent fills them in)
};

struct Meta {
  long pid = 0;
  bool done = false;
  std::map<std::string, std::pair<uint64_t, uint64_t>> runs;  // label -> (repetitions, ns)
  std::vector<StmtMeta> stmts;
};

// The child's side.
void write_meta_pid(std::ostream& os, long pid);
void write_meta_run(std::ostream& os, const std::string& label, uint64_t reps, uint64_t ns);
void write_meta_stmt(std::ostream& os, const StmtMeta& s);
void write_meta_done(std::ostream& os);

// The parent's side: what the child got to write (a missing file reads as pid 0).
Meta read_meta(const std::string& path);

}  // namespace quelkit::profile
