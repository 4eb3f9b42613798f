// A retrieve's result in its order: `sort by` and `unique` (timed: the
// statement's own work).
#pragma once

#include <vector>

#include "frontend/bound.h"
#include "engine/result_rows.h"

namespace quelkit::harness {

// The result in its order: sort by's keys first, then (unique) every column,
// so equal rows are adjacent and the first of them, in execution order (the
// sort is stable), is kept: QUEL's equality, as sort by compares. The sorted
// rows are the statement's result, written once more in their order.
void order_rows(ResultRows& rows, const Schema& s, const std::vector<frontend::SortKey>& keys, bool unique);

}  // namespace quelkit::harness
