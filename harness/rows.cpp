// Row access and printing (rows.h).
#include "harness/rows.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ostream>

#include "harness/page.h"
#include "harness/runtime/runtime_inline.h"

namespace quelkit::harness {

ir::Value get_value(const Attribute& a, const uint8_t* row) {
  ir::Value v;
  const uint8_t* p = row + a.offset;
  switch (a.type.kind) {
    case Tk::I1: v.i = int8_t(p[0]); break;
    case Tk::I2: v.i = load<int16_t>(p); break;
    case Tk::I4: v.i = load<int32_t>(p); break;
    case Tk::F4: v.f4 = load<float>(p); break;
    case Tk::F8: v.f8 = load<double>(p); break;
    case Tk::C: v.s.assign(reinterpret_cast<const char*>(p), a.type.len); break;
    case Tk::B: v.i = p[0]; break;
  }
  return v;
}

void put_value(const Attribute& a, const ir::Value& v, uint8_t* row) {
  uint8_t* p = row + a.offset;
  switch (a.type.kind) {
    case Tk::I1: p[0] = uint8_t(int8_t(v.i)); break;
    case Tk::I2: store<int16_t>(p, int16_t(v.i)); break;
    case Tk::I4: store<int32_t>(p, int32_t(v.i)); break;
    case Tk::F4: store<float>(p, v.f4); break;
    case Tk::F8: store<double>(p, v.f8); break;
    case Tk::C:
      rt::store_char(p, a.type.len, reinterpret_cast<const uint8_t*>(v.s.data()), uint32_t(v.s.size()));
      break;
    case Tk::B: p[0] = uint8_t(v.i); break;
  }
}

void copy_value(Type from, const uint8_t* src, const Attribute& to, uint8_t* row) {
  uint8_t* p = row + to.offset;
  if (to.type.kind == Tk::C) {
    rt::store_char(p, to.type.len, src, from.len);
  } else {
    std::memcpy(p, src, to.type.len);
  }
}

int64_t int_value(const Attribute& a, const uint8_t* row) {
  const uint8_t* p = row + a.offset;
  switch (a.type.kind) {
    case Tk::I1: return int8_t(p[0]);
    case Tk::I2: return load<int16_t>(p);
    case Tk::I4: return load<int32_t>(p);
    default: return p[0];  // bool
  }
}

namespace {
template <class T>
int order(T u, T w) {
  return u < w ? -1 : u > w ? 1 : 0;
}
}  // namespace

int compare_value(const Attribute& a, const uint8_t* x, const uint8_t* y) {
  const uint8_t *p = x + a.offset, *q = y + a.offset;
  switch (a.type.kind) {
    case Tk::C: return qk_char_cmp(p, a.type.len, q, a.type.len);
    case Tk::F4: return order(load<float>(p), load<float>(q));
    case Tk::F8: return order(load<double>(p), load<double>(q));
    default: return order(int_value(a, x), int_value(a, y));
  }
}

std::string value_text(const Attribute& a, const uint8_t* row) {
  return ir::format_value(a.type, get_value(a, row));
}

static bool right_aligned(Type t) { return t.is_numeric(); }

namespace {
// Columns a code point takes on a terminal: 0 for combining marks and
// zero-width characters, 2 for East Asian wide and fullwidth forms and
// emoji, else 1. A short table in the spirit of Markus Kuhn's wcwidth, so the
// table does not depend on the process's locale.
int columns_of(char32_t c) {
  if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff)
    return 0;
  if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) || (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
      (c >= 0x20000 && c <= 0x3fffd))
    return 2;
  return 1;
}

// The length of the well-formed UTF-8 sequence at s[i] and its code point,
// or 0 where the bytes are not one (overlong, surrogate, cut short).
size_t utf8_sequence(const std::string& s, size_t i, char32_t& cp) {
  const auto b = [&](size_t k) { return uint8_t(s[k]); };
  const uint8_t b0 = b(i);
  size_t n = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc2 && b0 <= 0xdf ? 2 : 0;
  if (b0 >= 0xf5 || n == 0 || i + n > s.size()) return 0;
  cp = b0 & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (b(i + k) & 0x3f);
  }
  const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// A value as the terminal table shows it, and the columns it takes. The
// stored bytes are shown as UTF-8; control characters and bytes that are not
// UTF-8 are escaped (\n, \t, \r, \xNN) so that a value cannot move the
// cursor or break the table's borders. The table is for reading: a backslash
// stands as it is, so `\n` may be either; CSV and copy keep the exact bytes.
struct Shown {
  std::string text;
  size_t columns = 0;
};

Shown shown(const std::string& v) {
  Shown out;
  out.text.reserve(v.size());
  for (size_t i = 0; i < v.size();) {
    const uint8_t c = uint8_t(v[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.text += char(c);
      ++out.columns;
      ++i;
      continue;
    }
    char32_t cp = 0;
    if (size_t n = c >= 0x80 ? utf8_sequence(v, i, cp) : 0; n && !(cp >= 0x80 && cp < 0xa0)) {
      out.text.append(v, i, n);
      out.columns += size_t(columns_of(cp));
      i += n;
      continue;
    }
    static const char hex[] = "0123456789abcdef";
    std::string e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : "";
    if (e.empty()) e = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    out.text += e;
    out.columns += e.size();
    ++i;
  }
  return out;
}
}  // namespace

void print_table(std::ostream& os, const Schema& s, const ResultRows& rows) {
  const size_t n = rows.size();
  std::vector<size_t> w;
  std::vector<Shown> heads;
  for (const auto& a : s.attrs) {
    heads.push_back(shown(a.name));
    w.push_back(std::max<size_t>(heads.back().columns, 1));
  }
  std::vector<Shown> cells;
  cells.reserve(n * s.attrs.size());
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < s.attrs.size(); ++c) {
      cells.push_back(shown(value_text(s.attrs[c], rows.row(r))));
      w[c] = std::max(w[c], cells.back().columns);
    }
  auto rule = [&] {
    os << '+';
    for (size_t c = 0; c < w.size(); ++c) os << std::string(w[c], '-') << '+';
    os << '\n';
  };
  auto cell = [&](const Shown& v, size_t c, bool right) {
    std::string pad(w[c] - v.columns, ' ');
    os << (right ? pad + v.text : v.text + pad) << '|';
  };
  rule();
  os << '|';
  for (size_t c = 0; c < w.size(); ++c) cell(heads[c], c, false);
  os << '\n';
  rule();
  for (size_t r = 0; r < n; ++r) {
    os << '|';
    for (size_t c = 0; c < w.size(); ++c) cell(cells[r * w.size() + c], c, right_aligned(s.attrs[c].type));
    os << '\n';
  }
  rule();
  os << '(' << n << (n == 1 ? " row)\n" : " rows)\n");
}

static void csv_field(std::ostream& os, const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) {
    os << v;
    return;
  }
  os << '"';
  for (char c : v) {
    if (c == '"') os << '"';
    os << c;
  }
  os << '"';
}

void print_csv(std::ostream& os, const Schema& s, const ResultRows& rows) {
  const size_t n = rows.size();
  for (size_t c = 0; c < s.attrs.size(); ++c) os << (c ? "," : "") << s.attrs[c].name;
  os << '\n';
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < s.attrs.size(); ++c) {
      if (c) os << ',';
      csv_field(os, value_text(s.attrs[c], rows.row(r)));
    }
    os << '\n';
  }
}

}  // namespace quelkit::harness
