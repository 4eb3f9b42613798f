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
//             what branch raises. The interpreters of a page (threaded code)
//             write a selection vector the same way, the tuple's offset for
//             every tuple and advancing by the value, and project the selected
//             tuples after: writing the row for every tuple costs them the
//             projection's dispatches on every tuple.
//   auto      (a plan whose every tuple qualifies runs branch: nothing to
//             select on) the scan runs the first pages with branch and
//             measures the fraction of tuples that qualified: between
//             kAutoLow and kAutoHigh, nobranch runs the rest. Outside that
//             band branch is usually right (the outcome is predictable), but
//             not always: in
//             `a and b` with a 50% `a` and a 0% whole, `a` is a coin toss.
//             Inside it nobranch is usually right, but not always either:
//             six range terms on one column, 85% together, each mostly
//             predicted, cost nobranch (which evaluates all six) more than
//             branch. So on a scan long enough
//             (kAutoTimedPages, kAutoTimedMinTuples) the scan times
//             the next pages alternately in both selections and keeps the
//             band's choice unless the other was clearly faster (AutoProbe
//             below). The
//             timed pages begin a random number of pages into the scan, and
//             until then the scan runs what auto chose in the plan's last
//             scan (branch at first): the same first pages run with a branch
//             scan after scan are learnt by the branch predictor (branch's
//             timed calls on the sweep's 50% coin grew several times faster
//             than the rest of its scan after a few repetitions of one
//             statement), and then branch wins a comparison it loses
//             everywhere else. Once a plan has chosen nobranch, its later scans wait in
//             nobranch and run no page with a branch that timing does not
//             pick at random. Waiting in nobranch always would be wrong: on
//             (c), whose `or` is decided by its first operand for almost every
//             tuple, nobranch evaluates the string comparisons too, far more
//             work than branch's.
//             A scan too short to pay for timing on its own is timed once
//             its plan has run enough tuples in earlier scans to pay for it
//             (a statement repeated, a plan kept in the cache), and the
//             verdict is kept in the plan (AutoMemory) for its later scans,
//             timed again each time the plan's tuples have doubled: the band
//             alone ran branch on the sweep's half_first at 0% at 100,000
//             tuples, several times nobranch's cost, scan after scan.
// The figures: docs/DESIGN.md, "Selection with and without a branch" and
// "Measurements".
// Back ends without a page kernel evaluate tuple at a time and have no
// selection ("" in --stats).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
// The timed probe: only on relations of kAutoTimedPages pages or more (where
// generating the other variant is paid back); kernel calls run in blocks of
// at least kAutoTimedBlock tuples that alternate between the selections
// until each has run kAutoTimedTuples tuples (at most kAutoTimedCalls
// calls); the band's choice is kept unless the other's ns per tuple, the
// lower median over its blocks, is below kAutoTimedGain times the choice's.
// - Blocks, not single calls: a page kernel call lasts only a few steps of
//   the clock, so timed call by call two variants that differ read the same
//   at the median, and auto kept branch. The scan times a block as one
//   interval, from its first call to the end of its last (summing its calls
//   timed each still read the clock twice a call, itself a cost: scan.cpp),
//   so a difference below the clock's step shows.
// - The median over blocks, not the sum: a variant's first call enters code
//   just generated and sealed (cold instruction cache, its page's first TLB
//   miss, for stencils the mprotect that seals it), microseconds that say
//   nothing of the rest of the scan and made a variant twice as fast lose its
//   comparison; it is in one block. The lower median: where two blocks each
//   decide (kAutoClearBlocks), the upper is the block with that call.
// - kAutoTimedGain: the margin the other variant must win by (the band's
//   choice is the likelier right one); a wider one kept branch where
//   refined nobranch was clearly faster.
constexpr uint32_t kAutoTimedPages = 256;
// The timed probe also needs a scan of kAutoTimedMinTuples tuples or more
// (pages times tuples a page): a timed call reads the clock twice and half
// the 2 * kAutoTimedTuples timed tuples run in the slower variant, a cost
// only a long scan pays back. Before this bound (e) through ISAM over wide
// PARTS (3360 tuples, a key range of about 500 pages of 5 tuples) was timed
// from its first pages to its last, and the clock dominated its profile.
constexpr uint64_t kAutoTimedMinTuples = 131072;
constexpr uint64_t kAutoTimedBlock = 512;
constexpr uint64_t kAutoTimedTuples = 4096;
constexpr uint32_t kAutoTimedCalls = 512;
constexpr double kAutoTimedGain = 0.95;
// A variant kAutoClearRatio times slower than the other in the fastest of
// kAutoClearBlocks blocks each is not timed further (the median then
// decides): nobranch on (c) evaluates the string comparisons the `or`'s
// first operand skips under branch, many times branch's cost, and timing
// it over kAutoTimedTuples tuples was a visible part of (c)'s statement.
constexpr size_t kAutoClearBlocks = 2;
constexpr double kAutoClearRatio = 2.0;
// Where the timed pages begin: after a delay drawn from [0, pages /
// kAutoTimedDelayShare] pages (on average 1/32 of the scan; at 1M sweep
// tuples 880 pages to draw from, 63,000 tuple outcomes, more than the
// predictor was seen to learn), run in the plan's last choice.
constexpr uint32_t kAutoTimedDelayShare = 16;

// A scan shorter than the timed bounds above, but of at least
// kAutoShortTimedPages pages and kAutoShortTimedTuples tuples (room for the
// count, the delay and both variants' timed tuples), is timed when its plan's
// earlier auto scans ran kAutoTimedMinTuples tuples or more: what one long
// scan must hold to pay for timing, the plan has then shown over several.
// Its verdict is kept (AutoMemory) and the plan's next short scans run it
// without timing, until the plan's tuples have doubled since (then one is
// timed again: at most log2 of the plan's work timed scans, each a few
// thousand tuples). Timing every such scan afresh was tried: on (c), where
// the band is right and nobranch far slower, the probe's two blocks of
// nobranch were a visible part of a short statement.
constexpr uint32_t kAutoShortTimedPages = 32;
constexpr uint64_t kAutoShortTimedTuples = 65536;

// The choice auto makes for a measured fraction of qualifying tuples.
Selection auto_choice(uint64_t qualified, uint64_t scanned);

// What auto remembers of a plan across its scans (HeldPlan::auto_memory, engine.h).
struct AutoMemory {
  Selection last = Selection::Branch;  // what auto chose in the plan's last scan
  uint64_t tuples = 0;                 // tuples the plan's scans under auto ran
  // The last timed short scan: `tuples` then (0: none yet), what the band
  // chose and what timing kept. A later short scan runs `verdict` where the
  // band chooses as it did then; a band that changed (other data) decides.
  uint64_t verdict_at = 0;
  Selection verdict_band = Selection::Branch, verdict = Selection::Branch;
};

// Auto's decision over a scan, fed by the scan after each kernel call. Pure
// (no clock of its own), so its rule is tested with made-up figures.
class AutoProbe {
 public:
  // scan_pages: how many pages the scan may visit (a bound), of at most
  // tuples_per_page tuples each; seed: a number that differs from scan to
  // scan, which places the timed pages; memory: the plan's, whose last
  // choice runs until then and whose verdict a short scan may run.
  AutoProbe(uint32_t scan_pages, uint32_t tuples_per_page, uint64_t seed = 0, const AutoMemory& memory = {})
      : memory_(memory),
        timed_ok_(times(scan_pages, tuples_per_page, memory)),
        short_(timed_ok_ && !timed_scan(scan_pages, tuples_per_page)),
        delay_(timed_ok_ ? uint32_t(seed % (scan_pages / kAutoTimedDelayShare + 1)) : 0) {}
  // Whether a scan of that many pages is long enough to be timed.
  static bool timed_scan(uint32_t scan_pages, uint32_t tuples_per_page) {
    return scan_pages >= kAutoTimedPages && uint64_t(scan_pages) * tuples_per_page >= kAutoTimedMinTuples;
  }
  // Whether this scan of a plan with that memory is timed: a long scan
  // always; a short one (kAutoShortTimedPages) once the plan's earlier scans
  // paid for it and its verdict, if any, is a doubling old.
  static bool times(uint32_t scan_pages, uint32_t tuples_per_page, const AutoMemory& m) {
    if (timed_scan(scan_pages, tuples_per_page)) return true;
    return scan_pages >= kAutoShortTimedPages &&
           uint64_t(scan_pages) * tuples_per_page >= kAutoShortTimedTuples && m.tuples >= kAutoTimedMinTuples &&
           (m.verdict_at == 0 || m.tuples >= 2 * m.verdict_at);
  }
  bool deciding() const { return phase_ != Phase::Done; }
  // The selection the next kernel call should run.
  Selection next() const;
  // A call ran `live` tuples over `pages` pages in selection s, `qualified`
  // of them qualified. ns: while timing(), the time the call adds to its
  // block; a scan may time a block as one interval and hand it all to the
  // call that ends it (ends_block), 0 to the calls before.
  void ran(Selection s, uint64_t live, uint64_t qualified, uint64_t ns, uint32_t pages);
  bool timing() const { return phase_ == Phase::Timed; }
  // Whether a call of `live` tuples, made now, ends the block running.
  bool ends_block(uint64_t live) const {
    return phase_ == Phase::Timed && (block_live_ + live >= kAutoTimedBlock || calls_ + 1 >= kAutoTimedCalls);
  }
  // After deciding: what runs the rest of the scan.
  Selection chosen() const { return chosen_; }
  // After deciding: the plan's memory updated with this scan's choice (and,
  // for a short scan it timed, the verdict), `tuples` as it stands.
  void remember(AutoMemory* m) const;

 private:
  bool clear_winner() const;  // timed: one variant far the faster already

  enum class Phase : uint8_t { Count, Wait, Timed, Done };
  Phase phase_ = Phase::Count;
  AutoMemory memory_;  // the plan's, as the scan began
  bool timed_ok_;
  bool short_;  // timed, though shorter than timed_scan: its verdict is remembered
  uint32_t delay_;  // pages run in memory_.last between Count and Timed
  uint32_t pages_ = 0, calls_ = 0;
  uint64_t scanned_ = 0, qualified_ = 0;
  uint32_t blocks_ = 0;                           // timed blocks ended: even, branch's turn
  uint64_t block_ns_ = 0, block_live_ = 0;        // the block running
  uint64_t tuples_[2] = {};                      // timed: branch, nobranch
  std::vector<double> per_tuple_[2];              // ns per tuple of each timed block
  Selection chosen_ = Selection::Branch;
  Selection banded_ = Selection::Branch;  // the band's choice (auto_choice), kept unless timing refutes it
};

}  // namespace quelkit::harness
