// Names of the selection variants and auto's rule (selection.h).
#include "harness/selection.h"

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
  if (phase_ == Phase::Timed) return calls_ % 2 ? Selection::NoBranch : Selection::Branch;
  return phase_ == Phase::Count ? Selection::Branch : chosen_;
}

void AutoProbe::ran(Selection s, uint64_t live, uint64_t qualified, uint64_t ns, uint32_t pages) {
  switch (phase_) {
    case Phase::Count:
      pages_ += pages;
      scanned_ += live;
      qualified_ += qualified;
      if (scanned_ < kAutoProbeTuples && pages_ < kAutoProbePages) return;
      chosen_ = auto_choice(qualified_, scanned_);
      // An extreme selectivity on a large relation: time both.
      phase_ = chosen_ == Selection::Branch && timed_ok_ ? Phase::Timed : Phase::Done;
      return;
    case Phase::Timed: {
      const int k = s == Selection::NoBranch;
      ns_[k] += ns;
      tuples_[k] += live;
      ++calls_;
      if ((tuples_[0] < kAutoTimedTuples || tuples_[1] < kAutoTimedTuples) && calls_ < kAutoTimedCalls) return;
      phase_ = Phase::Done;
      if (tuples_[0] && tuples_[1] &&
          double(ns_[1]) / double(tuples_[1]) < kAutoTimedGain * double(ns_[0]) / double(tuples_[0]))
        chosen_ = Selection::NoBranch;
      return;
    }
    case Phase::Done:
      return;
  }
}

}  // namespace quelkit::harness
