// Row access and printing (rows.h).
#include "engine/rows.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "frontend/shown_text.h"
#include "storage/budget.h"
#include "storage/page.h"
#include "runtime/runtime_inline.h"

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

// Printing is part of a retrieve, so Ctrl-C cancels it too: a result of
// millions of rows takes minutes to reach a terminal, long after the scan
// that Ctrl-C would have cancelled. Checked between rows, every this many,
// so what was printed ends with a whole row; the statement fails
// "cancelled" as a cancelled scan does (it changed nothing): a CancelPoll
// (storage/budget.h) called once a row.

// Widths are terminal columns and values are shown as shown_text shows them
// (frontend/shown_text.h); CSV keeps the exact bytes.
void print_table(std::ostream& os, const Schema& s, const ResultRows& rows) {
  const size_t n = rows.size();
  std::vector<size_t> w;
  std::vector<ShownText> heads;
  for (const auto& a : s.attrs) {
    heads.push_back(shown_text(a.name));
    w.push_back(std::max<size_t>(heads.back().width, 1));
  }
  std::vector<ShownText> cells;
  cells.reserve(n * s.attrs.size());
  CancelPoll poll;
  for (size_t r = 0; r < n; ++r) {
    poll();
    for (size_t c = 0; c < s.attrs.size(); ++c) {
      cells.push_back(shown_text(value_text(s.attrs[c], rows.row(r))));
      w[c] = std::max(w[c], cells.back().width);
    }
  }
  auto rule = [&] {
    os << '+';
    for (size_t c = 0; c < w.size(); ++c) os << std::string(w[c], '-') << '+';
    os << '\n';
  };
  auto cell = [&](const ShownText& v, size_t c, bool right) {
    std::string pad(w[c] - v.width, ' ');
    os << (right ? pad + v.text : v.text + pad) << '|';
  };
  rule();
  os << '|';
  for (size_t c = 0; c < w.size(); ++c) cell(heads[c], c, false);
  os << '\n';
  rule();
  for (size_t r = 0; r < n; ++r) {
    poll();
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
  const bool one = s.attrs.size() == 1;
  CancelPoll poll;
  for (size_t r = 0; r < n; ++r) {
    poll();
    for (size_t c = 0; c < s.attrs.size(); ++c) {
      if (c) os << ',';
      const std::string v = value_text(s.attrs[c], rows.row(r));
      if (one && v.empty()) os << "\"\"";  // not a blank line: that separates results
      else csv_field(os, v);
    }
    os << '\n';
  }
}

std::vector<std::string> json_keys(const Schema& s) {
  std::set<std::string> names;  // the columns' own names: a suffix never takes one
  for (const auto& a : s.attrs) names.insert(a.name);
  std::set<std::string> used = {"stmt"};
  std::vector<std::string> keys;
  for (const auto& a : s.attrs) {
    std::string k = a.name;
    for (int i = 2; used.count(k) || (k != a.name && names.count(k)); ++i) k = a.name + "_" + std::to_string(i);
    used.insert(k);
    keys.push_back(std::move(k));
  }
  return keys;
}

// The bytes as a JSON string can hold them: UTF-8 kept, each other byte as
// the text \xNN.
static std::string json_text(std::string_view v) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(v.size());
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size();) {
    char32_t cp;
    const size_t len = p[i] < 0x80 ? 1 : utf8_sequence(p + i, v.size() - i, cp);
    if (len) {
      out.append(v.substr(i, len));
      i += len;
    } else {
      out += {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
      ++i;
    }
  }
  return out;
}

static nlohmann::ordered_json json_value(const Attribute& a, const uint8_t* row) {
  const ir::Value v = get_value(a, row);
  switch (a.type.kind) {
    case Tk::I1:
    case Tk::I2:
    case Tk::I4: return v.i;
    case Tk::B: return v.i != 0;
    // The shortest digits that read back as the value (as CSV shows it), so
    // an f4 is not widened to a double's long tail (0.1, not 0.10000000149).
    case Tk::F4:
    case Tk::F8: return std::strtod(value_text(a, row).c_str(), nullptr);
    case Tk::C: return json_text(value_text(a, row));
  }
  return nullptr;
}

void print_json(std::ostream& os, const Schema& s, const ResultRows& rows, int stmt) {
  const std::vector<std::string> keys = json_keys(s);
  const size_t n = rows.size();
  CancelPoll poll;
  for (size_t r = 0; r < n; ++r) {
    poll();
    nlohmann::ordered_json o;
    o["stmt"] = stmt;
    for (size_t c = 0; c < s.attrs.size(); ++c) o[keys[c]] = json_value(s.attrs[c], rows.row(r));
    os << o.dump() << '\n';
  }
}

}  // namespace quelkit::harness
