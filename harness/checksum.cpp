// Row hashing for the result checksum. Values are widened to one canonical
// encoding (i8 / f8 / stripped chars) so the digest does not depend on the
// projected layout's widths, only on the values.
#include "harness/checksum.h"

#include <cstring>

#include "harness/page.h"
#include "harness/runtime/runtime_inline.h"

namespace quelkit::harness {

uint64_t row_hash(const Schema& layout, const uint8_t* row) {
  uint64_t h = QK_FNV_OFFSET;
  for (const Attribute& a : layout.attrs) {
    const uint8_t* p = row + a.offset;
    uint8_t buf[8];
    switch (a.type.kind) {
      case Tk::I1: case Tk::I2: case Tk::I4: case Tk::B: {
        int64_t v = a.type.kind == Tk::I1   ? int64_t(load<int8_t>(p))
                    : a.type.kind == Tk::I2 ? int64_t(load<int16_t>(p))
                    : a.type.kind == Tk::I4 ? int64_t(load<int32_t>(p))
                                            : int64_t(load<uint8_t>(p));
        // B never reaches a stored row; if a projection ever carries one it
        // hashes as the integer 0 or 1 rather than being silently skipped.
        store<int64_t>(buf, v);  // little-endian host (x86-64, aarch64)
        h = rt::fnv1a64(buf, 8, h);
        break;
      }
      case Tk::F4: case Tk::F8: {
        double v = a.type.kind == Tk::F4 ? double(load<float>(p)) : load<double>(p);
        store<double>(buf, v);
        h = rt::fnv1a64(buf, 8, h);
        break;
      }
      case Tk::C: {
        h = rt::fnv1a64(p, rt::strip(p, a.type.len), h);
        const uint8_t nul = 0;
        h = rt::fnv1a64(&nul, 1, h);
        break;
      }
    }
  }
  return rt::mix64(h);
}

void Checksum::add(const Schema& layout, const uint8_t* row) {
  sum += row_hash(layout, row);
  ++rows;
}

void Checksum::add_rows(const Schema& layout, const uint8_t* r, size_t n) {
  for (size_t i = 0; i < n; ++i) add(layout, r + i * layout.tuple_len);
}

std::string checksum_hex(uint64_t sum) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, sum >>= 4) s[size_t(i)] = digits[sum & 15];
  return s;
}

}  // namespace quelkit::harness
