// Source text with a line index, and the formatting of the kit's errors.
#include "frontend/source.h"

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

std::string Error::format() const {
  std::string out;
  if (src) out += src->name();
  if (pos.line) {
    out += (src ? ":" : "") + std::to_string(pos.line) + ":" + std::to_string(pos.col);
  }
  if (!out.empty()) out += ": ";
  out += "error: " + message;
  if (kind == ErrKind::Runtime && !relation.empty())
    out += " (relation " + relation + ", tuple " + std::to_string(tuple) + ")";
  if (src && pos.line) {
    std::string_view l = src->line(pos.line);
    out += "\n  ";
    out += l;
    out += "\n  ";
    // Keep tabs so the caret lines up under tab-indented text.
    for (uint32_t i = 1; i < pos.col && i - 1 < l.size(); ++i) out += (l[i - 1] == '\t' ? '\t' : ' ');
    out += '^';
  }
  return out;
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
