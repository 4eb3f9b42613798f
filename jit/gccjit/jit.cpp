// Contexts, results and the compile (jit.h). The compile's cost is split with
// libgccjit's own log: a log stream that notes the time of the lines where
// GCC proper starts and ends (toplev::main) separates GCC's passes from the
// assembler, linker and dlopen that follow, without enabling GCC's timevars.
#include "jit/gccjit/jit.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "jit/codegen.h"
#include "jit/gccjit/gccjit.h"
#include "engine/measure.h"

namespace quelkit::jit::gccjit {

namespace {

using harness::now_ns;

std::atomic<size_t> g_live{0};

bool debug_info() {
  static const bool on = [] {
    const char* v = std::getenv("QUELKIT_GCCJIT_DEBUG");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

// ---- the log stream that times GCC proper

struct Stamps {
  uint64_t gcc_begin = 0, gcc_end = 0;
};
thread_local Stamps* t_stamps = nullptr;  // the compile running on this thread, if any

ssize_t log_write(void*, const char* buf, size_t n) {
  if (Stamps* s = t_stamps) {
    std::string_view text(buf, n);
    if (text.find("toplev::main") != std::string_view::npos) {
      if (text.find("entering: toplev::main") != std::string_view::npos) s->gcc_begin = now_ns();
      if (text.find("exiting: toplev::main") != std::string_view::npos) s->gcc_end = now_ns();
    }
  }
  return ssize_t(n);
}

// One stream for the process, never closed: a context's logger outlives the
// context (its result keeps it), so the stream must outlive them all.
// Line-buffered, so each line reaches log_write as it is logged.
FILE* log_stream() {
  static FILE* f = [] {
    cookie_io_functions_t io{};
    io.write = log_write;
    FILE* s = fopencookie(nullptr, "w", io);
    if (s) setvbuf(s, nullptr, _IOLBF, 0);
    return s;
  }();
  return f;
}

}  // namespace

// --jit-cpu native. libgccjit runs cc1 in-process with the options it is given,
// but "-march=native" is expanded by the gcc driver, never by cc1 (GCC 12 fails
// with "error invoking gcc driver"). So the driver of the same GCC version is
// asked once what native means on this machine (`gcc-12 -march=native -v`
// prints the cc1 command it would run), and its expansion is passed on: the
// -march= CPU, every -m feature flag, and the cache --params.
const std::vector<std::string>& native_cpu_options() {
  static const std::vector<std::string> opts = [] {
    const std::string driver = "gcc-" + std::to_string(gcc_jit_version_major());
    const std::string cmd = driver + " -march=native -E -v -x c /dev/null -o /dev/null 2>&1";
    std::string text;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
      pclose(p);
    }
    std::vector<std::string> v;
    for (size_t at = 0; at < text.size();) {  // the line that runs cc1
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + at, end - at);
      at = end + 1;
      if (line.find("/cc1 ") == std::string_view::npos) continue;
      std::vector<std::string> words;
      for (size_t i = 0; i < line.size();) {
        size_t j = line.find(' ', i);
        if (j == std::string_view::npos) j = line.size();
        if (j > i) words.emplace_back(line.substr(i, j - i));
        i = j + 1;
      }
      for (size_t i = 0; i < words.size(); ++i) {
        if (words[i].rfind("-m", 0) == 0) v.push_back(words[i]);
        else if (words[i] == "--param" && i + 1 < words.size()) v.push_back("--param=" + words[++i]);
      }
      break;
    }
    if (std::none_of(v.begin(), v.end(), [](const std::string& o) { return o.rfind("-march=", 0) == 0; })) {
      std::fprintf(stderr, "quelkit: gccjit: --jit-cpu native: `%s` did not say what -march=native means here\n",
                   cmd.c_str());
      std::exit(2);
    }
    return v;
  }();
  return opts;
}

// ---- Context

Context::Context(int level, bool native_cpu)
    : c_(gcc_jit_context_acquire()), level_(std::clamp(level, 0, kMaxOptLevel)) {
  if (!c_) {
    std::fprintf(stderr, "quelkit: gccjit: cannot acquire a libgccjit context\n");
    std::abort();
  }
  gcc_jit_context_set_str_option(c_, GCC_JIT_STR_OPTION_PROGNAME, "quelkit-gccjit");
  gcc_jit_context_set_int_option(c_, GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL, level_);
  // Same answers everywhere: never fuse a multiply and an add, never relax IEEE.
  gcc_jit_context_add_command_line_option(c_, "-ffp-contract=off");
  // GCC folds 0.0 - (double)i into -(double)i even at -O0, which turns +0 into
  // -0; honouring IEEE rounding semantics keeps the subtraction (same bits as
  // every other back end).
  gcc_jit_context_add_command_line_option(c_, "-frounding-math");
  gcc_jit_context_add_command_line_option(c_, "-fno-fast-math");
  gcc_jit_context_add_command_line_option(c_, "-fno-strict-aliasing");
  gcc_jit_context_add_command_line_option(c_, "-fno-omit-frame-pointer");
  // GCC's redundant-extension elimination (on from -O2) also at -O1: without
  // it every kernel re-extended each 16-bit line offset it had just loaded
  // zero-extended (movzwl %ax,%eax per tuple), a cost the fastest kernels
  // feel (docs/DESIGN.md, "Measurements").
  if (level_ >= 1) gcc_jit_context_add_command_line_option(c_, "-free");
  if (native_cpu)
    for (const std::string& o : native_cpu_options()) gcc_jit_context_add_command_line_option(c_, o.c_str());
  // Link the shared object with no start files and no libc, libgcc_s or
  // libm: it defines only the plan's functions, and what they call (qk_
  // runtime helpers, memcpy, log) is resolved in the process at dlopen, as
  // it already was (the driver never linked the runtime). libgcc stays, for
  // any helper GCC emits a call to. Less to link makes each prepare's link
  // quicker (docs/DESIGN.md, "Measurements").
  gcc_jit_context_add_driver_option(c_, "-nostdlib");
  gcc_jit_context_add_driver_option(c_, "-lgcc");
  gcc_jit_context_set_bool_allow_unreachable_blocks(c_, 1);
  gcc_jit_context_set_bool_print_errors_to_stderr(c_, 0);  // compile() reports the first error
  if (debug_info()) {  // gdb steps through the .quel text; the .s and .so stay in /tmp/libgccjit-*
    gcc_jit_context_set_bool_option(c_, GCC_JIT_BOOL_OPTION_DEBUGINFO, 1);
    gcc_jit_context_set_bool_option(c_, GCC_JIT_BOOL_OPTION_KEEP_INTERMEDIATES, 1);
  }
}

Context::~Context() { gcc_jit_context_release(c_); }

void Context::dump_gimple(const std::string& optimized_path) {
  gcc_jit_context_set_bool_option(c_, GCC_JIT_BOOL_OPTION_DUMP_INITIAL_GIMPLE, 1);
  gcc_jit_context_add_command_line_option(c_, ("-fdump-tree-optimized-lineno=" + optimized_path).c_str());
}

// ---- Result

Result::Result(gcc_jit_result* r) : r_(r) {
  if (r_) ++g_live;
}

Result& Result::operator=(Result&& o) noexcept {
  if (this != &o) {
    reset();
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}

void Result::reset() {
  if (!r_) return;
  gcc_jit_result_release(r_);  // dlclose: the code is unmapped
  r_ = nullptr;
  --g_live;
}

void* Result::code(const std::string& name) const { return r_ ? gcc_jit_result_get_code(r_, name.c_str()) : nullptr; }

size_t Result::live() { return g_live.load(); }

// ---- compile

namespace {

// libgccjit runs GCC's driver in-process, and the driver installs its own
// SIGINT/SIGHUP/SIGTERM/SIGPIPE handlers (they delete the driver's files and
// kill the process) and never puts the program's back. So around a compile
// the handlers are saved and restored.
//
// A signal that ends the program in the middle of a compile would leave the
// compile's directory (TMPDIR/libgccjit-XXXXXX, its assembly and shared
// object) behind: libgccjit removes it only as the compile returns. So
// SIGINT, SIGHUP, SIGTERM and SIGQUIT are blocked during the compile (the
// assembler and linker it starts inherit the mask), and raised again once it
// is over and the program's handlers and mask are back: each then does what
// the program makes of it (Ctrl-C cancels the statement at its first page
// boundary after the compile; SIGTERM ends the program, with the same status,
// leaving nothing), a moment later.
//
// A signal left pending would not survive: the driver probes each handler
// with signal(SIG, SIG_IGN), and setting SIG_IGN discards a pending signal
// (POSIX). So a watcher thread takes them as they arrive (sigtimedwait; the
// thread inherits the blocked mask) and notes them. The compiling thread
// wakes the watcher with a SIGINT of its own, queued with a value (SI_QUEUE),
// which a Ctrl-C (SI_KERNEL from the terminal, SI_USER from kill) never is.
// (A program's other threads, which do not block them, would still take
// them; quelkit runs none while gccjit compiles.)
class DriverSignals {
 public:
  DriverSignals() {
    for (size_t i = 0; i < kSaved.size(); ++i) sigaction(kSaved[i], nullptr, &saved_[i]);
    sigset_t block;
    sigemptyset(&block);
    for (int sig : kTaken) sigaddset(&block, sig);
    sigprocmask(SIG_BLOCK, &block, &mask_);
    watcher_ = std::thread([this] { watch(); });
  }
  ~DriverSignals() {
    done_.store(true);
    sigval v{};
    v.sival_int = kWake;
    pthread_sigqueue(watcher_.native_handle(), SIGINT, v);
    watcher_.join();
    for (size_t i = 0; i < kSaved.size(); ++i) sigaction(kSaved[i], &saved_[i], nullptr);
    sigprocmask(SIG_SETMASK, &mask_, nullptr);
    for (int sig : kTaken)
      if (taken_.load() & (1u << sig)) raise(sig);
  }
  DriverSignals(const DriverSignals&) = delete;
  DriverSignals& operator=(const DriverSignals&) = delete;

 private:
  static constexpr int kWake = 0x71c;
  void watch() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kTaken) sigaddset(&set, sig);
    // The timeout is a backstop: a Ctrl-C pending as the wake-up is queued
    // merges with it (standard signals do not queue), so done_ is polled too.
    const timespec backstop{0, 100'000'000};
    while (!done_.load()) {
      siginfo_t info{};
      const int sig = sigtimedwait(&set, &info, &backstop);
      if (sig <= 0) continue;
      if (sig == SIGINT && info.si_code == SI_QUEUE && info.si_value.sival_int == kWake) continue;
      taken_.fetch_or(1u << sig);
    }
  }
  static constexpr std::array<int, 4> kSaved = {SIGINT, SIGHUP, SIGTERM, SIGPIPE};  // what the driver sets
  static constexpr std::array<int, 4> kTaken = {SIGINT, SIGHUP, SIGTERM, SIGQUIT};  // held until the compile ends
  std::array<struct sigaction, 4> saved_{};
  sigset_t mask_{};
  std::atomic<bool> done_{false};
  std::atomic<uint32_t> taken_{0};
  std::thread watcher_;
};

// GCC runs in this process (libgccjit), and a fatal error of GCC's ends the
// process with it: "compilation terminated.", exit 1, the session and every
// other back end's answers gone. What is known to cause one is checked
// first, and is the statement's error instead: a file-size limit (ulimit -f)
// under which GCC cannot write its assembly; no assembler or linker on PATH
// (the driver execs them); the temporary directory (TMPDIR, else /tmp) all
// but full. Others (the driver unable to fork under ulimit -u) are not
// foreseeable from here (DESIGN.md: what is left).
std::string toolchain_cannot_run() {
  // A plan's assembly is megabytes at most: a limit of a GiB or more is
  // none that binds (and a machine may set one).
  rlimit fsize{};
  if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY && fsize.rlim_cur < (uint64_t(1) << 30))
    return "a file-size limit under 1 GiB is set (ulimit -f " + std::to_string(fsize.rlim_cur / 1024) +
           "): GCC, which libgccjit runs in this process, would end it on reaching the limit";
  const char* path = std::getenv("PATH");
  for (const char* tool : {"as", "ld"}) {
    bool found = false;
    for (std::string_view rest = path ? path : ""; !found;) {
      const size_t colon = rest.find(':');
      std::string dir(rest.substr(0, colon));
      if (dir.empty()) dir = ".";
      found = ::access((dir + "/" + tool).c_str(), X_OK) == 0;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    if (!found) return std::string("no '") + tool + "' on PATH: GCC's driver, which libgccjit runs in this process, needs it";
  }
  const char* tmpdir = std::getenv("TMPDIR");
  struct stat dir {};
  const std::string tmp =
      tmpdir && *tmpdir && ::stat(tmpdir, &dir) == 0 && S_ISDIR(dir.st_mode) && ::access(tmpdir, W_OK) == 0 ? tmpdir
                                                                                                          : "/tmp";
  constexpr uint64_t kLeast = 16ull << 20;
  struct statvfs fs {};
  if (::statvfs(tmp.c_str(), &fs) == 0 && uint64_t(fs.f_bavail) * fs.f_frsize < kLeast)
    return tmp + " has less than 16 MiB free: GCC, which libgccjit runs in this process, writes its files there";
  return {};
}

}  // namespace

Result compile(Context& ctx, CompileTimes* times, std::string* error) {
  if (std::string why = toolchain_cannot_run(); !why.empty()) {
    if (times) *times = CompileTimes{};
    if (error) *error = why;
    return Result(nullptr);
  }
  Stamps st;
  FILE* log = log_stream();
  if (log) gcc_jit_context_set_logfile(ctx.get(), log, 0, 0);
  t_stamps = &st;
  const uint64_t t0 = now_ns();
  gcc_jit_result* r = nullptr;
  {
    DriverSignals keep;
    r = gcc_jit_context_compile(ctx.get());
  }
  const uint64_t total = now_ns() - t0;
  t_stamps = nullptr;
  if (times) {
    CompileTimes t;
    if (st.gcc_begin && st.gcc_end > st.gcc_begin) t.opt_ns = std::min(st.gcc_end - st.gcc_begin, total);
    t.codegen_ns = total - t.opt_ns;
    *times = t;
  }
  if (!r && error) {
    const char* e = gcc_jit_context_get_first_error(ctx.get());
    *error = e ? e : "gcc_jit_context_compile failed without a message";
  }
  return Result(r);
}

size_t function_size(const void* addr) {
  Dl_info info{};
  void* entry = nullptr;
  if (!dladdr1(addr, &info, &entry, RTLD_DL_SYMENT) || !entry) return 0;
  const auto* sym = static_cast<const ElfW(Sym)*>(entry);
  if (info.dli_saddr != addr) return 0;
  return size_t(sym->st_size);
}

std::string unresolved_helper() {
  for (int h = 0; h < kNumHelpers; ++h) {
    const HelperInfo& info = helper_info(Helper(h));
    if (!info.address) continue;  // a rule with characters: not callable, never called
    if (dlsym(RTLD_DEFAULT, info.name) != info.address) return info.name;
  }
  return "";
}

}  // namespace quelkit::jit::gccjit
