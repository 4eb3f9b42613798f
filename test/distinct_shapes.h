// Qualifications of distinct plan shapes, for tests that need a new plan (a
// new compile) per statement: literals are plan parameters (engine/plan.h),
// so statements that differ only in a literal share one plan; these differ
// in their operators and attributes instead.
#pragma once

#include <string>

namespace quelkit::test {

// The i-th of them (i >= 0), over a range variable p of parts: `p.qoh <
// p.weight` then one term per base-6 digit of i, each term one of + and -
// on one of three attributes, so no two i give one shape.
inline std::string distinct_shape_qual(int i) {
  static const char* const kTerms[] = {" + p.qoh", " - p.qoh", " + p.weight", " - p.weight", " + p.pnum", " - p.pnum"};
  std::string q = "p.qoh < p.weight";
  do {
    q += kTerms[i % 6];
    i /= 6;
  } while (i > 0);
  return q;
}

}  // namespace quelkit::test
