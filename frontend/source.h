// Source text, positions and the kit's one error type. Every error a user can
// cause (lexical, syntax, name, type, runtime, I/O, usage) is an Error with a
// position, printed as `file:line:col: error: message`, the line and a caret.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quelkit {

struct SrcPos {
  uint32_t line = 0;  // 1-based; 0 = no position
  uint32_t col = 0;   // 1-based byte column
  // Packed form handed to generated code and runtime helpers (no pointers).
  constexpr uint64_t pack() const { return (uint64_t(line) << 32) | col; }
  static constexpr SrcPos unpack(uint64_t v) { return {uint32_t(v >> 32), uint32_t(v)}; }
  friend constexpr bool operator==(SrcPos a, SrcPos b) { return a.line == b.line && a.col == b.col; }
};

// A named text (a .quel file, -e text or monitor buffer), shared by everything
// that must quote a line in an error message.
class Source {
 public:
  // Where a run of lines came from, for a text put together from several (the
  // monitor's buffer with a file read in by \i): from `first_line` of this
  // text on, lines are lines of `name` counted from `origin_line`, until the
  // next Origin. Lines before the first Origin, and from an Origin without
  // a name, are this text's own.
  struct Origin {
    uint32_t first_line;
    std::string name;
    uint32_t origin_line;
  };

  // A text whose reading stopped at a line too long to read (read_text
  // below): the text holds the lines before it, `head` that line's first
  // bytes (what an error shows of it), `message` why. The parser reports it
  // as an error at the line's start and runs nothing from there on.
  struct Cut {
    std::string head;
    std::string message;
  };

  Source(std::string name, std::string text, std::vector<Origin> origins = {}, std::optional<Cut> cut = {});
  const std::string& name() const { return name_; }
  const std::optional<Cut>& cut() const { return cut_; }
  uint32_t cut_line() const { return uint32_t(lines()); }  // with cut(): the line not read
  const std::string& text() const { return text_; }
  std::string_view line(uint32_t n) const;  // without newline; empty if out of range
  SrcPos pos_of(size_t offset) const;       // byte offset -> line:col
  // `name:line` of this text's line n as a reader finds it: in the file it
  // came from where an Origin says so.
  std::string where(uint32_t n) const;
 private:
  std::string name_, text_;
  std::vector<size_t> later_starts_;  // where lines 2, 3, ... start
  size_t lines() const { return later_starts_.size() + 1; }
  size_t start(size_t line0) const { return line0 ? later_starts_[line0 - 1] : 0; }  // of 0-based line line0
  std::vector<Origin> origins_;  // ordered by first_line
  std::optional<Cut> cut_;
};
using SourceRef = std::shared_ptr<const Source>;

enum class ErrKind : uint8_t { Lexical, Syntax, Name, Type, Runtime, IO, Usage };
const char* errkind_name(ErrKind k);

struct Error {
  ErrKind kind = ErrKind::Syntax;
  std::string message;
  SrcPos pos;
  SourceRef src;            // may be null (command-line errors)
  std::string relation;     // runtime errors: relation being scanned
  int64_t tuple = -1;       // runtime errors: 1-based ordinal of the tuple in scan order
  int32_t code = 0;         // runtime errors: qk_err code (runtime/runtime.h)

  // `file:line:col: error: message` + source line + caret (no trailing
  // newline). The column counts characters; the line is shown at most about
  // 120 columns around the caret, control bytes and malformed UTF-8 as \xNN.
  std::string format() const;
  // Same error, ignoring how it is printed: for differential comparison.
  friend bool operator==(const Error& a, const Error& b) {
    return a.kind == b.kind && a.message == b.message && a.pos == b.pos &&
           a.relation == b.relation && a.tuple == b.tuple && a.code == b.code;
  }
};

// Thrown inside the front end and harness (never across generated code; back
// ends report runtime errors through qk_ctx and the harness turns them into this).
struct QuelError : std::exception {
  Error err;
  explicit QuelError(Error e) : err(std::move(e)) {}
  const char* what() const noexcept override { return err.message.c_str(); }
};

[[noreturn]] void throw_error(ErrKind k, SrcPos pos, const SourceRef& src, std::string msg);

// The 1-based column, in UTF-8 characters, of 1-based byte column `byte_col`
// of `line` (a malformed byte counts as one character).
uint32_t char_column(std::string_view line, uint32_t byte_col);

// `file:line:col` of a position as a reader finds it: the file and line an
// Origin gives, the column in characters; `line:col` without a source.
std::string position_text(const SourceRef& src, SrcPos pos);

// The most a line of a script may hold, and a whole script (a file, standard
// input, the monitor's buffer): well above the largest statements written
// (100,000 terms, about 1.7 MB), and past either reading stops with an error
// at that line, rather than memory growing with input that has no line ends
// (`quelkit /dev/zero`).
constexpr size_t kMaxLineBytes = size_t(16) << 20;
constexpr size_t kMaxTextBytes = size_t(256) << 20;

// One line of `in` without its newline (a CR before it is kept, as
// Source::line drops it). End: nothing was left to read. TooLong: the line
// holds more than `max` bytes; *line has its first `max` and the rest of the
// input is left unread.
enum class LineRead { Line, End, TooLong };
LineRead read_line(std::istream& in, std::string* line, size_t max = kMaxLineBytes);

// The cut of a text whose line `line` is longer than kMaxLineBytes, or
// (`whole`) would make the text longer than kMaxTextBytes; `head`: that
// line's first bytes (as many as an error's echo could show are kept).
Source::Cut cut_at(std::string_view head, bool whole);

// The lines of `in` as one text, each ending in a newline, until its end or
// the first line that a limit above cuts (then *cut says why and the text
// holds the lines before it). A leading UTF-8 byte-order mark is dropped.
// False if reading failed (in.bad()).
bool read_text(std::istream& in, std::string* text, std::optional<Source::Cut>* cut);

// `text` without a leading UTF-8 byte-order mark (scripts and CSV files may
// start with one; it is not part of the text).
std::string_view strip_bom(std::string_view text);

}  // namespace quelkit
