// What the benchmark data generators (PARTS: bench/workloads/parts.h, Wisconsin:
// bench/workloads/wisconsin.h) share: the splitmix64 stream DESIGN.md defines, blank
// padding of character attributes, and the `N[:heap|:isam|:hash]...` form of
// the --parts and --wisconsin options.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/relation.h"

namespace quelkit::harness {

// splitmix64 (DESIGN.md "The PARTS data"): s += 0x9e3779b97f4a7c15, output
// mix64(s). The default seed is PARTS's; the Wisconsin data uses its own.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed = 1981) : s_(seed) {}
  uint64_t next();

 private:
  uint64_t s_;
};

// Copies s into a c`width` attribute, truncated or padded with blanks.
void put_chars(uint8_t* dst, uint32_t width, std::string_view s);

// "heap", "isam" or "hash"; false for anything else.
bool parse_structure(std::string_view word, Structure* out);

// Splits a data spec "N[:qualifier...]" of `option` (for messages): N is a
// decimal number of tuples (at most 12 digits). False with *err set if it is
// not, or if a qualifier is empty ("10:") or a second structure ("isam:hash").
// A count of tuples as typed: digits only; a count past 2^64 - 1 reads as
// 2^64 - 1, so every count too large is refused by the caller's bound, in
// its words, whatever its number of digits.
bool parse_count(std::string_view digits, uint64_t* out);
bool split_data_spec(const std::string& spec, const std::string& option, uint64_t* rows,
                     std::vector<std::string>* qualifiers, std::string* err);

}  // namespace quelkit::harness
