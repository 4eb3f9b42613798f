// A file the kit writes (`copy ... into`, `quelkit gen --csv`, the reports'
// files) is written whole or not at all: a regular file goes to a hidden
// temporary beside it, renamed over the name once every byte is written, so
// a failed or cancelled write (the disk full, the file-size limit, Ctrl-C)
// leaves the old file, or none. A FIFO, a device or a terminal is streamed
// to, as it must be. The one place that decides how; callers say what failed.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace quelkit::harness {

class WholeFile {
 public:
  static constexpr size_t kUnknownSize = ~size_t(0);
  // Opens where `path`'s bytes go; ok() says whether it could. `bytes`: how
  // many will be written, when known before the first (copy into's text),
  // so that a file written in place reserves them at once. `cancellable`: a
  // Ctrl-C (storage/budget.h's flag) ends a wait or a streamed write with the
  // statement error "cancelled", thrown; otherwise writes are not cut short.
  explicit WholeFile(std::string path, size_t bytes = kUnknownSize, bool cancellable = false);
  // Unless committed, the temporary (or a file this created) is removed and
  // an existing file is as it was.
  ~WholeFile();
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  bool ok() const { return error_.empty(); }
  // What failed, as "cannot open F: reason" or "cannot write F: reason";
  // empty while nothing has.
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

  // Appends bytes; false (error() set) once anything failed.
  bool write(std::string_view bytes);
  // The same as a stream, for writers that take one (gen's CSV, the
  // reports' JSON): its badbit is set once a write fails.
  std::ostream& stream() { return stream_; }
  // Every byte written: a temporary is renamed over the name, a file written
  // in place cut to its length. False (error() set) if anything failed,
  // before or now; the file is then as it was.
  bool commit();

  // A regular file this could not replace (a name with other links, a
  // symbolic link, a directory that refuses a temporary, an owner only root
  // could give back) is written in place, but only once the space for every
  // byte is reserved, so that what a write fails on comes before the old
  // content is touched: at once when the size was given, else at commit(),
  // its bytes held until then. Once begun, it is written to the end.
  bool in_place() const;

 private:
  class Impl;
  class Buf;
  std::string path_, error_;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Buf> buf_;
  std::ostream stream_;
};

// Commits each of several files one run writes (a report's JSON and CSV),
// every one of them even after one failed: the first error, or "" if every
// file was written.
std::string commit_all(std::initializer_list<WholeFile*> files);

}  // namespace quelkit::harness
