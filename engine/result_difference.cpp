// Whether two back ends' results of one statement are the same (engine.h):
// `quelkit -b a,b` and difftest judge back ends by the first difference.
#include <algorithm>
#include <cstring>

#include "engine/engine.h"
#include "engine/rows.h"

namespace quelkit::harness {

std::string result_difference(const Result& a, const Result& b) {
  if (a.ok != b.ok) {
    const Result& bad = a.ok ? b : a;
    return std::string(a.ok ? "second" : "first") + " failed: " + bad.error.format();
  }
  if (!a.ok) {
    if (a.error == b.error) return "";
    return "different errors:\n  " + a.error.format() + "\n  " + b.error.format();
  }
  if (a.nrows() != b.nrows()) return std::to_string(a.nrows()) + " rows vs " + std::to_string(b.nrows()) + " rows";
  if (a.keep_rows && b.keep_rows) {
    const uint32_t len = a.layout.tuple_len;
    if (len != b.layout.tuple_len) return "different row layouts";
    for (uint64_t i = 0; i < a.nrows() && len; ++i) {
      const uint8_t* x = a.rows.row(i);
      const uint8_t* y = b.rows.row(i);
      if (std::memcmp(x, y, len) != 0) {
        std::string m = "row " + std::to_string(i + 1) + " differs:";
        for (const auto& at : a.layout.attrs)
          if (std::memcmp(x + at.offset, y + at.offset, at.type.len) != 0)
            m += " " + at.name + " = " + value_text(at, x) + " vs " + value_text(at, y);
        return m;
      }
    }
  }
  if (a.tids.size() != b.tids.size() || !std::equal(a.tids.begin(), a.tids.end(), b.tids.begin()))
    return "different tuples updated";
  if (a.checksum.sum != b.checksum.sum) return "checksums differ";
  return "";
}

}  // namespace quelkit::harness
