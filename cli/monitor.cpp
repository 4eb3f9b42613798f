// The terminal monitor (monitor.h): the query buffer and its backslash
// commands, read from a stream or, on a terminal, with libedit.
#include "cli/monitor.h"

#include <fcntl.h>
#include <histedit.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "storage/budget.h"

namespace quelkit::cli {

namespace {

// A file's identity, whatever path named it (known false: no such file).
struct FileId {
  bool known = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

FileId file_id(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  return {true, st.st_dev, st.st_ino};
}

constexpr size_t kMaxIncludeDepth = 16;

// Why `path` may not be included while the files `open` are being read
// (`depth` of them included), "" if it may, for the monitor's \i and a
// script's alike. A file already being read (itself, or one that includes
// it) would be read again from its top: refused before any of its lines
// runs, since each round would repeat their appends and deletes.
std::string include_refusal(const std::string& path, const FileId& id, const std::vector<FileId>& open,
                            size_t depth) {
  for (const FileId& o : open)
    if (id.known && o.known && o.dev == id.dev && o.ino == id.ino)
      return path +
             " is being read already (a file that includes itself, directly or through others, would run again and "
             "again); nothing of it runs";
  if (depth >= kMaxIncludeDepth)
    return "files included " + std::to_string(kMaxIncludeDepth) + " deep, the most there may be";
  return "";
}

// A script file opened to be read (a directory is refused by name: its
// stream opens but reads nothing); false with the reason in *err.
bool open_script(const std::string& path, std::ifstream* f, std::string* err) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *err = "is a directory";
    return false;
  }
  f->open(path, std::ios::binary);
  if (!*f) {
    *err = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  return true;
}

constexpr const char* kCommands = "\\g go, \\p print, \\r reset, \\e edit, \\i FILE include, \\q quit, \\? this list";

// The query buffer and the commands that act on it.
class Monitor {
 public:
  explicit Monitor(harness::Session& s) : session_(s) {}

  enum class Next { More, Quit };

  // One line of input: text goes to the buffer, commands run.
  Next line(const std::string& l) {
    // A line that starts with a command is commands even inside a comment a
    // line before left open: \r, \p and \q reach the monitor (a missing */
    // made every later command comment text; Ctrl-D was the only way out).
    // The comment is open again after it, while the buffer still holds it.
    const size_t first = l.find_first_not_of(" \t");
    const bool reopen = in_comment_ && first != std::string::npos && l[first] == '\\' && first + 1 < l.size() &&
                        (std::isalpha(static_cast<unsigned char>(l[first + 1])) || l[first + 1] == '?');
    if (reopen) in_comment_ = false;
    struct Reopen {
      Monitor& m;
      bool on;
      ~Reopen() {
        if (on && m.pending()) m.in_comment_ = true;
      }
    } reopen_after{*this, reopen};
    size_t seg = 0;  // start of the text not yet in the buffer
    bool in_string = false, commands = false;
    const size_t n = l.size();
    for (size_t i = 0; i < n;) {
      const char c = l[i];
      const char next = i + 1 < n ? l[i + 1] : '\0';
      if (in_comment_) {
        if (c == '*' && next == '/') {
          in_comment_ = false;
          i += 2;
        } else {
          ++i;
        }
        continue;
      }
      if (in_string) {  // only \" and \\ escape; a string ends on its line
        if (c == '\\' && next) {
          i += 2;
        } else {
          in_string = c != '"';
          ++i;
        }
        continue;
      }
      if (c == '"') {
        // A string ends on its line: one left open is no string here (the
        // lexer says so when it runs), so a command after it is a command.
        size_t k = i + 1;
        while (k < n && l[k] != '"') k += l[k] == '\\' && k + 1 < n ? 2 : 1;
        in_string = k < n;
        ++i;
        continue;
      }
      if (c == '/' && next == '*') {
        in_comment_ = true;
        i += 2;
        continue;
      }
      if (c == '\\' && next == '?') {  // psql's and INGRES users' reflex for help
        add(l.substr(seg, i - seg), true, seg);
        if (stopped_) return Next::More;
        commands = true;
        std::cout << "monitor commands: " << kCommands << "\n" << std::flush;
        seg = i = i + 2;
        continue;
      }
      if (c != '\\' || !std::isalpha(static_cast<unsigned char>(next))) {
        ++i;
        continue;
      }
      // A command: the text before it belongs to the buffer first.
      commands = true;
      add(l.substr(seg, i - seg), true, seg);
      if (stopped_) return Next::More;
      size_t j = i + 1;
      while (j < n && std::isalpha(static_cast<unsigned char>(l[j]))) ++j;
      std::string word = l.substr(i + 1, j - i - 1);
      for (char& ch : word) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      seg = i = j;
      if (word == "g" || word == "go") {
        go();
      } else if (word == "p" || word == "print") {
        std::cout << buf_ << std::flush;
      } else if (word == "r" || word == "reset") {
        reset();
      } else if (word == "q" || word == "quit") {
        return Next::Quit;
      } else if (word == "e" || word == "edit" || word == "editor") {
        edit();
      } else if (word == "i" || word == "include" || word == "read") {
        return include(l.substr(j));  // the rest of the line was the file name
      } else {
        std::cerr << "quelkit: " << where() << "unknown monitor command \\" << word << " (" << kCommands << ")\n";
        ok_ = false;
      }
      // Ctrl-C, or a syntax error that stops the text: the rest of the line is not read.
      if (harness::cancel_requested() || stopped_) return Next::More;
    }
    add(l.substr(seg), commands, seg);
    return Next::More;
  }

  // Input ended without \g: run what is left rather than drop it (what a
  // \g ran already does not run again).
  void finish() {
    if (pending()) go();
    in_comment_ = false;
  }

  // A line too long to read (read_line), or one that would make the buffer
  // longer than a script may be, ends the input there as a syntax error ends
  // a text: the buffer runs cut at that line (what is wholly before it runs,
  // nothing from it on), and reading stops: piped input ends (exit 1), the
  // \i files being read are left, a terminal is back at its prompt.
  void cut(std::string_view head, bool whole) {
    if (ran_) reset();  // the line is new text: what the last \g ran does not run again
    note_origin();
    run_buffer(cut_at(head, whole));
    reset();
    stopped_ = true;
  }

  bool ok() const { return ok_; }
  bool cancelled() const { return cancelled_; }
  // Reading stops: the last \g met a syntax error (docs/DESIGN.md: it
  // stops the text), or a line was cut (cut()): the files \i is reading
  // stop there, and so does input piped in; at a terminal the user's next
  // line goes on (resume()).
  bool stopped() const { return stopped_; }
  void resume() { stopped_ = false; }
  // Text waiting for \g (not blanks alone, nor the statements just run).
  bool pending() const { return !ran_ && has_text(); }

 private:
  // Text of a line: each line of the buffer ends in a newline. Blank text
  // beside a command, or before anything was typed, adds no line. Text that
  // followed a command on its line (`\g retrieve ...`) starts at `column` of
  // it: blanks stand for what went before, so an error's column is the
  // typed line's or the file's.
  // After a \g the buffer holds what ran until new text replaces it.
  void add(const std::string& text, bool beside_command, size_t column) {
    const bool blank = text.find_first_not_of(" \t\r") == std::string::npos;
    if (blank && (beside_command || buf_.empty() || ran_)) return;
    if (ran_) reset();
    if (buf_.size() + column + text.size() + 1 > kMaxTextBytes) return cut(text, true);
    note_origin();
    buf_.append(column, ' ');
    buf_ += text;
    buf_ += '\n';
    lines_ += uint32_t(std::count(text.begin(), text.end(), '\n')) + 1;
  }

  // The buffer's next line comes from the line being read: a file's (\i)
  // or the monitor's own. Where it does not follow from the last recorded
  // origin (another file, a line skipped), a new one is recorded, so that
  // errors name the file and line a statement came from.
  void note_origin() {
    const uint32_t next = lines_ + 1;
    const std::string& name = reading_.empty() ? kTyped : reading_.back().name;
    const uint32_t want = reading_.empty() ? next : reading_.back().line;
    if (origins_.empty() ? name.empty()
                         : (origins_.back().name == name &&
                            (name.empty() || origins_.back().origin_line + (next - origins_.back().first_line) == want)))
      return;
    origins_.push_back({next, name, want});
  }

  // \g: the buffer runs and stays, as INGRES kept its workspace until the
  // next text was typed: \p shows what ran, \e mends a typo in it, \g runs
  // it again. A \g with only that (or nothing) in the buffer runs it again.
  void go() {
    if (has_text()) run_buffer({});
    ran_ = true;
    in_comment_ = false;
  }

  void run_buffer(std::optional<Source::Cut> cut) {
    harness::clear_cancel();
    auto src = std::make_shared<Source>("<monitor:" + std::to_string(++runs_) + ">", buf_, origins_, std::move(cut));
    ok_ = session_.run(src) && ok_;
    stopped_ = session_.stopped();
    cancelled_ = cancelled_ || harness::cancel_requested();
    std::cout << std::flush;
  }

  void reset() {
    buf_.clear();
    lines_ = 0;
    origins_.clear();
    in_comment_ = false;
    ran_ = false;
  }

  bool has_text() const { return buf_.find_first_not_of(" \t\r\n") != std::string::npos; }

  // \i: the file's lines are read as if typed, as INGRES switched its input
  // to the file: text goes to the buffer, a \g in the file runs it there and
  // then, a \q quits. What is left without a \g stays in the buffer.
  Next include(std::string path) {
    const size_t b = path.find_first_not_of(" \t");
    const size_t e = path.find_last_not_of(" \t\r");
    path = b == std::string::npos ? "" : path.substr(b, e - b + 1);
    if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
    if (path.empty()) {
      std::cerr << "quelkit: " << where() << "\\i needs a file name\n";
      ok_ = false;
      return Next::More;
    }
    const FileId id = file_id(path);
    std::vector<FileId> open;
    for (const Reading& r : reading_) open.push_back(r.id);
    std::ifstream in;
    std::string err = include_refusal(path, id, open, reading_.size());
    if (err.empty()) open_script(path, &in, &err);
    if (!err.empty()) {
      std::cerr << "quelkit: " << where() << "\\i " << path << ": error: " << err << "\n";
      ok_ = false;
      return Next::More;
    }
    reading_.push_back({path, 0, id});
    Next next = Next::More;
    // Read a line at a time, each bounded (read_line): `\i /dev/zero` is a
    // line too long, not memory without end.
    std::string l;
    for (bool first = true; next == Next::More; first = false) {
      const LineRead r = read_line(in, &l);
      if (r == LineRead::End) break;
      if (first) l.erase(0, l.size() - strip_bom(l).size());  // no copy of a long line
      ++reading_.back().line;
      if (r == LineRead::TooLong) {
        cut(l, false);
        break;
      }
      next = line(l);
      // Ctrl-C cancelled a statement this file ran, or a syntax error
      // stopped it: the rest is not read (nor the rest of the files that
      // include it, each of which says so).
      if (next == Next::More && (harness::cancel_requested() || stopped_)) {
        if (in.peek() != std::char_traits<char>::eof())
          std::cerr << "quelkit: \\i " << path << ": " << (stopped_ ? "stopped by the syntax error" : "cancelled")
                    << "; not read after line " << reading_.back().line << "\n";
        break;
      }
    }
    if (in.bad()) {
      std::cerr << "quelkit: " << where() << "\\i " << path << ": error: cannot read: " << std::strerror(errno) << "\n";
      ok_ = false;
    }
    reading_.pop_back();
    return next;
  }

  // \e: the buffer in the user's editor, read back when it exits.
  void edit() {
    const char* ed = std::getenv("VISUAL");
    if (!ed || !*ed) ed = std::getenv("EDITOR");
    if (!ed || !*ed) ed = "vi";
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/quelkit-XXXXXX.quel";
    int fd = mkstemps(path.data(), 5);
    if (fd < 0) {
      std::cerr << "quelkit: " << where() << "\\e: cannot create a file for the editor: " << std::strerror(errno)
                << "\n";
      ok_ = false;
      return;
    }
    bool written = write(fd, buf_.data(), buf_.size()) == ssize_t(buf_.size());
    close(fd);
    std::cout << std::flush;
    int status = -1;
    if (written) {
      pid_t pid = fork();
      if (pid == 0) {
        // `$EDITOR FILE` through the shell, so an EDITOR with options works.
        execl("/bin/sh", "sh", "-c", (std::string(ed) + " \"$1\"").c_str(), "sh", path.c_str(), (char*)nullptr);
        _exit(127);
      }
      if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    harness::clear_cancel();  // a Ctrl-C typed in the editor was the editor's
    std::string text, err;
    if (!written || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::cerr << "quelkit: " << where() << "\\e: the editor (" << ed << ") failed; the buffer is unchanged\n";
      ok_ = false;
    } else if (!read_script(path, &text, &err)) {
      std::cerr << "quelkit: " << where() << "\\e: cannot read the edited buffer: " << err << "\n";
      ok_ = false;
    } else {
      buf_ = text;
      origins_.clear();  // the editor's text is the monitor's own
      ran_ = false;      // and new: \g runs it, text typed next adds to it
      if (!buf_.empty() && buf_.back() != '\n') buf_ += '\n';
      lines_ = uint32_t(std::count(buf_.begin(), buf_.end(), '\n'));
    }
    unlink(path.c_str());
  }

  // Where the line being read came from, for the monitor's own errors: an
  // included file's name and line ("a.quel:6: "; a typed line: "", the
  // user has just typed it). Statements' errors name it through their source.
  std::string where() const {
    return reading_.empty() ? "" : reading_.back().name + ":" + std::to_string(reading_.back().line) + ": ";
  }

  struct Reading {  // a file \i is reading, and its line being read
    std::string name;
    uint32_t line;
    FileId id;
  };
  static inline const std::string kTyped;  // the name of the monitor's own lines

  harness::Session& session_;
  std::string buf_;
  // Lines in buf_, kept as it grows: counting them at each line read made a
  // long piped script without \g quadratic.
  uint32_t lines_ = 0;
  std::vector<Source::Origin> origins_;  // where the buffer's lines came from (\i)
  std::vector<Reading> reading_;         // the \i files being read, innermost last
  bool in_comment_ = false;
  bool ran_ = false;  // the buffer holds what the last \g ran (new text replaces it)
  bool stopped_ = false;  // reading stops (stopped())
  bool ok_ = true;
  bool cancelled_ = false;
  int runs_ = 0;
};

// ---- libedit

// Set by read_char when Ctrl-C arrived while a line was being typed.
bool g_interrupted = false;
mbstate_t g_mbs{};

// libedit's character source: one character of standard input, or end of
// input (with g_interrupted set) when Ctrl-C arrives. SIGINT is blocked
// except inside ppoll, so a Ctrl-C between the check and the wait is not
// lost: ppoll unblocks it and returns EINTR at once.
int read_char(EditLine*, wchar_t* wc) {
  for (;;) {
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old);
    if (harness::cancel_requested()) {
      sigprocmask(SIG_SETMASK, &old, nullptr);
      g_interrupted = true;
      return 0;
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    int r = ppoll(&p, 1, nullptr, &old);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    char byte;
    ssize_t got = read(STDIN_FILENO, &byte, 1);
    if (got == 0) return 0;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    size_t k = std::mbrtowc(wc, &byte, 1, &g_mbs);
    if (k == size_t(-2)) continue;  // more bytes of this character to come
    if (k == size_t(-1)) {          // not the locale's encoding: the byte itself
      g_mbs = mbstate_t{};
      *wc = wchar_t(static_cast<unsigned char>(byte));
    }
    return 1;
  }
}

const char* prompt(EditLine*) { return "* "; }

std::string history_path() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.quelkit_history" : "";
}

}  // namespace

bool read_script(const std::string& path, std::string* text, std::string* err, std::optional<Source::Cut>* cut) {
  std::ifstream f;
  if (!open_script(path, &f, err)) return false;
  std::optional<Source::Cut> cut_here;
  if (!read_text(f, text, &cut_here)) {
    *err = std::string("cannot read: ") + std::strerror(errno);
    return false;
  }
  if (cut_here && !cut) {  // no caller to say where: the reason alone
    *err = cut_here->message;
    return false;
  }
  if (cut) *cut = std::move(cut_here);
  return true;
}

void allow_script_includes(harness::Session& session) {
  // The files being read: the outermost script first (named by its path;
  // an -e text has none), then those \i included, innermost last.
  auto open = std::make_shared<std::vector<FileId>>();
  session.set_includer([&session, open](const std::string& path, SrcPos pos, const SourceRef& src) {
    struct Outermost {  // the script that includes, while its \i runs
      std::vector<FileId>& open;
      bool pushed;
      ~Outermost() {
        if (pushed) open.pop_back();
      }
    } outer{*open, open->empty()};
    if (outer.pushed) open->push_back(file_id(src->name()));
    const FileId id = file_id(path);
    std::string text, err = include_refusal(path, id, *open, open->size() - 1);
    if (err.empty()) read_script(path, &text, &err);
    if (!err.empty()) throw_error(ErrKind::IO, pos, src, "\\i " + path + ": " + err);
    open->push_back(id);
    const bool ok = session.run(std::make_shared<Source>(path, text));
    open->pop_back();
    if (session.stopped())
      std::cerr << "quelkit: " << position_text(src, pos) << ": \\i " << path
                << ": stopped by its syntax error; nothing after this \\i runs\n";
    return ok;
  });
}

int monitor_stream(harness::Session& session, std::istream& in) {
  Monitor m(session);
  std::string line;
  uint64_t read = 0;  // lines read
  // A script piped in may begin with a byte-order mark, as a file may.
  for (bool first = true;; first = false) {
    const LineRead r = read_line(in, &line);
    if (r == LineRead::End) break;
    if (first) line.erase(0, line.size() - strip_bom(line).size());  // no copy of a long line
    ++read;
    if (r == LineRead::TooLong) {  // a cut: the input ends there
      m.cut(line, false);
      return m.cancelled() ? 130 : 1;
    }
    const Monitor::Next next = m.line(line);
    // Piped in, the statements are a script, which a syntax error stops:
    // nothing after it runs, the buffers a later \g would run included.
    if (m.stopped()) {
      std::cerr << "quelkit: standard input: a syntax error stops statements piped in; nothing after line " << read
                << " runs\n";
      return m.cancelled() ? 130 : 1;
    }
    if (next == Monitor::Next::Quit) {
      // Piped in, a \q ends the input: what waits in the buffer runs, as at
      // the input's end, and as a script file runs the statements before its
      // \q. Dropped here, `retrieve (b = 2)` then `\q` piped to `quelkit -`
      // printed nothing, exit 0, where the same text as a file printed b.
      // (At the terminal \q quits without running it: the user sees it.)
      if (!m.cancelled() && !m.stopped()) m.finish();
      return m.cancelled() ? 130 : m.ok() ? 0 : 1;
    }
    if (m.cancelled()) return 130;
    if (m.stopped()) return 1;
  }
  m.finish();
  return m.cancelled() ? 130 : m.ok() ? 0 : 1;
}

int monitor_terminal(harness::Session& session) {
  // Multibyte input is decoded in the user's locale (UTF-8 if it has none).
  std::setlocale(LC_CTYPE, "");
  if (MB_CUR_MAX == 1) std::setlocale(LC_CTYPE, "C.UTF-8");
  // Prompts, echo and notices go to the terminal on standard error, so
  // standard output holds results only, even when redirected.
  EditLine* el = el_init("quelkit", stdin, stderr, stderr);
  History* hist = history_init();
  HistEvent ev;
  history(hist, &ev, H_SETSIZE, 1000);
  history(hist, &ev, H_SETUNIQUE, 1);
  const std::string hpath = history_path();
  if (!hpath.empty()) history(hist, &ev, H_LOAD, hpath.c_str());
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_PROMPT, prompt);
  el_set(el, EL_HIST, history, hist);
  el_set(el, EL_GETCFN, read_char);
  el_source(el, nullptr);  // the user's ~/.editrc

  std::cerr << "quelkit terminal monitor: " << kCommands << "\n";
  Monitor m(session);
  bool warned = false;  // of a buffer that has not run, at the last Ctrl-D
  bool history_warned = false;  // that the history file cannot be written
  for (;;) {
    int count = 0;
    std::cout << std::flush;
    const char* got = el_gets(el, &count);
    if (g_interrupted) {  // Ctrl-C at the prompt: the line is dropped
      g_interrupted = false;
      harness::clear_cancel();
      std::cerr << "^C\n";
      continue;
    }
    if (!got || count <= 0) {  // Ctrl-D: the shell's prompt starts on a fresh line
      // Not a statement typed but not run, unsaid: a Ctrl-D quits, it does
      // not run the buffer (it may be half a `delete`), but the first says so.
      if (m.pending() && !warned) {
        std::cerr << "\nquelkit: the buffer has not run (\\g runs it, \\p shows it, \\r clears it); Ctrl-D again quits\n";
        warned = true;
        continue;
      }
      std::cerr << "\n";
      break;
    }
    warned = false;
    std::string line(got, size_t(count));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) {
      history(hist, &ev, H_ENTER, line.c_str());
      errno = 0;
      if (!hpath.empty() && history(hist, &ev, H_SAVE, hpath.c_str()) < 0 && !history_warned) {
        // Said once, not at every line: the session goes on without it.
        const int why = errno;
        std::cerr << "quelkit: warning: cannot save the history in " << hpath << ": "
                  << (why ? std::strerror(why) : "it cannot be written") << "; the lines typed are not kept\n";
        history_warned = true;
      }
    }
    m.resume();  // a syntax error stopped what the last line ran; this one is new text
    if (m.line(line) == Monitor::Next::Quit) break;
    // A Ctrl-C that cancelled a statement of this line has been answered;
    // left set, read_char would take it for a Ctrl-C at the next prompt and
    // print a second prompt after "^C".
    harness::clear_cancel();
  }
  std::cout << std::flush;
  el_end(el);
  history_end(hist);
  return 0;
}

}  // namespace quelkit::cli
