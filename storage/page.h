// The page format every access path, scan loop and fused kernel reads.
// Generated kernels read these fields at these constant offsets, so the layout
// is part of the back-end ABI (docs/adding-a-backend.md).
//
//   offset 0   u32  next   next page of this page's overflow chain, kNoPage if none
//   offset 4   u32  self   this page's number (a check, and a debugging aid)
//   offset 8   u16  nlines line-table entries in use
//   offset 10  u16  flags   bit 0: overflow page
//   offset 12  u16  line[i] byte offset of tuple i in this page; 0 = deleted
//   ...        tuples, packed, growing down from the end of the page
//
// tuples_per_page = floor((page_size - 12) / (tuple_len + 2)): 28 narrow (34-byte)
// or 5 wide (200-byte) PARTS tuples on a 1024-byte page.
#pragma once

#include <cstdint>
#include <cstring>

namespace quelkit::harness {

constexpr uint32_t kPageHeader = 12;
constexpr uint32_t kLineSize = 2;
constexpr uint32_t kNoPage = 0xffffffffu;
constexpr uint32_t kDefaultPageSize = 1024;
constexpr uint32_t kPageOffNext = 0, kPageOffSelf = 4, kPageOffNLines = 8, kPageOffFlags = 10;

inline uint32_t tuples_per_page(uint32_t page_size, uint32_t tuple_len) {
  return (page_size - kPageHeader) / (tuple_len + kLineSize);
}

// The widest tuple a page holds: one tuple and its line entry after the header.
inline uint32_t max_tuple_len(uint32_t page_size) { return page_size - kPageHeader - kLineSize; }

// Line entries are u16 byte offsets, so a page can be at most 64 KiB.
constexpr uint32_t kMaxPageSize = 65536;

// The page size of a temporary relation the user never sized: the session's,
// doubled until a tuple of tuple_len fits (a by list of wide values may not
// fit the session's page); 0 where not even kMaxPageSize holds one.
inline uint32_t page_size_holding(uint32_t page_size, uint32_t tuple_len) {
  uint32_t p = page_size;
  while (tuples_per_page(p, tuple_len) == 0) {
    if (p >= kMaxPageSize) return 0;
    p = p * 2 > kMaxPageSize ? kMaxPageSize : p * 2;
  }
  return p;
}

// Unaligned little-endian field access (tuples and pages are packed).
template <class T>
inline T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

inline uint32_t page_next(const uint8_t* pg) { return load<uint32_t>(pg + kPageOffNext); }
inline uint16_t page_nlines(const uint8_t* pg) { return load<uint16_t>(pg + kPageOffNLines); }
inline uint16_t page_line(const uint8_t* pg, uint32_t i) {
  return load<uint16_t>(pg + kPageHeader + kLineSize * i);
}

}  // namespace quelkit::harness
