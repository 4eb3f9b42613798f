// Selection with and without a branch (--selection): how a fused page kernel
// turns a tuple's qualification into a row of the result.
//   branch    the qualification decides by control flow (short-circuit) whether
//             the tuple is projected: cheap when the outcome is predictable
//             (almost every tuple qualifies, or almost none), a misprediction
//             per surprise otherwise.
//   nobranch  the qualification is computed as a value, the row is written for
//             every tuple and the output cursor advances by that value: no
//             data-dependent branch. Only what cannot raise is computed
//             speculatively (the catalogue's ERRORS column says which operators
//             can): a part of the qualification that can raise is evaluated
//             under its short-circuit guard, and targets that can raise are
//             projected only for a qualifying tuple, so nobranch raises exactly
//             what branch raises.
//   auto      the scan runs the first pages with branch, measures the fraction
//             of tuples that qualified, and runs the rest with nobranch when
//             that fraction is between kAutoLow and kAutoHigh (measured: the
//             selectivity sweep, docs/DESIGN.md).
// Back ends without a page kernel evaluate tuple at a time and have no
// selection ("" in --stats).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace quelkit::harness {

enum class Selection : uint8_t { Auto, Branch, NoBranch };

const char* selection_name(Selection s);  // "auto", "branch", "nobranch"
bool parse_selection(std::string_view name, Selection* out);

// auto: pages probed with branch before choosing (at least kAutoProbeTuples
// live tuples, at most kAutoProbePages pages), and the band of measured
// selectivity where nobranch is chosen.
constexpr uint32_t kAutoProbePages = 8;
constexpr uint64_t kAutoProbeTuples = 128;
constexpr double kAutoLow = 0.05, kAutoHigh = 0.95;

// The choice auto makes for a measured fraction of qualifying tuples.
Selection auto_choice(uint64_t qualified, uint64_t scanned);

}  // namespace quelkit::harness
