// The Wisconsin benchmark data (Bitton, DeWitt, Turbyfill 1983) as the POSTGRES
// performance study ran it: relations of 208-byte tuples, 13 i4 attributes and
// three c52 strings, generated deterministically (DESIGN.md "The Wisconsin
// data") so any other engine can load identical tuples; the Python oracle
// (test/oracle/oracle.py) reimplements the generator and the tests require
// byte-identical CSV from both.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "frontend/schema.h"
#include "bench/workloads/datagen.h"
#include "storage/relation.h"

namespace quelkit::harness {

// The seed of unique1's shuffle; the second relation of the study's join
// pairs (onek2, tenk2) uses kWisconsinSeed + 1 so the pair's orders differ.
constexpr uint64_t kWisconsinSeed = 1983;
constexpr int kWisconsinInts = 13;
constexpr uint32_t kWisconsinStringLen = 52;
// Tuple counts the attributes' values stay unique and in i4 for.
constexpr uint64_t kWisconsinMaxRows = uint64_t(1) << 31;

// (unique1, unique2, two, four, ten, twenty, hundred, thousand, twothousand,
//  fivethousand, tenthousand, odd, even = i4, stringu1, stringu2, string4 = c52)
Schema wisconsin_schema();

struct WisconsinRow {
  std::array<int32_t, kWisconsinInts> ints{};  // in schema order
  std::string stringu1, stringu2, string4;
};

// The unique strings: 7 letters 'A'..'Z' spelling v in base 26, most
// significant first (0 is AAAAAAA), then 45 'X'; they sort as v does.
std::string wisconsin_string(uint32_t v);
// AAAA, HHHH, OOOO, VVVV (each then 48 'X') for unique2 = 0, 1, 2, 3 mod 4.
std::string wisconsin_string4(uint64_t unique2);
// unique1 of the tuples unique2 = 0..n-1: Fisher-Yates over 0..n-1 drawing
// from splitmix64(seed): for i = n-1 down to 1, swap [i] and [next() % (i+1)].
std::vector<int32_t> wisconsin_unique1(uint64_t n, uint64_t seed = kWisconsinSeed);

// Tuples in unique2 order. The shuffle is done up front (4n bytes).
class WisconsinGenerator {
 public:
  explicit WisconsinGenerator(uint64_t n, uint64_t seed = kWisconsinSeed);
  bool next(WisconsinRow& row);  // false after the last tuple

 private:
  std::vector<int32_t> unique1_;
  uint64_t done_ = 0;
};

void pack_wisconsin_row(const Schema& schema, const WisconsinRow& row, uint8_t* tuple);

// All n tuples inserted in unique2 order; Isam/Hash then modify to the
// structure on unique2 with its default fillfactor.
std::unique_ptr<Relation> make_wisconsin(uint64_t n, Structure s, uint32_t page_size = kDefaultPageSize,
                                         std::string name = "wisc", uint64_t seed = kWisconsinSeed);

// A `--wisconsin SPEC` request:
//   study[:heap|:isam|:hash]     the study's relations: onek, onek1 (1,000
//                                tuples, seed 1983), onek2 (1,000, 1984), tenk1
//                                (10,000, 1983), tenk2 (10,000, 1984)
//   [NAME=]N[:heap|:isam|:hash][:seed=S]
//                                one relation NAME (default wisc) of N tuples
struct WisconsinRelationSpec {
  std::string name;
  uint64_t rows = 0, seed = kWisconsinSeed;
};
struct WisconsinSpec {
  std::vector<WisconsinRelationSpec> relations;
  Structure s = Structure::Heap;
};
bool parse_wisconsin_spec(const std::string& spec, WisconsinSpec* out, std::string* err);
std::vector<std::unique_ptr<Relation>> make_wisconsin(const WisconsinSpec& spec,
                                                      uint32_t page_size = kDefaultPageSize);

// The CSV `quelkit gen wisconsin` writes and `copy` reads: a header of the 16
// attribute names, integers in decimal, strings as they are, '\n' line ends.
void write_wisconsin_csv(std::ostream& os, uint64_t n, uint64_t seed = kWisconsinSeed);

}  // namespace quelkit::harness
