// The result checksum (DESIGN.md "Result checksum"): an order-independent,
// duplicate-sensitive digest of a bag of rows that any other engine (the
// Python oracle, SQLite) can compute from the values alone, so back ends are
// compared on what they return, not on how they lay it out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/schema.h"

namespace quelkit::harness {

// mix64(FNV-1a-64(encoding of the row)). The encoding is per column: integers
// as 8-byte little-endian signed, floats as the 8 bytes of their f8 value (f4
// widened), characters as their bytes without trailing blanks then one 0x00.
uint64_t row_hash(const Schema& layout, const uint8_t* row);

struct Checksum {
  uint64_t sum = 0;   // mod 2^64
  uint64_t rows = 0;

  void add(const Schema& layout, const uint8_t* row);
  // n consecutive rows of layout.tuple_len bytes; hashed several at a time
  // (the sum is the same as adding them one by one).
  void add_rows(const Schema& layout, const uint8_t* rows, size_t n);
  friend bool operator==(const Checksum&, const Checksum&) = default;
};

// 16 lowercase hex digits, as --stats=json and the oracle print it.
std::string checksum_hex(uint64_t sum);
// The same 16 digits written at out (no terminator).
void checksum_hex_to(uint64_t sum, char* out);

}  // namespace quelkit::harness
