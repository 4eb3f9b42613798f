// What copy's two file formats share (storage/csv.h, the kit's CSV;
// storage/copy_format.h, INGRES's formats): the file read a chunk at a time,
// opening under Ctrl-C, and the conversions between a value as the file has
// it and as an attribute stores it, so both formats convert alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/schema.h"
#include "frontend/source.h"

namespace quelkit::harness {

// A value on its way between a format and an attribute.
struct CopyValue {
  int64_t i = 0;
  double f = 0;
  std::string_view s;
};

// Stores v (of kind `from`) into an attribute of type `to`; false if it does
// not fit (a string longer than `to`, an integer out of range, f8 -> f4 not
// finite).
bool store_copy_value(Type from, const CopyValue& v, Type to, uint8_t* dst);
// Reads one stored value of type t (characters without trailing blanks).
CopyValue load_copy_value(Type t, const uint8_t* p);
// Parses text as a value of type fmt; an error message, or empty. Strict: no
// blanks around a number, nothing after it.
std::string parse_copy_text(Type fmt, const std::string& text, CopyValue& v);
// Appends a number of type t as text: decimal, floats in the shortest form
// that reads back to the same value.
void append_copy_number(Type t, const CopyValue& v, std::string& out);

// The tuple a copy from starts each record with: the attributes the column
// list leaves out are 0, or blanks for characters.
std::vector<uint8_t> blank_tuple(const Schema& schema);

// Where a copy's file comes from: text in memory, or a file read a chunk at
// a time, so `copy` holds a chunk of the file at most beside the tuples it
// has made; Ctrl-C is seen between chunks.
class CopyInput {
 public:
  explicit CopyInput(std::string_view text) : buf_(text) {}
  explicit CopyInput(std::FILE* f) : f_(f), chunk_(1 << 16) {}

  int peek() {
    if (i_ == buf_.size() && !refill()) return EOF;
    return static_cast<unsigned char>(buf_[i_]);
  }
  int get() {
    int c = peek();
    if (c != EOF) ++i_;
    return c;
  }
  // A UTF-8 byte-order mark at the start (editors on Windows write one) is
  // not part of the first column's name.
  void skip_bom() {
    if (peek() != EOF && buf_.substr(i_, 3) == "\xef\xbb\xbf") i_ += 3;
  }
  int read_error() const { return error_; }
  // Up to n bytes into dst, fewer only at the end of the input: how many.
  size_t read(char* dst, size_t n);

 private:
  bool refill();

  std::FILE* f_ = nullptr;
  std::vector<char> chunk_;
  std::string_view buf_;
  size_t i_ = 0;
  int error_ = 0;
};

// fopen, where Ctrl-C ends a wait in it (a FIFO with no one at the other
// end) as "cancelled"; any other failure is the statement's I/O error.
std::FILE* open_copy_file(const std::string& path, const char* mode, SrcPos pos, const SourceRef& src);

// Writes a copy into's bytes to file at once (storage/whole_file.h: whole or
// not at all); the statement's I/O error if it cannot.
void save_copy_file(const std::string& file, const std::string& bytes, SrcPos pos, const SourceRef& src);

}  // namespace quelkit::harness
