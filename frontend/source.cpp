// Source text with a line index, and the formatting of the kit's errors.
#include "frontend/source.h"

#include "frontend/shown_text.h"

namespace quelkit {

Source::Source(std::string name, std::string text, std::vector<Origin> origins)
    : name_(std::move(name)), text_(std::move(text)), origins_(std::move(origins)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string Source::where(uint32_t n) const {
  const Origin* from = nullptr;
  for (const Origin& o : origins_)
    if (o.first_line <= n) from = &o;
  if (!from || from->name.empty()) return name_ + ":" + std::to_string(n);
  return from->name + ":" + std::to_string(from->origin_line + (n - from->first_line));
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

constexpr size_t kEchoWidth = 120;  // columns of source shown around the caret

}  // namespace

uint32_t char_column(std::string_view line, uint32_t byte_col) {
  uint32_t col = 1;
  std::vector<ShownChar> cells = shown_chars(line, true);
  for (const ShownChar& c : cells)
    if (c.byte + 1 < byte_col) ++col;
  if (byte_col > line.size() + 1) col += byte_col - uint32_t(line.size()) - 1;  // past the end
  return col;
}

std::string position_text(const SourceRef& src, SrcPos pos) {
  // Columns count characters: what an editor shows, however many bytes.
  if (!src) return std::to_string(pos.line) + ":" + std::to_string(pos.col);
  return src->where(pos.line) + ":" + std::to_string(char_column(src->line(pos.line), pos.col));
}

std::string Error::format() const {
  std::string out;
  std::string_view l;
  if (src && pos.line) l = src->line(pos.line);
  if (src && !pos.line) out += src->name();
  if (pos.line) out += position_text(src, pos);
  if (!out.empty()) out += ": ";
  out += "error: " + cut_quoted(message);
  if (kind == ErrKind::Runtime && !relation.empty())
    out += " (relation " + cut_token(relation) + ", tuple " + std::to_string(tuple) + ")";
  if (src && pos.line) {
    std::vector<ShownChar> cells = shown_chars(l, true);
    size_t caret = 0;  // index of the cell the caret is under (cells.size(): past the end)
    while (caret < cells.size() && cells[caret].byte + 1 < pos.col) ++caret;
    // A window of at most kEchoWidth columns: the caret a third of the way in
    // when the line is too long to show whole.
    size_t total = 0;
    for (const ShownChar& c : cells) total += c.width;
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
