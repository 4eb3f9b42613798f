// Contexts, results and the compile (jit.h). The compile's cost is split with
// libgccjit's own log: a log stream that notes the time of the lines where
// GCC proper starts and ends (toplev::main) separates GCC's passes from the
// assembler, linker and dlopen that follow, without enabling GCC's timevars.
#include "jit/gccjit/jit.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "jit/child.h"
#include "jit/codegen.h"
#include "jit/gccjit/gccjit.h"
#include "engine/measure.h"
#include "storage/budget.h"

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
  if (debug_info()) {  // gdb steps through the .quel text; the .s and .so stay in $TMPDIR/quelkit-gccjit-*
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

Result::Result(void* r) : r_(r) {
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
  dlclose(r_);  // the code is unmapped
  r_ = nullptr;
  --g_live;
}

void* Result::code(const std::string& name) const { return r_ ? dlsym(r_, name.c_str()) : nullptr; }

size_t Result::live() { return g_live.load(); }

// ---- compile

namespace {

// Where the compile's files go: TMPDIR when it names a writable directory
// (as libiberty's choose_tmpdir, which libgccjit uses, decides), else /tmp.
std::string temp_root() {
  const char* tmpdir = std::getenv("TMPDIR");
  struct stat dir {};
  return tmpdir && *tmpdir && ::stat(tmpdir, &dir) == 0 && S_ISDIR(dir.st_mode) && ::access(tmpdir, W_OK) == 0
             ? tmpdir
             : "/tmp";
}

// What is known to stop GCC's compile (in the child, below) is checked first
// and said as the statement's I/O error, rather than as the child's bare
// exit status: a file-size limit (ulimit -f) under which GCC cannot write
// its assembly; no assembler or linker on PATH (the driver execs them); the
// temporary directory (TMPDIR, else /tmp) all but full.
std::string toolchain_cannot_run() {
  // A plan's assembly is megabytes at most: a limit of a GiB or more is
  // none that binds (and a machine may set one).
  rlimit fsize{};
  if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY && fsize.rlim_cur < (uint64_t(1) << 30))
    return "a file-size limit under 1 GiB is set (ulimit -f " + std::to_string(fsize.rlim_cur / 1024) +
           "): GCC would stop on reaching it";
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
    if (!found) return std::string("no '") + tool + "' on PATH: GCC's driver needs it";
  }
  const std::string tmp = temp_root();
  constexpr uint64_t kLeast = 16ull << 20;
  struct statvfs fs {};
  if (::statvfs(tmp.c_str(), &fs) == 0 && uint64_t(fs.f_bavail) * fs.f_frsize < kLeast)
    return tmp + " has less than 16 MiB free: GCC writes its files there";
  return {};
}

// What the compiling child tells its parent, in one write (under PIPE_BUF,
// so it arrives whole or not at all).
struct ChildReport {
  uint64_t gcc_begin = 0, gcc_end = 0;  // toplev::main, on the monotonic clock both processes share
  uint32_t ok = 0;
  char error[2000] = {};
};
static_assert(sizeof(ChildReport) <= PIPE_BUF, "the report is one atomic write");

// The child's work (jit/child.h): GCC proper, the assembler and the linker
// write `so`; nothing of the parent's state is changed (it is the parent's
// copy). Its report is one write to `out`.
int compile_in_child(Context& ctx, const std::string& dir, const std::string& so, int out) {
  // libgccjit's own temporary directory goes inside the parent's, which the
  // parent removes whatever becomes of the child.
  setenv("TMPDIR", dir.c_str(), 1);
  Stamps st;
  FILE* log = log_stream();
  if (log) gcc_jit_context_set_logfile(ctx.get(), log, 0, 0);
  t_stamps = &st;
  gcc_jit_context_compile_to_file(ctx.get(), GCC_JIT_OUTPUT_KIND_DYNAMIC_LIBRARY, so.c_str());
  ChildReport rep;
  rep.gcc_begin = st.gcc_begin;
  rep.gcc_end = st.gcc_end;
  const char* e = gcc_jit_context_get_first_error(ctx.get());
  rep.ok = !e;
  if (e) std::snprintf(rep.error, sizeof rep.error, "%s", e);
  const ssize_t n = write(out, &rep, sizeof rep);
  return n == ssize_t(sizeof rep) ? 0 : 1;
}

}  // namespace

// libgccjit compiles in a child process (jit/child.h), which writes a shared
// object the parent then loads. GCC cannot be interrupted in-process
// (libgccjit holds one lock around a compile, and a 70,000-term plan took
// minutes), but a child can be killed: a Ctrl-C ends the compile within one
// poll of the child's pipe, and the statement is "cancelled". SIGHUP,
// SIGTERM and SIGQUIT are held from before the compile's directory exists
// until after it is removed, and raised again then, so a signal that ends
// the program leaves no files behind. A fatal error of GCC's ("compilation
// terminated.") ends the child only: the statement's I/O error.
Result compile(Context& ctx, CompileTimes* times, std::string* error) {
  if (times) *times = CompileTimes{};
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return Result(nullptr);
  };
  if (std::string why = toolchain_cannot_run(); !why.empty()) return fail(why);
  HeldSignals held;  // destroyed after the cleanup below
  std::string dir = temp_root() + "/quelkit-gccjit-XXXXXX";
  if (!mkdtemp(dir.data())) return fail("cannot create a directory in " + temp_root() + ": " + std::strerror(errno));
  const std::string so = dir + "/plan.so";
  struct Cleanup {  // the directory goes whatever happens, unless it is kept on purpose
    const std::string& dir;
    bool done = false;
    void now() {
      if (done) return;
      done = true;
      if (debug_info()) {
        std::fprintf(stderr, "quelkit: gccjit: the compile's files are kept in %s\n", dir.c_str());
        return;
      }
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
    ~Cleanup() { now(); }
  } cleanup{dir};
  log_stream();  // made once in the parent, so every child inherits it made
  const uint64_t t0 = now_ns();
  ChildOutcome child = run_in_child(held, [&](int fd) { return compile_in_child(ctx, dir, so, fd); });
  if (!child.finished) {
    cleanup.now();  // before a signal raised again may end the program
    held.end_abandoned(child.signal);
  }
  ChildReport rep;
  if (std::string why = child.failure(); !why.empty()) return fail("GCC stopped (" + why + ")");
  if (child.out.size() != sizeof rep) return fail("GCC stopped without its report");
  std::memcpy(&rep, child.out.data(), sizeof rep);
  if (!rep.ok) return fail(rep.error[0] ? rep.error : "gcc_jit_context_compile_to_file failed without a message");
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return fail(std::string("cannot load the compiled code: ") + dlerror());
  cleanup.now();  // a loaded object needs no file; a signal held till now finds none
  const uint64_t total = now_ns() - t0;
  if (times) {
    CompileTimes t;
    if (rep.gcc_begin && rep.gcc_end > rep.gcc_begin) t.opt_ns = std::min(rep.gcc_end - rep.gcc_begin, total);
    t.codegen_ns = total - t.opt_ns;
    *times = t;
  }
  return Result(h);
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
