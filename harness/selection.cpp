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

}  // namespace quelkit::harness
