// The aggregates section of `quelkit paper`: six aggregate statements over the
// PARTS heap, each measured whole (its aggregates' scans and accumulation on
// the statement's clock) on every back end, beside SQLite, the scan and floor
// references, and every back end's own `--sink count` scan of the paper query
// it is bounded by, all interleaved in one measurement so that the ratios pair
// repetitions of one run. `quelkit paper` prints what this returns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/measure/paper_run.h"

namespace quelkit {

struct PaperAggregateSpec {
  const char* id;    // "count", "colour", ...: the row's name in the report and its files
  const char* text;  // QUEL, after `range of p is parts`
  // The paper query whose `--sink count` scan bounds it ('b': every tuple,
  // 'd': the same qualification), and the bound on best back end / that scan.
  char scan_query;
  double limit;
};
const std::vector<PaperAggregateSpec>& paper_aggregates();

// A count-scan cell's runner label: "llvm:fused count (b)".
std::string count_scan_label(const std::string& runner, char query);

// Measures `spec` on every runner of `session` (whose catalog holds the PARTS
// heap `parts` and whose range table has p over it) and on `db` when given.
// The row's cells: each runner's statement, sqlite, each runner's count scan
// (CellKind::CountScan), the scan and the floor. A disagreement on rows or
// checksum is written to `err` and sets *mismatch; a failed statement
// returns false.
bool measure_aggregate(harness::Session& session, const PaperAggregateSpec& spec, uint64_t n, SqliteRef* db,
                       const PaperRunOptions& o, Row* row, bool* mismatch, std::string* err);

}  // namespace quelkit
