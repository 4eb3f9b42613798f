// The paper's queries and its VAX figures (paper_queries.h).
#include "bench/measure/paper_queries.h"

namespace quelkit {

const std::vector<PaperQuerySpec>& paper_queries() {
  static const std::vector<PaperQuerySpec> q = {
      {"a", "retrieve (a = 1)", false, {{1, {.087, .087}}, {210, {.087, .087}}, {3360, {.087, .087}}}},
      {"b", "retrieve (p.pnum)", false, {{1, {.112, .123}}, {210, {.401, .353}}, {3360, {4.73, 3.88}}}},
      {"c", "retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"", false,
       {{1, {.195, .208}}, {210, {.823, .605}}, {3360, {10.3, 6.37}}}},
      {"d", "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight", false,
       {{1, {.162, .177}}, {210, {.812, .433}}, {3360, {10.6, 4.25}}}},
      {"e", "retrieve (p.qoh) where p.pnum < 2500", true, {{3360, {8.96, 6.43}}}},
      {"f", "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum", true, {{3360, {53.1, 42.4}}}},
      {"g", "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"", true, {{3360, {13.1, 10.6}}}},
      {"h", "retrieve (p.qoh) where p.pnum = q.pnum and p.pnum < 2500", true, {{3360, {41.9, 33.1}}}},
      {"i",
       "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\" and p.qoh < log(9.5) * p.weight "
       "and q.qoh < log(9.5) * p.weight",
       true, {{3360, {14.1, 11.1}}}},
  };
  return q;
}

const PaperQuerySpec* paper_query(char id) {
  for (const auto& q : paper_queries())
    if (q.id[0] == id) return &q;
  return nullptr;
}

}  // namespace quelkit
