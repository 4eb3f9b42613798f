// The short-statement workloads' measurement (`quelkit short`, issue 68): a
// workload of bench/workloads/short.h run on one back end in a session of its
// own, each statement from its text as a user's script sends it, the set-up
// (loading, range, modify) timed apart; and on SQLite in memory, the same
// tuples, once with SQL text per statement and once with prepared statements
// and bound values. After the run each relation's checksum is taken, so the
// report can check that every engine ended with the same data. Nothing here
// prints; bench/report/short_report.cpp prints and writes what this returns.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/workloads/short.h"
#include "engine/engine.h"
#include "engine/session.h"

namespace quelkit {

// The fixed costs a statement's ExecStats gives, summed over the workload; a
// new field of ExecStats is a new row here, and the report's tables and files
// gain its column.
struct ShortCostField {
  const char* name;
  uint64_t harness::ExecStats::*field;
};
inline constexpr ShortCostField kShortCostFields[] = {
    {"parse_ns", &harness::ExecStats::parse_ns},   {"bind_ns", &harness::ExecStats::bind_ns},
    {"plan_ns", &harness::ExecStats::plan_ns},     {"lookup_ns", &harness::ExecStats::lookup_ns},
    {"prepare_ns", &harness::ExecStats::prepare_ns}, {"run_ns", &harness::ExecStats::run_ns},
    {"result_ns", &harness::ExecStats::result_ns}, {"total_ns", &harness::ExecStats::total_ns},
};
constexpr size_t kShortCosts = sizeof kShortCostFields / sizeof kShortCostFields[0];


// One engine's run of a workload.
struct ShortCell {
  std::string runner;     // "interp:switch", ..., "sqlite:text", "sqlite:prepared"
  bool sqlite = false;
  bool reuses = false;    // a back end that reuses plans across statements
  uint64_t statements = 0, transactions = 0;
  uint64_t setup_ns = 0;  // loading the relations and readying them (range, modify; SQLite's indexes)
  uint64_t wall_ns = 0;   // the statements, each from its text (transactions' begin and end included)
  // A back end's costs come from a run of their own, its phases timed (the
  // session's phase_timing); its wall time, so the timing's own cost shows.
  uint64_t phases_wall_ns = 0;
  uint64_t prepare_ns = 0;  // this run's own prepare time (timed with its phases off too)
  uint64_t prepares = 0, cache_hits = 0;
  // Statements whose text found its parse (and binding) in the session's
  // statement cache (engine/statement_cache.h).
  uint64_t text_hits = 0;
  uint64_t costs[kShortCosts] = {};  // kShortCostFields, summed over the statements
  std::vector<std::pair<std::string, uint64_t>> checksums;  // each relation's after the run
  double us_per_statement() const { return statements ? double(wall_ns) / 1e3 / double(statements) : 0; }
  double us_per_statement_phases_timed() const {
    return statements ? double(phases_wall_ns) / 1e3 / double(statements) : 0;
  }
  double per_second() const { return wall_ns ? double(transactions) * 1e9 / double(wall_ns) : 0; }
  uint64_t cost(const char* name) const;
};

// Runs the workload on back end (name, mode), in a session of its own built
// from `so` (its back ends replaced; so.phase_timing off, the costs read 0). False and *err if a statement failed.
bool measure_short_backend(const harness::SessionOptions& so, const std::pair<std::string, std::string>& backend,
                           const harness::ShortWorkload& w, ShortCell* out, std::string* err);
// Runs it on SQLite in memory: prepared false, each statement's SQL text
// prepared, stepped and finalized; true, one prepared statement per shape,
// its values bound. TP1's transactions inside BEGIN and COMMIT.
bool measure_short_sqlite(const harness::ShortWorkload& w, bool prepared, ShortCell* out, std::string* err);

}  // namespace quelkit
