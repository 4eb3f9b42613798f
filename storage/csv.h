// The CSV that `copy rel (attr = fmt, ...) from|into "file"` reads and writes
// when its formats are i1..f8 and c1..c255 alone (INGRES's formats:
// storage/ingres_copy.h), and that `quelkit gen` writes: a header line of
// column names, then one record per tuple (RFC 4180 quoting). Reading is
// all-or-nothing: every tuple is parsed and converted before the caller
// inserts any, so a bad line changes nothing.
//
// Conversions between a column's format and its attribute's type, both ways:
// integers <-> integers (range checked), integers -> floats, floats <-> floats
// (f8 -> f4 must stay finite), characters <-> characters (stripped length must
// fit); floats -> integers and characters <-> numbers are type errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/schema.h"
#include "frontend/source.h"
#include "storage/relation.h"

namespace quelkit::harness {

// One `attr = fmt` of the copy statement. An empty column list means every
// attribute, in order, with its own type as format.
struct CopyColumn {
  std::string name;
  Type fmt;
  // Where the statement names the attribute and its format: the caret of a
  // column's error (no such attribute, listed twice, no conversion). Line 0:
  // not from a statement, the copy's file position is used.
  SrcPos name_pos{}, fmt_pos{};
};

// The longest record `copy` reads (a record is a line, or several when a
// quoted field holds line breaks): beyond it the file is not a CSV of
// tuples (/dev/zero, a binary), and reading stops with an error.
constexpr size_t kCsvMaxRecordBytes = size_t(1) << 20;

// Parses `text` (named `file` in messages) into packed tuples of `schema`,
// returned back to back (size / schema.tuple_len tuples). Each listed column
// is found in the header by name, case-insensitively; attributes not listed
// are zero or blank. A UTF-8 byte-order mark at the start is skipped. Errors
// are QuelError at the copy statement's position: Name/Type for a bad column
// list, IO with "file:line: ..." for the data.
std::vector<uint8_t> parse_csv(std::string_view text, const std::string& file, const Schema& schema,
                               const std::vector<CopyColumn>& cols, SrcPos pos, const SourceRef& src);
// parse_csv over a file, read as it is parsed (one record held at a time).
// "cannot open FILE: reason" if it cannot.
std::vector<uint8_t> read_csv_file(const std::string& path, const Schema& schema,
                                   const std::vector<CopyColumn>& cols, SrcPos pos, const SourceRef& src);

// Builds the CSV text in memory, so a conversion error leaves no partial file
// (and save() writes it whole or not at all: storage/whole_file.h):
// ints in decimal, floats in shortest round-trip form, characters without
// trailing blanks, quoted only when they contain a comma, quote or line break.
// `schema` must outlive the writer.
class CsvWriter {
 public:
  CsvWriter(const Schema& schema, std::vector<CopyColumn> cols, std::string file, SrcPos pos,
            SourceRef src);
  void add(const uint8_t* tuple);
  const std::string& text() const { return out_; }
  void save() const;  // writes the file at once; IO error if it cannot

 private:
  [[noreturn]] void fail(const std::string& msg) const;

  const Schema& schema_;
  std::vector<CopyColumn> cols_;
  std::vector<int> attr_;  // schema attribute of each column
  std::string file_;
  SrcPos pos_;
  SourceRef src_;
  std::string out_;
  uint32_t line_ = 1;  // line the next row starts on (quoted line breaks count), for messages
};

// copy ... into: every live tuple of rel in scan order.
void write_csv_file(const std::string& path, const Relation& rel, const std::vector<CopyColumn>& cols,
                    SrcPos pos, const SourceRef& src);

}  // namespace quelkit::harness
