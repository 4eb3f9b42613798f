// What copy's formats share (storage/copy_io.h): conversions and input.
#include "storage/copy_io.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "storage/budget.h"
#include "storage/page.h"
#include "storage/whole_file.h"

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

namespace {

int64_t int_min(Type t) { return t.kind == Tk::I1 ? -128 : t.kind == Tk::I2 ? -32768 : INT32_MIN; }
int64_t int_max(Type t) { return t.kind == Tk::I1 ? 127 : t.kind == Tk::I2 ? 32767 : INT32_MAX; }

}  // namespace

// Stores v (of kind `from`) into an attribute of type `to`; false if it does not fit.
bool store_copy_value(Type from, const CopyValue& v, Type to, uint8_t* dst) {
  if (to.is_char()) {
    const auto* s = reinterpret_cast<const uint8_t*>(v.s.data());
    uint32_t n = rt::strip(s, uint32_t(v.s.size()));
    if (n > to.len) return false;
    rt::store_char(dst, to.len, s, n);
    return true;
  }
  if (to.is_int()) {
    // A float truncates toward zero, as assignment stores one (only
    // INGRES's copy formats convert floats to integers; the CSV refuses).
    if (from.is_float() && !(v.f > double(int_min(to)) - 1 && v.f < double(int_max(to)) + 1)) return false;
    const int64_t i = from.is_float() ? int64_t(std::trunc(v.f)) : v.i;
    if (i < int_min(to) || i > int_max(to)) return false;
    if (to.kind == Tk::I1) store<int8_t>(dst, int8_t(i));
    else if (to.kind == Tk::I2) store<int16_t>(dst, int16_t(i));
    else store<int32_t>(dst, int32_t(i));
    return true;
  }
  double d = from.is_int() ? double(v.i) : v.f;
  if (to.kind == Tk::F4) {
    float x = float(d);
    if (!std::isfinite(x)) return false;
    store<float>(dst, x);
  } else {
    store<double>(dst, d);
  }
  return true;
}

// Reads one value of the attribute's type into a CopyValue.
CopyValue load_copy_value(Type t, const uint8_t* p) {
  CopyValue v;
  switch (t.kind) {
    case Tk::I1: v.i = load<int8_t>(p); break;
    case Tk::I2: v.i = load<int16_t>(p); break;
    case Tk::I4: v.i = load<int32_t>(p); break;
    case Tk::F4: v.f = load<float>(p); break;
    case Tk::F8: v.f = load<double>(p); break;
    case Tk::C: v.s = std::string_view(reinterpret_cast<const char*>(p), rt::strip(p, t.len)); break;
    case Tk::B: v.i = load<uint8_t>(p); break;
  }
  return v;
}

// Parses a field as written in format fmt; an error message or empty.
std::string parse_copy_text(Type fmt, const std::string& text, CopyValue& v) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (fmt.is_char()) {
    v.s = text;
    if (rt::strip(reinterpret_cast<const uint8_t*>(b), uint32_t(text.size())) > fmt.len)
      return "value longer than " + type_name(fmt);
    return {};
  }
  if (fmt.is_int()) {
    auto [p, ec] = std::from_chars(b, e, v.i);
    if (text.empty() || p != e || (ec != std::errc() && ec != std::errc::result_out_of_range))
      return "\"" + text + "\" is not an integer";
    if (ec == std::errc::result_out_of_range || v.i < int_min(fmt) || v.i > int_max(fmt))
      return text + " is out of range for " + type_name(fmt);
    return {};
  }
  // Parse f4 directly as float: going through double would round twice.
  std::from_chars_result r;
  if (fmt.kind == Tk::F4) {
    float x = 0;
    r = std::from_chars(b, e, x, std::chars_format::general);
    v.f = x;
  } else {
    r = std::from_chars(b, e, v.f, std::chars_format::general);
  }
  if (text.empty() || r.ptr != e || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
    return "\"" + text + "\" is not a number";
  if (r.ec == std::errc::result_out_of_range) return text + " is out of range for " + type_name(fmt);
  if (!std::isfinite(v.f)) return "\"" + text + "\" is not a finite number";
  return {};
}


std::vector<uint8_t> blank_tuple(const Schema& schema) {
  std::vector<uint8_t> blank(schema.tuple_len, 0);
  for (const Attribute& a : schema.attrs)
    if (a.type.is_char()) std::memset(blank.data() + a.offset, ' ', a.type.len);
  return blank;
}

void append_copy_number(Type t, const CopyValue& v, std::string& out) {
  char num[64];
  if (t.is_int()) out.append(num, std::to_chars(num, num + sizeof num, v.i).ptr);
  else if (t.kind == Tk::F4) out.append(num, std::to_chars(num, num + sizeof num, float(v.f)).ptr);
  else out.append(num, std::to_chars(num, num + sizeof num, v.f).ptr);
}

size_t CopyInput::read(char* dst, size_t n) {
  size_t got = 0;
  while (got < n && (i_ < buf_.size() || refill())) {
    const size_t k = std::min(n - got, buf_.size() - i_);
    std::memcpy(dst + got, buf_.data() + i_, k);
    i_ += k;
    got += k;
  }
  return got;
}

bool CopyInput::refill() {
  if (!f_) return false;
  size_t k = 0;
  for (;;) {
    check_cancel();  // a large file is cancelled between chunks
    k = std::fread(chunk_.data(), 1, chunk_.size(), f_);
    if (k > 0 || !std::ferror(f_) || errno != EINTR) break;
    std::clearerr(f_);  // Ctrl-C (InterruptibleIo): cancelled above, or a signal meant for no one
  }
  if (k == 0) {
    if (std::ferror(f_)) error_ = errno ? errno : EIO;
    return false;
  }
  buf_ = std::string_view(chunk_.data(), k);
  i_ = 0;
  return true;
}

// fopen, where Ctrl-C ends a wait in it (a FIFO with no one at the other
// end) as "cancelled"; any other failure is the statement's I/O error.
std::FILE* open_copy_file(const std::string& path, const char* mode, SrcPos pos, const SourceRef& src) {
  if (path.empty()) throw_error(ErrKind::IO, pos, src, "copy needs a file name (\"\" names none)");
  for (;;) {
    check_cancel();
    if (std::FILE* f = std::fopen(path.c_str(), mode)) return f;
    if (errno != EINTR) throw_error(ErrKind::IO, pos, src, "cannot open " + path + ": " + std::strerror(errno));
  }
}

void save_copy_file(const std::string& file, const std::string& bytes, SrcPos pos, const SourceRef& src) {
  if (file.empty()) throw_error(ErrKind::IO, pos, src, "copy needs a file name (\"\" names none)");
  InterruptibleIo io;  // a FIFO waits for its reader: Ctrl-C ends the wait
  WholeFile dest(file, bytes.size(), /*cancellable=*/true);
  if (dest.in_place()) check_cancel();  // the last moment the old file is whole
  if (!dest.write(bytes) || !dest.commit()) throw_error(ErrKind::IO, pos, src, dest.error());
}

}  // namespace quelkit::harness
