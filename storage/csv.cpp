// CSV for copy and gen. Parsing is strict on purpose: a number with stray
// blanks, a value too wide for its format or a ragged record is an error at
// its line rather than a silently different relation, because differential
// tests and other engines must load exactly the same tuples.
#include "storage/csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "storage/budget.h"
#include "storage/copy_io.h"

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

// The column list made concrete: attribute index per column, after the
// checks that need no data (names, duplicates, convertible kinds).
std::vector<CopyColumn> resolve(const Schema& schema, const std::vector<CopyColumn>& cols,
                                std::vector<int>& attr, bool reading, SrcPos pos, const SourceRef& src) {
  std::vector<CopyColumn> out = cols;
  if (out.empty())
    for (const Attribute& a : schema.attrs) out.push_back({a.name, a.type});
  attr.clear();
  for (const CopyColumn& c : out) {
    const SrcPos name_at = c.name_pos.line ? c.name_pos : pos, fmt_at = c.fmt_pos.line ? c.fmt_pos : pos;
    int a = schema.find(c.name);
    if (a < 0) throw_error(ErrKind::Name, name_at, src, "copy: no attribute " + c.name);
    for (int prev : attr)
      if (prev == a) throw_error(ErrKind::Name, name_at, src, "copy: attribute " + c.name + " listed twice");
    Type at = schema.attrs[size_t(a)].type;
    Type from = reading ? c.fmt : at, to = reading ? at : c.fmt;
    bool ok = from.is_char() ? to.is_char()
              : from.is_int() ? to.is_numeric()
              : from.is_float() ? to.is_float()
                                : false;
    if (!ok)
      throw_error(ErrKind::Type, fmt_at, src,
                  "copy: cannot convert " + type_name(from) + " to " + type_name(to) + " for " + c.name);
    attr.push_back(a);
  }
  return out;
}

class Parser {
 public:
  Parser(CopyInput& in, const std::string& file, SrcPos pos, const SourceRef& src)
      : in_(in), file_(file), pos_(pos), src_(src) {
    in_.skip_bom();
  }

  [[noreturn]] void fail(uint32_t line, const std::string& msg) const {
    throw_error(ErrKind::IO, pos_, src_, file_ + ":" + std::to_string(line) + ": " + msg);
  }
  // At the byte about to be read: file:line:column, as the script's own
  // errors are placed (a misplaced quote is found by its column).
  [[noreturn]] void fail_here(const std::string& msg) const {
    throw_error(ErrKind::IO, pos_, src_,
                file_ + ":" + std::to_string(line_) + ":" + std::to_string(col_ + 1) + ": " + msg);
  }

  // Next record into fields; false at the end of the text. rec_line is the
  // line the record starts on (quoted line breaks make records span lines).
  bool next(std::vector<std::string>& fields, uint32_t& rec_line) {
    if (in_.peek() == EOF) return end();
    fields.clear();
    rec_line = line_;
    size_t bytes = 0;
    auto take = [&] {
      if (++bytes > kCsvMaxRecordBytes)
        fail(rec_line, "record longer than " + std::to_string(kCsvMaxRecordBytes >> 20) +
                           " MiB (is this a CSV file?)");
      const int c = in_.get();
      col_ = c == '\n' ? 0 : col_ + 1;
      return c;
    };
    blank_ = false;
    for (;;) {
      std::string f;
      if (in_.peek() == '"') {
        take();
        for (;;) {
          int c = take();
          if (c == EOF) fail(rec_line, "unterminated quoted field");
          if (c == '"') {
            if (in_.peek() == '"') {
              f += '"';
              take();
              continue;
            }
            break;
          }
          if (c == '\n') ++line_;
          f += char(c);
        }
        fields.push_back(std::move(f));
        if (in_.peek() == ',') {
          take();
          continue;
        }
        if (in_.peek() == '\r') {
          take();
          if (in_.peek() != '\n') fail_here("unexpected character after a closing quote");
        }
        if (in_.peek() != EOF && in_.peek() != '\n') fail_here("unexpected character after a closing quote");
      } else {
        for (int c; (c = in_.peek()) != EOF && c != ',' && c != '\n';) {
          if (c == '"') fail_here("quote in an unquoted field");
          f += char(take());
        }
        if (in_.peek() == ',') {
          take();
          fields.push_back(std::move(f));
          continue;
        }
        if (!f.empty() && f.back() == '\r') f.pop_back();  // CRLF line end
        blank_ = fields.empty() && f.empty();
        fields.push_back(std::move(f));
      }
      if (in_.peek() != EOF) {  // at the '\n' ending the record
        take();
        ++line_;
      }
      return true;
    }
  }

  // The record just read was an empty line (not `""`, a quoted empty field).
  bool blank() const { return blank_; }

 private:
  bool end() const {
    if (in_.read_error()) fail(line_, std::string("cannot read: ") + std::strerror(in_.read_error()));
    return false;
  }

  CopyInput& in_;
  const std::string& file_;
  SrcPos pos_;
  const SourceRef& src_;
  uint32_t line_ = 1;
  uint32_t col_ = 0;  // bytes read of line_ (a byte-order mark is not counted)
  bool blank_ = false;
};

}  // namespace

namespace {

// cols and attr: the column list as resolve() made it, checked before any
// input is opened.
std::vector<uint8_t> parse_records(CopyInput& input, const std::string& file, const Schema& schema,
                                   const std::vector<CopyColumn>& cols, const std::vector<int>& attr, SrcPos pos,
                                   const SourceRef& src) {
  Parser in(input, file, pos, src);

  std::vector<std::string> header, fields;
  uint32_t line = 1;
  if (!in.next(header, line)) in.fail(1, "no header line");
  std::vector<size_t> where(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    size_t found = header.size();
    for (size_t h = 0; h < header.size(); ++h) {
      if (!iequal(header[h], cols[c].name)) continue;
      if (found != header.size()) in.fail(line, "column " + cols[c].name + " appears twice in the header");
      found = h;
    }
    if (found == header.size()) {
      // A file whose lines end in CR alone (classic Mac OS) reads as one
      // line, its header running into the records: say so, not only what
      // is missing.
      const bool cr = std::any_of(header.begin(), header.end(),
                                  [](const std::string& h) { return h.find('\r') != std::string::npos; });
      // A name with blanks around it ("a ,b") is not the column: say which.
      std::string padded;
      for (const std::string& h : header) {
        const size_t b = h.find_first_not_of(" \t"), e = h.find_last_not_of(" \t");
        if (padded.empty() && b != std::string::npos && (b > 0 || e + 1 < h.size()) &&
            iequal(h.substr(b, e - b + 1), cols[c].name))
          padded = " (the header has \"" + h + "\": blanks around a name are part of it)";
      }
      in.fail(line, "no column " + cols[c].name + " in the header" +
                        (cr ? " (it holds a carriage return: lines that end in CR alone are not read as lines)"
                            : padded));
    }
    where[c] = found;
  }

  const std::vector<uint8_t> blank = blank_tuple(schema);

  std::vector<uint8_t> out;
  while (in.next(fields, line)) {
    // The tuples wait here until all have parsed: charged as they come, so a
    // huge file ends in "memory budget exceeded", not in the OOM killer.
    static const std::string kWhat = "copy";
    memory_budget().check(out.size() + blank.size(), kWhat);
    // An empty line, as an editor leaves at a file's end, is no record where
    // the header names several columns; under one it is an empty field.
    if (in.blank() && header.size() > 1) continue;
    if (fields.size() != header.size())
      in.fail(line, "expected " + std::to_string(header.size()) + " fields, found " +
                        std::to_string(fields.size()));
    size_t at = out.size();
    out.insert(out.end(), blank.begin(), blank.end());
    for (size_t c = 0; c < cols.size(); ++c) {
      const Attribute& a = schema.attrs[size_t(attr[c])];
      CopyValue v;
      std::string err = parse_copy_text(cols[c].fmt, fields[where[c]], v);
      if (!err.empty()) in.fail(line, "column " + cols[c].name + ": " + err);
      if (!store_copy_value(cols[c].fmt, v, a.type, out.data() + at + a.offset))
        in.fail(line, "column " + cols[c].name + ": " + fields[where[c]] + " does not fit attribute " +
                          a.name + " (" + type_name(a.type) + ")");
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> parse_csv(std::string_view text, const std::string& file, const Schema& schema,
                               const std::vector<CopyColumn>& cols_in, SrcPos pos, const SourceRef& src) {
  std::vector<int> attr;
  const std::vector<CopyColumn> cols = resolve(schema, cols_in, attr, true, pos, src);
  CopyInput in(text);
  return parse_records(in, file, schema, cols, attr, pos, src);
}

std::vector<uint8_t> read_csv_file(const std::string& path, const Schema& schema,
                                   const std::vector<CopyColumn>& cols_in, SrcPos pos, const SourceRef& src) {
  // The column list is the statement's to get right before the file is
  // looked at: its errors first, at their own carets.
  std::vector<int> attr;
  const std::vector<CopyColumn> cols = resolve(schema, cols_in, attr, true, pos, src);
  InterruptibleIo io;  // a FIFO waits for its writer: Ctrl-C ends the wait
  std::FILE* f = open_copy_file(path, "rb", pos, src);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> owner(f, std::fclose);
  CopyInput in(f);
  return parse_records(in, path, schema, cols, attr, pos, src);
}

CsvWriter::CsvWriter(const Schema& schema, std::vector<CopyColumn> cols, std::string file, SrcPos pos,
                     SourceRef src)
    : schema_(schema), file_(std::move(file)), pos_(pos), src_(std::move(src)) {
  cols_ = resolve(schema_, cols, attr_, false, pos_, src_);
  for (size_t c = 0; c < cols_.size(); ++c) {
    if (c) out_ += ',';
    out_ += cols_[c].name;
  }
  out_ += '\n';
  line_ = 2;
}

void CsvWriter::fail(const std::string& msg) const {
  throw_error(ErrKind::IO, pos_, src_, file_ + ":" + std::to_string(line_) + ": " + msg);
}

void CsvWriter::add(const uint8_t* tuple) {
  // The row is built aside so a failed add leaves the text as it was.
  std::string rowtext;
  uint32_t breaks = 0;  // quoted line breaks: later rows start on later lines
  for (size_t c = 0; c < cols_.size(); ++c) {
    if (c) rowtext += ',';
    const Attribute& a = schema_.attrs[size_t(attr_[c])];
    const Type fmt = cols_[c].fmt;
    CopyValue v = load_copy_value(a.type, tuple + a.offset);
    // Convert to the column's format with the same rules the reader applies.
    uint8_t conv[256];
    if (!store_copy_value(a.type, v, fmt, conv))
      fail("attribute " + a.name + " does not fit column format " + type_name(fmt));
    CopyValue w = load_copy_value(fmt, conv);
    if (fmt.is_float() && !std::isfinite(w.f)) fail("attribute " + a.name + " holds a non-finite value");
    if (fmt.is_numeric()) {
      append_copy_number(fmt, w, rowtext);
    } else if (w.s.find_first_of(",\"\r\n") == std::string_view::npos) {
      rowtext += w.s;
    } else {
      rowtext += '"';
      for (char ch : w.s) {
        if (ch == '"') rowtext += '"';
        rowtext += ch;
        breaks += ch == '\n';
      }
      rowtext += '"';
    }
  }
  out_ += rowtext;
  out_ += '\n';
  line_ += 1 + breaks;
}

void CsvWriter::save() const { save_copy_file(file_, out_, pos_, src_); }

void write_csv_file(const std::string& path, const Relation& rel, const std::vector<CopyColumn>& cols,
                    SrcPos pos, const SourceRef& src) {
  CsvWriter w(rel.schema(), cols, path, pos, src);
  rel.for_each([&](Tid, const uint8_t* t) { w.add(t); });
  w.save();
}

}  // namespace quelkit::harness
