// The floors under every figure of the report, over the same pages as the
// engine: the streaming floor (a sum of the relation's bytes as 8-byte words:
// what reading the relation costs at all) and the scan reference (the one page
// walk of storage/page_walk.h touching each live tuple and doing nothing else:
// what visiting tuples costs). A back end's time over the floor is what its
// evaluation adds to reading the data.
#pragma once

#include <cstdint>

#include "storage/relation.h"

namespace quelkit::bench {

// Sum of every 8-byte word of the relation's pages (all of them, overflow
// included); its value is only there so the loop is not removed.
uint64_t stream_floor(const harness::Relation& r);
// Bytes stream_floor reads (for GB/s).
uint64_t stream_bytes(const harness::Relation& r);

// Walks every page with harness::walk_page and touches each live tuple (its
// first 8 bytes); returns the number of tuples visited.
uint64_t scan_reference(const harness::Relation& r);

}  // namespace quelkit::bench
