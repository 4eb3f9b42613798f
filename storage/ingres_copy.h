// `copy rel (dom = fmt, ...) from|into "file"` in University INGRES's formats
// (frontend/copy_format.h): binary i1/i2/i4/f4/f8, fixed cN text, c0 text
// ended by a delimiter, dN/d0 dummies, and `copy rel ()`, the bulk copy of
// the tuple image. Like the CSV (storage/csv.h) a copy from parses and
// converts every record before the caller inserts any, and a copy into
// builds the file in memory and writes it whole, so a failure changes
// nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/copy_format.h"
#include "frontend/schema.h"
#include "frontend/source.h"
#include "storage/relation.h"

namespace quelkit::harness {

// One `dom = fmt` of the statement. A dummy's name is no attribute's: copy
// into writes the delimiter it names. An empty list: the bulk copy, every
// attribute in order in its own type (the tuple image).
struct IngresColumn {
  std::string name;
  CopyFormat fmt;
  SrcPos name_pos{}, fmt_pos{};  // line 0: use the copy's file position
};

// The longest c0 or d0 field read: beyond it the file has no delimiter
// where the list says (a binary, /dev/zero), and reading stops with an error.
constexpr size_t kIngresMaxFieldBytes = size_t(1) << 20;

// Parses `data` (named `file` in messages) into packed tuples of `schema`,
// back to back. Errors: Name/Type at the column's caret for a bad list, IO
// with "file:LINE: column X: ..." (a list whose c0 or d0 ends at a newline
// or names no delimiter) or "file: record N (byte B): column X: ...".
std::vector<uint8_t> parse_ingres(std::string_view data, const std::string& file, const Schema& schema,
                                  const std::vector<IngresColumn>& cols, SrcPos pos, const SourceRef& src);
// parse_ingres over a file, read a chunk at a time.
std::vector<uint8_t> read_ingres_file(const std::string& path, const Schema& schema,
                                      const std::vector<IngresColumn>& cols, SrcPos pos, const SourceRef& src);

// Builds the file's bytes in memory; save() writes them whole or not at all.
// `schema` must outlive the writer.
class IngresWriter {
 public:
  IngresWriter(const Schema& schema, const std::vector<IngresColumn>& cols, std::string file, SrcPos pos,
               SourceRef src);
  void add(const uint8_t* tuple);
  const std::string& bytes() const { return out_; }
  void save() const;

 private:
  [[noreturn]] void fail(const IngresColumn& c, const std::string& msg) const;

  const Schema& schema_;
  std::vector<IngresColumn> cols_;
  std::vector<int> attr_;  // schema attribute of each column, -1 for a dummy
  bool bulk_ = false;      // `()`: each tuple's bytes as stored
  std::string file_;
  SrcPos pos_;
  SourceRef src_;
  std::string out_;
  uint64_t record_ = 1;  // the record being written, for messages
};

// copy ... into: every live tuple of rel in scan order.
void write_ingres_file(const std::string& path, const Relation& rel, const std::vector<IngresColumn>& cols,
                       SrcPos pos, const SourceRef& src);

}  // namespace quelkit::harness
