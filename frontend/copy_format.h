// The formats `copy rel (dom = fmt, ...)` accepts in University INGRES's
// spelling (its copy manual page): fixed iN/fN/cN fields, variable-length
// c0 ended by a delimiter, dN/d0 dummy fields. The parser checks a format
// with this, so a bad one is an error at its caret; storage/ingres_copy.h
// reads and writes the files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "frontend/types.h"

namespace quelkit {

struct CopyFormat {
  enum Kind : uint8_t {
    Fixed,  // i1 i2 i4 f4 f8 (binary, the machine's byte order) or c1..c255 (text): `type`
    Var,    // c0[delim]: text up to the delimiter
    Dummy,  // d1..d255: `len` bytes skipped (from) or the name's delimiter `len` times (into); d0[delim]
  } kind = Fixed;
  Type type{};
  unsigned len = 0;  // Dummy: N of dN (0: d0)
  // The delimiter byte of c0/d0; kAnyEnd: none given, so reading stops at
  // the first comma, tab or newline and writing adds none.
  static constexpr int kAnyEnd = -1;
  int delim = kAnyEnd;
};

// "c0", "c0nl", "c0z", "c0\"Z" (a quoted delimiter the parser appended after
// a '"'), "d3", "i2", ...; nullopt if not a format.
std::optional<CopyFormat> parse_copy_format(std::string_view text);
// nl tab sp nul null comma colon dash lparen rparen, or one character; -1 if none.
int copy_delimiter_named(std::string_view name);
// The formats, for messages.
inline constexpr const char* kCopyFormatList =
    "i1 i2 i4 f4 f8 c1..c255, c0 or d0 with an optional delimiter, d1..d255";

}  // namespace quelkit
