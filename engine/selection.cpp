// Names of the selection variants and auto's rule (selection.h).
#include "engine/selection.h"

#include <algorithm>

namespace quelkit::harness {

const char* selection_name(Selection s) {
  switch (s) {
    case Selection::Auto: return "auto";
    case Selection::Branch: return "branch";
    case Selection::NoBranch: return "nobranch";
  }
  return "?";
}

bool parse_selection(std::string_view name, Selection* out) {
  for (Selection s : {Selection::Auto, Selection::Branch, Selection::NoBranch})
    if (name == selection_name(s)) {
      *out = s;
      return true;
    }
  return false;
}

Selection auto_choice(uint64_t qualified, uint64_t scanned) {
  if (scanned == 0) return Selection::Branch;
  const double s = double(qualified) / double(scanned);
  return s >= kAutoLow && s <= kAutoHigh ? Selection::NoBranch : Selection::Branch;
}

Selection AutoProbe::next() const {
  switch (phase_) {
    case Phase::Count: return Selection::Branch;
    case Phase::Wait: return memory_.last;
    case Phase::Timed: return blocks_ % 2 ? Selection::NoBranch : Selection::Branch;
    case Phase::Done: break;
  }
  return chosen_;
}

void AutoProbe::ran(Selection s, uint64_t live, uint64_t qualified, uint64_t ns, uint32_t pages) {
  switch (phase_) {
    case Phase::Count:
      pages_ += pages;
      scanned_ += live;
      qualified_ += qualified;
      if (scanned_ < kAutoProbeTuples && pages_ < kAutoProbePages) return;
      banded_ = chosen_ = auto_choice(qualified_, scanned_);
      // A short scan not timed runs the plan's verdict where the band agrees
      // with the band it was made under.
      if (!timed_ok_ && memory_.verdict_at && memory_.verdict_band == banded_) chosen_ = memory_.verdict;
      // On a large relation: time both, from a page `delay_` pages on.
      phase_ = !timed_ok_ ? Phase::Done : delay_ ? Phase::Wait : Phase::Timed;
      pages_ = 0;
      return;
    case Phase::Wait:
      pages_ += pages;
      if (pages_ >= delay_) phase_ = Phase::Timed;
      return;
    case Phase::Timed: {
      const int k = s == Selection::NoBranch;
      const bool ends = ends_block(live);
      block_ns_ += ns;
      block_live_ += live;
      tuples_[k] += live;
      ++calls_;
      if (ends) {
        if (block_live_) per_tuple_[k].push_back(double(block_ns_) / double(block_live_));
        block_ns_ = block_live_ = 0;
        ++blocks_;
      }
      // Decided at a pair's end (both variants ran as many blocks), once
      // both ran kAutoTimedTuples, or earlier where one is clearly the
      // faster (below), or at the calls' cap.
      const bool paired = block_live_ == 0 && blocks_ % 2 == 0;
      const bool enough = tuples_[0] >= kAutoTimedTuples && tuples_[1] >= kAutoTimedTuples;
      if (!(paired && (enough || clear_winner())) && calls_ < kAutoTimedCalls) return;
      phase_ = Phase::Done;
      // The lower median: of the two blocks each that decide early (below),
      // the faster. The upper one was the slower, which holds a variant's
      // cold first call: with it, a branch far slower than a nobranch whose
      // first block held that call won.
      auto median = [](std::vector<double>& v) {
        const size_t m = (v.size() - 1) / 2;
        std::nth_element(v.begin(), v.begin() + long(m), v.end());
        return v[m];
      };
      // The band's choice stays unless the other variant beat it by the gain.
      const int kept = banded_ == Selection::NoBranch, other = 1 - kept;
      if (!per_tuple_[0].empty() && !per_tuple_[1].empty() &&
          median(per_tuple_[other]) < kAutoTimedGain * median(per_tuple_[kept]))
        chosen_ = other ? Selection::NoBranch : Selection::Branch;
      return;
    }
    case Phase::Done:
      return;
  }
}

void AutoProbe::remember(AutoMemory* m) const {
  m->last = chosen_;
  if (!short_ || phase_ != Phase::Done) return;
  m->verdict_at = m->tuples ? m->tuples : 1;
  m->verdict_band = banded_;
  m->verdict = chosen_;
}

bool AutoProbe::clear_winner() const {
  if (per_tuple_[0].size() < kAutoClearBlocks || per_tuple_[1].size() < kAutoClearBlocks) return false;
  // The fastest block of each: a variant's first block holds its cold call.
  const double b = *std::min_element(per_tuple_[0].begin(), per_tuple_[0].end());
  const double nb = *std::min_element(per_tuple_[1].begin(), per_tuple_[1].end());
  return nb > kAutoClearRatio * b || b > kAutoClearRatio * nb;
}

}  // namespace quelkit::harness
