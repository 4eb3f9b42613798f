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
      if (harness::cancel_requested()) return Next::More;
    }
    add(l.substr(seg), commands, seg);
    return Next::More;
  }

  // Input ended without \g: run what is left rather than drop it.
  void finish() {
    go();
    in_comment_ = false;
  }

  // A line too long to read (read_line), or one that would make the buffer
  // longer than a script may be, ends the input there as a syntax error ends
  // a text: the buffer runs cut at that line (what is wholly before it runs,
  // nothing from it on), and reading stops: piped input ends (exit 1), the
  // \i files being read are left, a terminal is back at its prompt.
  void cut(std::string_view head, bool whole) {
    note_origin();
    run_buffer(cut_at(head, whole));
    reset();
    stopped_ = true;
  }

  bool ok() const { return ok_; }
  bool cancelled() const { return cancelled_; }
  // A cut stopped the reading; resume() at a terminal's next line.
  bool stopped() const { return stopped_; }
  void resume() { stopped_ = false; }
  // Text waiting for \g (not blanks alone).
  bool pending() const { return buf_.find_first_not_of(" \t\r\n") != std::string::npos; }

 private:
  // Text of a line: each line of the buffer ends in a newline. Blank text
  // beside a command, or before anything was typed, adds no line. Text that
  // followed a command on its line (`\g retrieve ...`) starts at `column` of
  // it: blanks stand for what went before, so an error's column is the
  // typed line's or the file's.
  void add(const std::string& text, bool beside_command, size_t column) {
    if (text.find_first_not_of(" \t\r") == std::string::npos && (beside_command || buf_.empty())) return;
    if (buf_.size() + column + text.size() + 1 > kMaxTextBytes) return cut(text, true);
    note_origin();
    buf_.append(column, ' ');
    buf_ += text;
    buf_ += '\n';
  }

  // The buffer's next line comes from the line being read: a file's (\i)
  // or the monitor's own. Where it does not follow from the last recorded
  // origin (another file, a line skipped), a new one is recorded, so that
  // errors name the file and line a statement came from.
  void note_origin() {
    const uint32_t next = uint32_t(std::count(buf_.begin(), buf_.end(), '\n')) + 1;
    const std::string& name = reading_.empty() ? kTyped : reading_.back().name;
    const uint32_t want = reading_.empty() ? next : reading_.back().line;
    if (origins_.empty() ? name.empty()
                         : (origins_.back().name == name &&
                            (name.empty() || origins_.back().origin_line + (next - origins_.back().first_line) == want)))
      return;
    origins_.push_back({next, name, want});
  }

  void go() {
    if (pending()) run_buffer({});
    reset();
  }

  void run_buffer(std::optional<Source::Cut> cut) {
    harness::clear_cancel();
    auto src = std::make_shared<Source>("<monitor:" + std::to_string(++runs_) + ">", buf_, origins_, std::move(cut));
    ok_ = session_.run(src) && ok_;
    cancelled_ = cancelled_ || harness::cancel_requested();
    std::cout << std::flush;
  }

  void reset() {
    buf_.clear();
    origins_.clear();
    in_comment_ = false;
  }

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
    // A file already being read (itself, or one that includes it) would be
    // read again from its top: refused before any of its lines runs, since
    // each round would repeat their appends and deletes.
    struct stat st {};
    const bool known = stat(path.c_str(), &st) == 0;
    for (const Reading& r : reading_)
      if (known && r.dev == st.st_dev && r.ino == st.st_ino) {
        std::cerr << "quelkit: " << where() << "\\i " << path << ": error: " << path
                  << " is being read already (a file that includes itself, directly or through others, would "
                     "run again and again); nothing of it runs\n";
        ok_ = false;
        return Next::More;
      }
    if (reading_.size() >= kMaxIncludeDepth) {
      std::cerr << "quelkit: " << where() << "\\i " << path << ": error: files included " << kMaxIncludeDepth
                << " deep, the most there may be\n";
      ok_ = false;
      return Next::More;
    }
    std::ifstream in;
    std::string err;
    if (!open_script(path, &in, &err)) {
      std::cerr << "quelkit: " << where() << "\\i " << path << ": error: " << err << "\n";
      ok_ = false;
      return Next::More;
    }
    reading_.push_back({path, 0, known ? st.st_dev : dev_t(-1), known ? st.st_ino : ino_t(-1)});
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
      if (stopped_) break;
      // Ctrl-C cancelled a statement this file ran: the rest is not read
      // (nor the rest of the files that include it, each of which says so).
      if (next == Next::More && harness::cancel_requested()) {
        if (in.peek() != std::char_traits<char>::eof())
          std::cerr << "quelkit: \\i " << path << ": cancelled; not read after line " << reading_.back().line << "\n";
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
      if (!buf_.empty() && buf_.back() != '\n') buf_ += '\n';
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
    dev_t dev;  // the file's identity, whatever path named it
    ino_t ino;
  };
  static inline const std::string kTyped;  // the name of the monitor's own lines
  static constexpr size_t kMaxIncludeDepth = 16;

  harness::Session& session_;
  std::string buf_;
  std::vector<Source::Origin> origins_;  // where the buffer's lines came from (\i)
  std::vector<Reading> reading_;         // the \i files being read, innermost last
  bool in_comment_ = false;
  bool ok_ = true;
  bool cancelled_ = false;
  bool stopped_ = false;  // a cut ended the reading (cut())
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

int monitor_stream(harness::Session& session, std::istream& in) {
  Monitor m(session);
  std::string line;
  // A script piped in may begin with a byte-order mark, as a file may.
  for (bool first = true;; first = false) {
    const LineRead r = read_line(in, &line);
    if (r == LineRead::End) break;
    if (first) line.erase(0, line.size() - strip_bom(line).size());  // no copy of a long line
    if (r == LineRead::TooLong) m.cut(line, false);
    if (m.stopped()) return m.cancelled() ? 130 : 1;  // a cut: the input ends there
    if (m.line(line) == Monitor::Next::Quit) {
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
      if (!hpath.empty()) history(hist, &ev, H_SAVE, hpath.c_str());
    }
    if (m.line(line) == Monitor::Next::Quit) break;
    m.resume();  // a line cut short (in an \i file, or the buffer past its most) was said: read on
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
