// The fixed test data of `quelkit difftest`: EDGE, PARTS, their ISAM/hash
// copies and the append sink, as the QUEL that builds them and as schemas.
// The schemas are what the generator binds its expressions against (a
// CatalogView); the checker verifies them against the relations it built.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontend/schema.h"

namespace quelkit::difftest {

// A relation the generator can range over.
struct GRelation {
  std::string name;  // relation name in the session ("edge", "parts", "edge_isam_i4", ...)
  std::string base;  // the relation whose tuples it holds ("edge" or "parts")
  std::vector<std::pair<std::string, Type>> attrs;
};

// EDGE(id, i1, i2, i4, f4, f8, c1, c12) with the range limits, signed zeros,
// subnormals, rounding ties, trailing and leading blanks and pattern
// characters; PARTS of `kPartsRows` rows; and storage variants of both (ISAM
// and hash on attributes of every format, with overflow pages) that must give
// the same row multisets as the heaps.
struct TestData {
  static constexpr uint64_t kPartsRows = 100;
  static constexpr uint32_t kPageSize = 256;
  // The QUEL that builds every relation (after `--parts kPartsRows`), one
  // group of statements per relation, each group self-contained given its base.
  struct Setup {
    std::string relation, base, text;
  };
  static const std::vector<Setup>& setup();
  static const std::vector<GRelation>& relations();  // heaps and variants
  static const GRelation* find(const std::string& name);
  // The sink relation append statements write to (one attribute per format).
  static const GRelation& sink();
  // Every relation above and the sink, for binding generated text.
  static const CatalogView& catalog();
  // "" if `built` holds every relation with exactly these schemas, else the first difference.
  static std::string difference(const CatalogView& built);
};

}  // namespace quelkit::difftest
