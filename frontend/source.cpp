// Source text with a line index, and the formatting of the kit's errors.
#include "frontend/source.h"

#include <cstring>

#include <algorithm>
#include <istream>

#include "frontend/shown_text.h"

namespace quelkit {

Source::Source(std::string name, std::string text, std::vector<Origin> origins, std::optional<Cut> cut)
    : name_(std::move(name)), text_(std::move(text)), origins_(std::move(origins)), cut_(std::move(cut)) {
  if (cut_ && !text_.empty() && text_.back() != '\n') text_ += '\n';  // the line not read starts a line
  // memchr from line to line: a short statement's text is one line, and
  // keeps no list (its first line starts at 0, unlisted).
  const char* const begin = text_.data();
  const char* const end = begin + text_.size();
  for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)))) != nullptr;)
    later_starts_.push_back(size_t(++p - begin));
}

std::string Source::where(uint32_t n) const {
  const Origin* from = nullptr;
  for (const Origin& o : origins_)
    if (o.first_line <= n) from = &o;
  if (!from || from->name.empty()) return name_ + ":" + std::to_string(n);
  return from->name + ":" + std::to_string(from->origin_line + (n - from->first_line));
}

std::string_view Source::line(uint32_t n) const {
  if (cut_ && n == cut_line()) return cut_->head;
  if (n == 0 || n > lines()) return {};
  size_t b = start(n - 1);
  size_t e = n < lines() ? start(n) - 1 : text_.size();
  if (e > b && text_[e - 1] == '\r') --e;
  return std::string_view(text_).substr(b, e - b);
}

SrcPos Source::pos_of(size_t offset) const {
  size_t lo = 0, hi = lines();
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (start(mid) <= offset) lo = mid; else hi = mid;
  }
  return {uint32_t(lo + 1), uint32_t(offset - start(lo) + 1)};
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
// Bytes of a line looked at on each side of the caret: more than the echo's
// columns take, so that an error in a 16 MiB line costs what one in a short
// line does (shown_chars of the whole line held a cell per byte: gigabytes).
constexpr size_t kEchoBytes = 4096;

// Where a character starts at or after `i` (a UTF-8 continuation byte is in
// the middle of one; a malformed run is given up after three).
size_t char_start(std::string_view l, size_t i) {
  for (int k = 0; k < 3 && i < l.size() && (static_cast<unsigned char>(l[i]) & 0xC0) == 0x80; ++k) ++i;
  return i;
}

}  // namespace

uint32_t char_column(std::string_view line, uint32_t byte_col) {
  uint32_t col = 1;
  // The characters before the column, a piece at a time.
  const std::string_view before = line.substr(0, byte_col > 0 ? byte_col - 1 : 0);
  for (size_t b = 0; b < before.size();) {
    const size_t e = b + kEchoBytes < before.size() ? char_start(before, b + kEchoBytes) : before.size();
    col += uint32_t(shown_chars(before.substr(b, e - b), true).size());
    b = e;
  }
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
    const size_t at = std::min<size_t>(pos.col ? pos.col - 1 : 0, l.size());
    const size_t first = at > kEchoBytes ? char_start(l, at - kEchoBytes) : 0;
    const size_t last = std::min(l.size(), at + kEchoBytes);
    std::vector<ShownChar> cells = shown_chars(l.substr(first, last - first), true);
    for (ShownChar& c : cells) c.byte += first;
    size_t caret = 0;  // index of the cell the caret is under (cells.size(): past the end)
    while (caret < cells.size() && cells[caret].byte + 1 < pos.col) ++caret;
    // A window of at most kEchoWidth columns: the caret a third of the way in
    // when the line is too long to show whole.
    size_t total = 0;
    for (const ShownChar& c : cells) total += c.width;
    size_t from = 0, to = cells.size();
    if (total > kEchoWidth || first > 0 || last < l.size()) {
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
    if (from > 0 || first > 0) {
      out += "...";
      under += "   ";
    }
    for (size_t i = from; i < to; ++i) {
      out += cells[i].text;
      if (i < caret) under += cells[i].text == "\t" ? std::string("\t") : std::string(cells[i].width, ' ');
    }
    if (to < cells.size() || last < l.size()) out += "...";
    out += "\n" + under + "^";
  }
  return out;
}

LineRead read_line(std::istream& in, std::string* line, size_t max) {
  line->clear();
  // A chunk at a time (getline into a buffer stops when it is full), so that
  // no more than `max` and a chunk is ever held, however long the line.
  char chunk[64 * 1024];
  for (bool any = false;; any = true) {
    in.getline(chunk, sizeof chunk);
    const size_t got = size_t(in.gcount());
    if (in.bad()) return LineRead::End;
    const bool ended = !in.fail() && !in.eof();  // stopped at the newline, which counts in gcount
    if (in.eof()) in.clear(in.rdstate() & ~std::ios::failbit);  // a last line without a newline
    // A line past a chunk may be long: room for the most it may hold, once,
    // so that growing it copies nothing (RSS: the bytes read, not twice them).
    if (any && line->capacity() <= max) line->reserve(max + 1);
    line->append(chunk, ended ? got - 1 : got);
    if (line->size() > max) {
      line->resize(max);
      return LineRead::TooLong;
    }
    if (ended || in.eof()) return any || got ? LineRead::Line : LineRead::End;
    in.clear();  // the chunk was full: the line goes on
  }
}

Source::Cut cut_at(std::string_view head, bool whole) {
  constexpr size_t kHeadBytes = 1024;  // more than an error's echo shows of a line
  Source::Cut c;
  c.head = std::string(head.substr(0, kHeadBytes));
  c.message = whole ? "the text reaches " + std::to_string(kMaxTextBytes >> 20) +
                          " MiB at this line, the most a script may hold: this line and the rest were not read"
                    : "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                          " MiB, the most a line may hold: it and the rest were not read";
  return c;
}

bool read_text(std::istream& in, std::string* text, std::optional<Source::Cut>* cut) {
  text->clear();
  cut->reset();
  std::string line;
  for (bool first = true;; first = false) {
    const LineRead r = read_line(in, &line);
    if (r == LineRead::End) break;
    const std::string_view l = first ? strip_bom(line) : std::string_view(line);
    if (r == LineRead::TooLong || text->size() + l.size() + 1 > kMaxTextBytes) {
      *cut = cut_at(l, r != LineRead::TooLong);
      break;
    }
    text->append(l);
    text->push_back('\n');
  }
  return !in.bad();
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
