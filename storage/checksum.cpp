// Row hashing for the result checksum. Values are widened to one canonical
// encoding (i8 / f8 / stripped chars) so the digest does not depend on the
// projected layout's widths, only on the values.
#include "storage/checksum.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "storage/page.h"
#include "runtime/runtime_inline.h"

namespace quelkit::harness {

namespace {

constexpr uint64_t kPrime = 0x100000001b3ULL;

// The length of a character column without its trailing blanks, read a
// word at a time with no branch that depends on the data: a c20 name of three
// to nine letters has a different number of blanks on every row, and a byte
// loop (or a word loop that stops early) costs a mispredicted branch per row.
inline uint32_t stripped_len(const uint8_t* p, uint32_t len) {
  if (len < 8) return rt::strip(p, len);
  uint32_t n = 0;
  for (uint32_t at = 0;; at += 8) {
    if (at + 8 > len) at = len - 8;  // the last word overlaps the one before
    const uint64_t x = load<uint64_t>(p + at) ^ 0x2020202020202020ULL;  // non-blank bytes are non-zero
    // Little-endian: the highest non-zero byte is the last non-blank one.
    const uint32_t end = at + 8 - uint32_t(std::countl_zero(x)) / 8;
    n = x ? end : n;
    if (at + 8 >= len) return n;
  }
}

// The 8 encoded bytes of a numeric column, as one little-endian word.
inline uint64_t numeric_word(Tk kind, const uint8_t* p) {
  switch (kind) {
    case Tk::I1: return uint64_t(int64_t(load<int8_t>(p)));
    case Tk::I2: return uint64_t(int64_t(load<int16_t>(p)));
    case Tk::I4: return uint64_t(int64_t(load<int32_t>(p)));
    // B never reaches a stored row; if a projection ever carries one it
    // hashes as the integer 0 or 1 rather than being silently skipped.
    case Tk::B: return uint64_t(load<uint8_t>(p));
    case Tk::F4: { double d = double(load<float>(p)); uint64_t w; std::memcpy(&w, &d, 8); return w; }
    case Tk::F8: return load<uint64_t>(p);
    case Tk::C: break;
  }
  return 0;
}

// FNV-1a over the rows `row[0..L)`, all in lock step. FNV-1a is one serial
// chain of multiplies per row (an xor and a multiply's latency a byte), so a
// row on its own is latency-bound; L independent chains keep the multiplier
// busy instead. The digest of each row is exactly row_hash's: only the
// schedule differs.
template <int L>
void hash_lanes(const Schema& layout, const uint8_t* const* row, uint64_t* out) {
  uint64_t h[L];
#pragma GCC unroll 8
  for (int k = 0; k < L; ++k) h[k] = QK_FNV_OFFSET;
  for (const Attribute& a : layout.attrs) {
    if (a.type.kind != Tk::C) {
      uint64_t w[L];
#pragma GCC unroll 8
      for (int k = 0; k < L; ++k) w[k] = numeric_word(a.type.kind, row[k] + a.offset);
#pragma GCC unroll 8
      for (int b = 0; b < 8; ++b) {
#pragma GCC unroll 8
        for (int k = 0; k < L; ++k) {
          h[k] = (h[k] ^ (w[k] & 0xff)) * kPrime;
          w[k] >>= 8;
        }
      }
      continue;
    }
    // All lanes run to the longest string; a lane whose string has ended
    // keeps its hash (a select, not a branch), so the only data-dependent
    // branch left is the loop's end, once per group of rows.
    const uint8_t* p[L];
    uint32_t n[L], longest = 0;
#pragma GCC unroll 8
    for (int k = 0; k < L; ++k) {
      p[k] = row[k] + a.offset;
      n[k] = stripped_len(p[k], a.type.len);
      longest = n[k] > longest ? n[k] : longest;
    }
    for (uint32_t j = 0; j < longest; ++j) {
#pragma GCC unroll 8
      for (int k = 0; k < L; ++k) {
        const uint64_t next = (h[k] ^ p[k][j]) * kPrime;  // p[k][j] is inside the column even past n[k]
        const uint64_t keep = uint64_t(j < n[k]) - 1;      // all ones once lane k's string has ended
        h[k] = next ^ ((next ^ h[k]) & keep);              // arithmetic, so the compiler cannot make it a branch
      }
    }
#pragma GCC unroll 8
    for (int k = 0; k < L; ++k) h[k] *= kPrime;  // the terminating 0x00: (h ^ 0) * prime
  }
#pragma GCC unroll 8
  for (int k = 0; k < L; ++k) out[k] = rt::mix64(h[k]);
}

constexpr int kLanes = 4;

}  // namespace

uint64_t row_hash(const Schema& layout, const uint8_t* row) {
  uint64_t h;
  hash_lanes<1>(layout, &row, &h);
  return h;
}

void Checksum::add(const Schema& layout, const uint8_t* row) {
  sum += row_hash(layout, row);
  ++rows;
}

void Checksum::add_rows(const Schema& layout, const uint8_t* r, size_t n) {
  const size_t len = layout.tuple_len;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const uint8_t* lane[kLanes];
    uint64_t h[kLanes];
    for (int k = 0; k < kLanes; ++k) lane[k] = r + (i + size_t(k)) * len;
    hash_lanes<kLanes>(layout, lane, h);
    for (int k = 0; k < kLanes; ++k) sum += h[k];
  }
  if (i < n) {  // the last, partial group: spare lanes repeat its last row and are not added
    const uint8_t* lane[kLanes];
    uint64_t h[kLanes];
    for (int k = 0; k < kLanes; ++k) lane[k] = r + std::min(i + size_t(k), n - 1) * len;
    hash_lanes<kLanes>(layout, lane, h);
    for (size_t k = 0; i + k < n; ++k) sum += h[k];
  }
  rows += n;
}

void checksum_hex_to(uint64_t sum, char* out) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, sum >>= 4) out[i] = digits[sum & 15];
}

std::string checksum_hex(uint64_t sum) {
  std::string s(16, '0');
  checksum_hex_to(sum, s.data());
  return s;
}

}  // namespace quelkit::harness
