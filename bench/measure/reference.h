// The kit's physical-limit column: a hand-written C++ loop for each of the
// paper's one-variable queries (b)-(e) over the same relation pages as the
// engine, doing the same work per tuple — the qualification with its run-time
// checks, the projection of each qualifying row into the stored result (the
// engine's chunked result memory, engine/result_rows.h: every row written
// once where it stays), and, when asked, the same result checksum
// (harness::Checksum) over those rows; the report times
// it without the checksum, as the engine's checksum is off its clock. What a
// back end costs beyond this is the cost of its way of evaluating.
#pragma once

#include <cstdint>
#include <string>

#include "storage/relation.h"

namespace quelkit::bench {

struct ReferenceResult {
  uint64_t rows = 0;
  uint64_t checksum = 0;  // harness::Checksum::sum, when verify
  bool verify = true;     // in: checksum the rows (false: only count them)
};

// True if `query` ('b', 'c', 'd' on the PARTS heap, 'e' on the wide ISAM
// relation) has a reference loop.
bool has_reference(char query);

// Runs the loop for `query` over `parts` (a relation harness::make_parts
// built); false with *err set if there is none or a run-time check fails.
bool run_reference(char query, const harness::Relation& parts, ReferenceResult* out, std::string* err = nullptr);

}  // namespace quelkit::bench
