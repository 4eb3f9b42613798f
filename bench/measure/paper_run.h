// The report's measurement core: one paper query at one relation size on
// every back end of a session, beside SQLite, the reference loop, the scan
// reference and the streaming floor, all repetitions interleaved in rotated
// rounds (A B C, B C A, ...) by the timing module (engine/measure.h).
// `quelkit paper` prints what this returns; nothing here prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/measure/paper_queries.h"
#include "engine/measure.h"
#include "storage/relation.h"

namespace quelkit {
namespace harness {
class Session;
class Runner;
struct ExecStats;
}
class SqliteRef;

// What a cell is: a back end of the session, or one of the references; in
// the aggregates section also a back end's `--sink count` scan of the paper
// query the aggregate is bounded by (paper_aggregates.h).
enum class CellKind { Backend, Sqlite, Reference, Scan, Floor, CountScan };

struct Cell {
  std::string runner;
  CellKind kind = CellKind::Backend;
  bool external() const { return kind != CellKind::Backend; }  // no prepare, no break-even
  harness::Measurement m;
  double prepare_ns = 0;  // warm-process cold prepare: median over cold preparations
  uint64_t prepares = 0, cache_hits = 0;
  uint64_t rows = 0, checksum = 0, scanned = 0;
};

struct Row {
  std::string query;
  uint64_t size = 0;
  bool keyed = false;
  bool count = false;  // --sink count figures
  harness::Structure structure = harness::Structure::Heap;
  std::vector<Cell> cells;
  double floor_gbs = 0;  // the streaming floor's bandwidth, GB/s
  // Whether the statement reads the relation. (a) names no range variable:
  // its time is the statement's alone, with no per-tuple figure, and no scan
  // or floor is measured beside it (they would time a relation it never reads).
  bool reads = true;
  const Cell* find(CellKind k) const;
  // The fastest back end (not a reference), or nullptr.
  const Cell* best() const;
};

struct PaperRunOptions {
  harness::Timing timing;
  int cold_runs = 5;          // cold preparations whose median is prepare_ns
  bool references = true;     // the reference loop, scan and floor cells
};

// A statement that reads no relation ((a)) evaluated whole from its text on
// runner r: lexed, parsed, bound, planned, found in the plan cache (or
// prepared) and run, no checksum; what the report and quelkit_bench time
// for it, as SQLite's `sqlite3_prepare_v2`, step and finalize of its SQL.
// Its prepares and cache hits are added to *st.
void evaluate_text(harness::Session& session, harness::Runner& r, const std::string& name, const std::string& text,
                   harness::ExecStats* st = nullptr);

// Measures `pq` on every runner of `session` (whose catalog holds the PARTS
// relation `parts`) and on `db` when given. A disagreement on rows or checksum
// is written to `err` and sets *mismatch; a failed statement returns false.
bool measure_query(harness::Session& session, const PaperQuerySpec& pq, uint64_t n, harness::Structure structure,
                   SqliteRef* db, const PaperRunOptions& o, Row* row, bool* mismatch, std::string* err);

}  // namespace quelkit
