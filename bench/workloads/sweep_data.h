// The relation of the selectivity sweep (`quelkit sweep`): a predicate column
// whose values are uniformly random, so that whether a tuple qualifies does
// not depend on where it lies (a range of a key sorted by tuple order would be
// perfectly predicted, and a curve over it would say nothing about branches).
//
//   sweep (pct = i4, half = i4, v = i4)
//     pct   uniform in 0..9999: `pct < 100 * P` selects P percent
//     half  uniform in 0..1, independent of pct: a second conjunct of 50%
//     v     the tuple's ordinal: what the sweep projects (one i4)
//
// Deterministic: splitmix64 (datagen.h) from kSweepSeed; tuple i takes the
// stream's outputs 2i and 2i+1: pct = first % 10000, half = second % 2.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "storage/relation.h"

namespace quelkit::harness {

constexpr uint64_t kSweepSeed = 2002;

std::unique_ptr<Relation> make_sweep_relation(uint64_t n, uint32_t page_size = kDefaultPageSize,
                                              std::string name = "sweep");

}  // namespace quelkit::harness
