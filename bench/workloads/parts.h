// The PARTS benchmark data (DESIGN.md "The PARTS data"): a fixed splitmix64
// stream from seed 1981 gives every engine identical tuples, and the paper's
// keyed setup (hold some pnums back, build ISAM/hash, append them) puts the
// held-back tuples into overflow pages exactly as the 1981 experiments did.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "frontend/schema.h"
#include "bench/workloads/datagen.h"
#include "storage/relation.h"

namespace quelkit::harness {

// PARTS(pnum, pname = c20, color = c8, weight = i2, qoh = i2 [, filler = c166]);
// pnum is i2 up to 32767 rows (the paper's 34-byte tuple), else i4.
constexpr uint32_t kWideFillerLen = 166;
Schema parts_schema(uint64_t rows, bool wide);

struct PartsRow {
  int32_t pnum = 0;
  std::string pname, color;
  int weight = 0, qoh = 0;
};

// Rows 1..n in order, four draws each. Streaming, so 10^7 rows need no
// intermediate vector; after n rows the generator is where held_back() goes on.
class PartsGenerator {
 public:
  explicit PartsGenerator(uint64_t n) : n_(n) {}
  bool next(PartsRow& row);  // false after row n
  SplitMix64& rng() { return rng_; }

 private:
  uint64_t n_, done_ = 0;
  SplitMix64 rng_;
};

std::vector<PartsRow> parts_rows(uint64_t n);
// Packs a row into a tuple of parts_schema's layout (the filler all blanks).
void pack_parts_row(const Schema& schema, const PartsRow& row, uint8_t* tuple);

// round-half-up(n * 130 / 3360): 130 at the paper's 3360 rows.
uint64_t parts_held_back_count(uint64_t n);
// The held-back pnums in drawn order: the generator continued after the 4n row
// draws, 1 + next() % n, repeats skipped.
std::vector<int32_t> parts_held_back(uint64_t n);

// Heap: all n tuples appended in pnum order. Isam/Hash: the keyed setup —
// every tuple but the held-back ones in pnum order, modify to the structure on
// pnum with its default fillfactor, then the held-back ones in drawn order.
std::unique_ptr<Relation> make_parts(uint64_t n, bool wide, Structure s,
                                     uint32_t page_size = kDefaultPageSize,
                                     std::string name = "parts");

// A `--parts N[:heap|:isam|:hash][:wide]` request, as the quelkit command and
// its subcommands take it.
struct PartsSpec {
  uint64_t rows = 0;
  Structure s = Structure::Heap;
  bool wide = false;
};
// Parses "N[:heap|:isam|:hash][:wide]"; false with *err set if it is malformed
// or N is more than pnum, an i4, can number (2147483647).
bool parse_parts_spec(const std::string& spec, PartsSpec* out, std::string* err);
// The most tuples PARTS can have: pnum, an i4, numbers them.
constexpr uint64_t kPartsMaxRows = 2147483647;
// Why `count`, as typed after `option` (--parts, gen parts --rows), is no
// number of PARTS tuples ("" if it is one): the same bound and words for
// every option, however many digits it has.
std::string parts_rows_refusal(const std::string& option, const std::string& count);
// The memory make_parts charges at its peak for `spec` with pages of
// `page_size` bytes (the keyed setup's modify holds a copy of the tuples
// and the new pages together), for a quick check against the budget.
uint64_t parts_memory_needed(const PartsSpec& spec, uint32_t page_size);

// The CSV `quelkit gen` writes and `copy` reads: header pnum,pname,color,weight,qoh,
// values without trailing blanks, '\n' line ends. The wide variant adds the
// column filler (c166, all blanks, so empty in the file), as `copy into`
// writes the wide relation.
void write_parts_csv(std::ostream& os, uint64_t n, bool wide);

}  // namespace quelkit::harness
