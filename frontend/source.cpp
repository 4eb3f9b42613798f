// Source text with a line index, and the formatting of the kit's errors.
#include "frontend/source.h"

#include <cstdio>

namespace quelkit {

Source::Source(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view Source::line(uint32_t n) const {
  if (n == 0 || n > line_starts_.size()) return {};
  size_t b = line_starts_[n - 1];
  size_t e = n < line_starts_.size() ? line_starts_[n] - 1 : text_.size();
  if (e > b && text_[e - 1] == '\r') --e;
  return std::string_view(text_).substr(b, e - b);
}

SrcPos Source::pos_of(size_t offset) const {
  size_t lo = 0, hi = line_starts_.size();
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (line_starts_[mid] <= offset) lo = mid; else hi = mid;
  }
  return {uint32_t(lo + 1), uint32_t(offset - line_starts_[lo] + 1)};
}

const char* errkind_name(ErrKind k) {
  switch (k) {
    case ErrKind::Lexical: return "lexical";
    case ErrKind::Syntax: return "syntax";
    case ErrKind::Name: return "name";
    case ErrKind::Type: return "type";
    case ErrKind::Runtime: return "runtime";
    case ErrKind::IO: return "I/O";
    case ErrKind::Usage: return "usage";
  }
  return "?";
}

namespace {

// Length of the UTF-8 character starting at p (at most n bytes), or 0 if the
// bytes there are not one well-formed character.
size_t utf8_length(const unsigned char* p, size_t n) {
  const unsigned char c = p[0];
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0;
  return len;
}

// One character of a quoted source line as the echo shows it: its bytes,
// the text shown (control bytes and malformed UTF-8 escaped as \xNN), and
// its width in columns (one per character; tabs kept, so a caret under
// tab-indented text lines up).
struct Cell {
  size_t byte;
  std::string text;
  size_t width;
};

std::vector<Cell> cells_of(std::string_view line) {
  std::vector<Cell> cells;
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  for (size_t i = 0; i < line.size();) {
    size_t len = utf8_length(p + i, line.size() - i);
    const unsigned char c = p[i];
    if (len == 1 && (c >= 0x20 || c == '\t') && c != 0x7f) {
      cells.push_back({i, std::string(1, char(c)), 1});
    } else if (len > 1) {
      cells.push_back({i, std::string(line.substr(i, len)), 1});
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      cells.push_back({i, buf, 4});
      len = 1;
    }
    i += len;
  }
  return cells;
}

constexpr size_t kEchoWidth = 120;  // columns of source shown around the caret

}  // namespace

uint32_t char_column(std::string_view line, uint32_t byte_col) {
  uint32_t col = 1;
  std::vector<Cell> cells = cells_of(line);
  for (const Cell& c : cells)
    if (c.byte + 1 < byte_col) ++col;
  if (byte_col > line.size() + 1) col += byte_col - uint32_t(line.size()) - 1;  // past the end
  return col;
}

std::string Error::format() const {
  std::string out;
  std::string_view l;
  if (src && pos.line) l = src->line(pos.line);
  if (src) out += src->name();
  if (pos.line) {
    // Columns count characters: what an editor shows, however many bytes.
    uint32_t col = src ? char_column(l, pos.col) : pos.col;
    out += (src ? ":" : "") + std::to_string(pos.line) + ":" + std::to_string(col);
  }
  if (!out.empty()) out += ": ";
  out += "error: " + message;
  if (kind == ErrKind::Runtime && !relation.empty())
    out += " (relation " + relation + ", tuple " + std::to_string(tuple) + ")";
  if (src && pos.line) {
    std::vector<Cell> cells = cells_of(l);
    size_t caret = 0;  // index of the cell the caret is under (cells.size(): past the end)
    while (caret < cells.size() && cells[caret].byte + 1 < pos.col) ++caret;
    // A window of at most kEchoWidth columns: the caret a third of the way in
    // when the line is too long to show whole.
    size_t total = 0;
    for (const Cell& c : cells) total += c.width;
    size_t from = 0, to = cells.size();
    if (total > kEchoWidth) {
      size_t before = 0;
      from = caret;
      while (from > 0 && before + cells[from - 1].width <= kEchoWidth / 3) before += cells[--from].width;
      size_t used = before;
      to = caret;
      while (to < cells.size() && used + cells[to].width <= kEchoWidth) used += cells[to++].width;
      while (from > 0 && used + cells[from - 1].width <= kEchoWidth) used += cells[--from].width;
    }
    out += "\n  ";
    std::string under = "  ";
    if (from > 0) {
      out += "...";
      under += "   ";
    }
    for (size_t i = from; i < to; ++i) {
      out += cells[i].text;
      if (i < caret) under += cells[i].text == "\t" ? std::string("\t") : std::string(cells[i].width, ' ');
    }
    if (to < cells.size()) out += "...";
    out += "\n" + under + "^";
  }
  return out;
}

std::string_view strip_bom(std::string_view text) {
  return text.substr(0, 3) == "\xef\xbb\xbf" ? text.substr(3) : text;
}

void throw_error(ErrKind k, SrcPos pos, const SourceRef& src, std::string msg) {
  Error e;
  e.kind = k;
  e.pos = pos;
  e.src = src;
  e.message = std::move(msg);
  throw QuelError(std::move(e));
}

}  // namespace quelkit
