// INGRES's copy formats (storage/ingres_copy.h). The conversions follow the
// copy manual page: character to character pads or truncates on the right,
// anything else is checked (a number too large for its domain, text that is
// no number, is an error at its record; a float into an integer truncates
// toward zero, as assignment stores one); the number rules themselves are the
// CSV's (storage/copy_io.h), so both formats read a number alike.
#include "storage/ingres_copy.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "storage/budget.h"
#include "storage/copy_io.h"

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

namespace {

const std::string kWhat = "copy";

bool reads_to_delimiter(const CopyFormat& f) {
  return f.kind == CopyFormat::Var || (f.kind == CopyFormat::Dummy && f.len == 0);
}

// Whether byte c ends a c0/d0 field with delimiter d: with none given, the
// first comma, tab or newline does (the manual).
bool ends_field(int d, int c) { return d == CopyFormat::kAnyEnd ? c == ',' || c == '\t' || c == '\n' : c == d; }

std::string delimiter_text(int d) {
  switch (d) {
    case CopyFormat::kAnyEnd: return "comma, tab or newline";
    case '\n': return "newline";
    case '\t': return "tab";
    case ' ': return "space";
    case 0: return "nul byte";
    default: return std::string("'") + char(d) + "'";
  }
}

std::string_view trim_blanks(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The column list made concrete (an empty one: every attribute as stored),
// with the checks that need no data; attr gets each column's attribute, -1
// for a dummy.
std::vector<IngresColumn> resolve(const Schema& schema, const std::vector<IngresColumn>& cols,
                                  std::vector<int>& attr, bool reading, SrcPos pos, const SourceRef& src) {
  std::vector<IngresColumn> out = cols;
  if (out.empty())
    for (const Attribute& a : schema.attrs) out.push_back({a.name, CopyFormat{CopyFormat::Fixed, a.type}});
  attr.clear();
  for (const IngresColumn& c : out) {
    const SrcPos name_at = c.name_pos.line ? c.name_pos : pos;
    if (c.fmt.kind == CopyFormat::Dummy) {
      if (!reading && c.fmt.len > 0 && copy_delimiter_named(c.name) < 0)
        throw_error(ErrKind::Name, name_at, src,
                    "copy: d" + std::to_string(c.fmt.len) + " into a file writes the delimiter its name names, and '" +
                        c.name + "' names none (nl tab sp nul comma colon dash lparen rparen, or one character)");
      attr.push_back(-1);
      continue;
    }
    const int a = schema.find(c.name);
    if (a < 0) throw_error(ErrKind::Name, name_at, src, "copy: no attribute " + c.name);
    for (int prev : attr)
      if (prev == a) throw_error(ErrKind::Name, name_at, src, "copy: attribute " + c.name + " listed twice");
    attr.push_back(a);
  }
  return out;
}

// Stores a field's bytes, as format f has them, into attribute a; an error
// message, or empty.
std::string store_field(const CopyFormat& f, const std::string& bytes, const Attribute& a, uint8_t* dst) {
  CopyValue v;
  std::string text;
  if (f.kind == CopyFormat::Fixed && f.type.is_numeric()) {
    v = load_copy_value(f.type, reinterpret_cast<const uint8_t*>(bytes.data()));
    if (f.type.is_float() && !std::isfinite(v.f)) return "the " + type_name(f.type) + " is not a finite number";
    append_copy_number(f.type, v, text);
    if (!a.type.is_numeric()) v.s = text;  // into a character domain: as its text
  } else if (a.type.is_char()) {
    // Character to character: blank padded or truncated on the right.
    const auto* s = reinterpret_cast<const uint8_t*>(bytes.data());
    rt::store_char(dst, a.type.len, s, rt::strip(s, uint32_t(std::min<size_t>(bytes.size(), a.type.len))));
    return {};
  } else {
    text = trim_blanks(bytes);
    if (std::string err = parse_copy_text(a.type, text, v); !err.empty()) return err;
  }
  const Type from = f.kind == CopyFormat::Fixed && f.type.is_numeric() ? f.type : a.type;
  if (!store_copy_value(from, v, a.type, dst))
    return text + " does not fit attribute " + a.name + " (" + type_name(a.type) + ")";
  return {};
}

// The file as fields: fixed runs of bytes or runs up to a delimiter, with
// where each field began for messages.
class FieldReader {
 public:
  FieldReader(CopyInput& in, const std::string& file, bool lines, SrcPos pos, const SourceRef& src)
      : in_(in), file_(file), lines_(lines), pos_(pos), src_(src) {}

  bool at_end() { return in_.peek() == EOF && (check_read(), true); }
  void start_record() { ++record_; }
  void start_field() {
    field_line_ = line_;
    field_byte_ = byte_;
  }
  // n bytes into dst; false if the file ends first (got: how many there were).
  bool fixed(char* dst, size_t n, size_t& got) {
    got = in_.read(dst, n);
    byte_ += got;
    line_ += uint32_t(std::count(dst, dst + got, '\n'));
    if (got < n) check_read();
    return got == n;
  }
  // Where a field of the record just read began (the bulk copy reads a tuple at once).
  void field_at(uint64_t record_byte, uint32_t offset) { field_byte_ = record_byte + offset; }
  uint64_t field_byte() const { return field_byte_; }
  enum class End { Delimiter, File, TooLong };
  // Up to the delimiter, which is read and dropped; a backslash makes the
  // byte after it an ordinary one ("Blow\, Joe").
  End to_delimiter(int delim, std::string& buf) {
    buf.clear();
    for (;;) {
      int c = get();
      if (c == EOF) return End::File;
      if (ends_field(delim, c)) return End::Delimiter;
      if (c == '\\' && (c = get()) == EOF) return End::File;
      if (buf.size() == kIngresMaxFieldBytes) return End::TooLong;
      buf += char(c);
    }
  }
  [[noreturn]] void fail(const IngresColumn& c, const std::string& msg) const {
    const bool dummy = c.fmt.kind == CopyFormat::Dummy;
    throw_error(ErrKind::IO, pos_, src_, where() + ": " + (dummy ? "dummy " : "column ") + c.name + ": " + msg);
  }

 private:
  int get() {
    const int c = in_.get();
    if (c == EOF) check_read();
    byte_ += c != EOF;
    line_ += c == '\n';
    return c;
  }
  void check_read() const {
    if (in_.read_error())
      throw_error(ErrKind::IO, pos_, src_, where() + ": cannot read: " + std::strerror(in_.read_error()));
  }
  // A list with newlines in it is read by lines; a binary one by records.
  std::string where() const {
    if (lines_) return file_ + ":" + std::to_string(field_line_);
    return file_ + ": record " + std::to_string(record_) + " (byte " + std::to_string(field_byte_) + ")";
  }

  CopyInput& in_;
  const std::string& file_;
  const bool lines_;
  SrcPos pos_;
  const SourceRef& src_;
  uint64_t byte_ = 0, field_byte_ = 0, record_ = 0;
  uint32_t line_ = 1, field_line_ = 1;
};

[[noreturn]] void short_field(const FieldReader& in, const IngresColumn& col, size_t got, size_t n) {
  in.fail(col, "the file ends after " + std::to_string(got) + " of its " + std::to_string(n) +
                   " bytes (a short record)");
}

// copy rel () from: each record is a tuple as stored, read at once; what the
// field-by-field path would check, a whole last record and finite floats,
// is checked here with the same messages.
std::vector<uint8_t> parse_images(FieldReader& in, const Schema& schema, const std::vector<IngresColumn>& cols) {
  std::vector<uint8_t> out;
  const size_t len = schema.tuple_len;
  while (!in.at_end()) {
    memory_budget().check(out.size() + len, kWhat);
    in.start_record();
    in.start_field();
    const uint64_t start = in.field_byte();
    const size_t at = out.size();
    out.resize(at + len);
    size_t got = 0;
    const bool whole = in.fixed(reinterpret_cast<char*>(out.data() + at), len, got);
    for (size_t c = 0; c < cols.size(); ++c) {
      const Attribute& a = schema.attrs[c];
      in.field_at(start, a.offset);
      if (!whole && got < a.offset + a.type.len) short_field(in, cols[c], got - a.offset, a.type.len);
      if (!a.type.is_float()) continue;
      const CopyValue v = load_copy_value(a.type, out.data() + at + a.offset);
      if (!std::isfinite(v.f)) in.fail(cols[c], "the " + type_name(a.type) + " is not a finite number");
    }
  }
  return out;
}

// bulk: the list was `()`, every attribute as stored.
std::vector<uint8_t> parse_fields(CopyInput& input, const std::string& file, const Schema& schema,
                                  const std::vector<IngresColumn>& cols, const std::vector<int>& attr, bool bulk,
                                  SrcPos pos, const SourceRef& src) {
  bool lines = false;
  for (const IngresColumn& c : cols)
    lines |= reads_to_delimiter(c.fmt) && (c.fmt.delim == '\n' || c.fmt.delim == CopyFormat::kAnyEnd);
  FieldReader in(input, file, lines, pos, src);
  if (bulk) return parse_images(in, schema, cols);
  const std::vector<uint8_t> blank = blank_tuple(schema);
  std::vector<uint8_t> out;
  std::string buf;
  while (!in.at_end()) {
    // Charged as they come, as the CSV's are: a huge file ends in "memory
    // budget exceeded", not in the OOM killer.
    memory_budget().check(out.size() + blank.size(), kWhat);
    in.start_record();
    const size_t at = out.size();
    out.insert(out.end(), blank.begin(), blank.end());
    for (size_t c = 0; c < cols.size(); ++c) {
      const IngresColumn& col = cols[c];
      const CopyFormat& f = col.fmt;
      in.start_field();
      if (reads_to_delimiter(f)) {
        const FieldReader::End end = in.to_delimiter(f.delim, buf);
        // A last line without its newline (as some editors save) still ends the record.
        const bool last_line = c + 1 == cols.size() && (f.delim == '\n' || f.delim == CopyFormat::kAnyEnd);
        if (end == FieldReader::End::TooLong)
          in.fail(col, "longer than " + std::to_string(kIngresMaxFieldBytes >> 20) + " MiB with no " +
                           delimiter_text(f.delim) + " (is the format right?)");
        if (end == FieldReader::End::File && !last_line)
          in.fail(col, "the file ends before the " + delimiter_text(f.delim) + " that ends it");
      } else {
        const size_t n = f.kind == CopyFormat::Dummy ? f.len : f.type.len;
        buf.resize(n);
        size_t got = 0;
        if (!in.fixed(buf.data(), n, got)) short_field(in, col, got, n);
      }
      if (attr[c] < 0) continue;
      const Attribute& a = schema.attrs[size_t(attr[c])];
      if (std::string err = store_field(f, buf, a, out.data() + at + a.offset); !err.empty()) in.fail(col, err);
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> parse_ingres(std::string_view data, const std::string& file, const Schema& schema,
                                  const std::vector<IngresColumn>& cols_in, SrcPos pos, const SourceRef& src) {
  std::vector<int> attr;
  const std::vector<IngresColumn> cols = resolve(schema, cols_in, attr, true, pos, src);
  CopyInput in(data);
  return parse_fields(in, file, schema, cols, attr, cols_in.empty(), pos, src);
}

std::vector<uint8_t> read_ingres_file(const std::string& path, const Schema& schema,
                                      const std::vector<IngresColumn>& cols_in, SrcPos pos, const SourceRef& src) {
  std::vector<int> attr;
  const std::vector<IngresColumn> cols = resolve(schema, cols_in, attr, true, pos, src);  // before the file
  InterruptibleIo io;  // a FIFO waits for its writer: Ctrl-C ends the wait
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(open_copy_file(path, "rb", pos, src), std::fclose);
  CopyInput in(f.get());
  return parse_fields(in, path, schema, cols, attr, cols_in.empty(), pos, src);
}

IngresWriter::IngresWriter(const Schema& schema, const std::vector<IngresColumn>& cols, std::string file,
                           SrcPos pos, SourceRef src)
    : schema_(schema), bulk_(cols.empty()), file_(std::move(file)), pos_(pos), src_(std::move(src)) {
  cols_ = resolve(schema_, cols, attr_, false, pos_, src_);
}

void IngresWriter::fail(const IngresColumn& c, const std::string& msg) const {
  throw_error(ErrKind::IO, pos_, src_, file_ + ": record " + std::to_string(record_) + ": attribute " + c.name + ": " + msg);
}

void IngresWriter::add(const uint8_t* tuple) {
  if (bulk_) {  // the tuple image: what the field-by-field path would write, at once
    for (size_t c = 0; c < cols_.size(); ++c) {
      const Attribute& a = schema_.attrs[size_t(attr_[c])];
      if (a.type.is_float() && !std::isfinite(load_copy_value(a.type, tuple + a.offset).f))
        fail(cols_[c], "holds a non-finite value");
    }
    memory_budget().check(out_.size() + schema_.tuple_len, kWhat);
    out_.append(reinterpret_cast<const char*>(tuple), schema_.tuple_len);
    ++record_;
    return;
  }
  std::string rec;  // built aside: a failed add leaves the bytes as they were
  for (size_t c = 0; c < cols_.size(); ++c) {
    const IngresColumn& col = cols_[c];
    const CopyFormat& f = col.fmt;
    if (f.kind == CopyFormat::Dummy) {  // d0: nothing; d0delim: the delimiter; dN: the name's, N times
      if (f.len) rec.append(f.len, char(copy_delimiter_named(col.name)));
      else if (f.delim != CopyFormat::kAnyEnd) rec += char(f.delim);
      continue;
    }
    const Attribute& a = schema_.attrs[size_t(attr_[c])];
    CopyValue v = load_copy_value(a.type, tuple + a.offset);
    if (a.type.is_float() && !std::isfinite(v.f)) fail(col, "holds a non-finite value");
    if (f.kind == CopyFormat::Fixed && f.type.is_numeric()) {
      Type from = a.type;
      const std::string shown(a.type.is_char() ? std::string(v.s) : std::string());
      if (a.type.is_char()) {  // a character domain written as a number: its text must be one
        if (std::string err = parse_copy_text(f.type, std::string(trim_blanks(shown)), v); !err.empty())
          fail(col, err);
        from = f.type;
      }
      uint8_t bin[8];
      if (!store_copy_value(from, v, f.type, bin)) {
        std::string text;
        append_copy_number(from, v, text);
        fail(col, text + " does not fit format " + type_name(f.type));
      }
      rec.append(reinterpret_cast<const char*>(bin), f.type.len);
      continue;
    }
    std::string text;
    if (!a.type.is_char()) append_copy_number(a.type, v, text);
    else if (f.kind == CopyFormat::Var) text.assign(reinterpret_cast<const char*>(tuple + a.offset), a.type.len);
    else text = v.s;
    if (f.kind == CopyFormat::Fixed) {  // cN: characters padded or cut, numbers right-justified or refused
      const size_t n = f.type.len;
      if (text.size() > n && !a.type.is_char()) fail(col, text + " does not fit format " + type_name(f.type));
      text.resize(std::min(text.size(), n));
      const size_t pad = n - text.size();
      if (!a.type.is_char()) rec.append(pad, ' ');
      rec += text;
      if (a.type.is_char()) rec.append(pad, ' ');
      continue;
    }
    // c0: the domain's width for characters (the manual), a number's
    // shortest text; escaped where copy from would end the field.
    for (char ch : text) {
      if (ch == '\\' || ends_field(f.delim, static_cast<unsigned char>(ch))) rec += '\\';
      rec += ch;
    }
    if (f.delim != CopyFormat::kAnyEnd) rec += char(f.delim);
  }
  memory_budget().check(out_.size() + rec.size(), kWhat);
  out_ += rec;
  ++record_;
}

void IngresWriter::save() const { save_copy_file(file_, out_, pos_, src_); }

void write_ingres_file(const std::string& path, const Relation& rel, const std::vector<IngresColumn>& cols,
                       SrcPos pos, const SourceRef& src) {
  IngresWriter w(rel.schema(), cols, path, pos, src);
  rel.for_each([&](Tid, const uint8_t* t) { w.add(t); });
  w.save();
}

}  // namespace quelkit::harness
