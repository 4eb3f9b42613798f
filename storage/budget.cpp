// The cancel flag and the memory budget (budget.h).
#include "storage/budget.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "runtime/runtime.h"

namespace quelkit::harness {

namespace {

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

// A statement error of the harness's own (no position: the session puts it on
// the statement that was running).
[[noreturn]] void throw_runtime(int32_t code, std::string msg) {
  Error e;
  e.kind = ErrKind::Runtime;
  e.code = code;
  e.message = std::move(msg);
  throw QuelError(std::move(e));
}

// A number from a file such as /sys/fs/cgroup/memory.max; 0 if absent or "max".
uint64_t read_number(const char* path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoull(s);
}

// The room a resource limit leaves (RLIMIT_AS against the process's mapped
// size, VmSize; RLIMIT_DATA against its data, VmData); 0 where none is set.
uint64_t room_under_limit(int resource, const char* status_key) {
  rlimit lim{};
  if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 0;
  uint64_t used = 0;
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == status_key) {
      f >> used;  // kB
      used *= 1024;
      break;
    }
    std::getline(f, key);
  }
  return lim.rlim_cur > used ? lim.rlim_cur - used : 1;
}

}  // namespace

void request_cancel() noexcept { g_cancel.store(true, std::memory_order_relaxed); }
bool cancel_requested() noexcept { return g_cancel.load(std::memory_order_relaxed); }
void clear_cancel() noexcept { g_cancel.store(false, std::memory_order_relaxed); }

void throw_cancelled() { throw_runtime(QK_ERR_CANCELLED, qk_err_message(QK_ERR_CANCELLED)); }

InterruptibleIo::InterruptibleIo() {
  struct sigaction sa {};
  if (sigaction(SIGINT, nullptr, &sa) != 0 || !(sa.sa_flags & SA_RESTART)) return;
  if (sa.sa_flags & SA_SIGINFO ? sa.sa_sigaction == nullptr
                               : sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
    return;
  sa.sa_flags &= ~SA_RESTART;
  changed_ = sigaction(SIGINT, &sa, nullptr) == 0;
}

InterruptibleIo::~InterruptibleIo() {
  if (!changed_) return;
  struct sigaction sa {};
  if (sigaction(SIGINT, nullptr, &sa) != 0) return;
  sa.sa_flags |= SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
}

uint64_t available_memory() {
  uint64_t avail = 0;
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  uint64_t v = 0;
  while (f >> key >> v) {
    std::getline(f, unit);
    if (key == "MemAvailable:") {
      avail = v * 1024;
      break;
    }
  }
  if (!avail) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) avail = uint64_t(pages) * uint64_t(size);
  }
  // A container's limit (cgroup v2) is where the OOM killer strikes, not the host's.
  uint64_t max = read_number("/sys/fs/cgroup/memory.max");
  if (max) {
    uint64_t cur = read_number("/sys/fs/cgroup/memory.current");
    uint64_t room = max > cur ? max - cur : 0;
    if (!avail || room < avail) avail = room;
  }
  // An address-space or data-size limit (ulimit -v, -d) refuses allocations
  // long before memory runs out: as std::bad_alloc, where the budget's
  // error names what would not fit.
  for (uint64_t room : {room_under_limit(RLIMIT_AS, "VmSize:"), room_under_limit(RLIMIT_DATA, "VmData:")})
    if (room && (!avail || room < avail)) avail = room;
  return avail ? avail : uint64_t(1) << 30;
}

bool parse_memory_size(const std::string& text, uint64_t* bytes, std::string* err) {
  auto bad = [&] { *err = "a memory size is BYTES, N[K|M|G|T][B|iB] or N%, not '" + text + "'"; };
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 18) {
    bad();
    return false;
  }
  uint64_t n = std::stoull(text.substr(0, i));
  std::string unit = text.substr(i);
  for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (unit == "%") {
    if (n == 0 || n > 100) {
      *err = "a memory size in percent is between 1% and 100%, not '" + text + "'";
      return false;
    }
    *bytes = available_memory() / 100 * n;
    return true;
  }
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit.back() == 'I') unit.pop_back();
  int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : unit == "T" ? 40 : -1;
  if (unit == "B") shift = 0;
  if (shift < 0) {
    bad();
    return false;
  }
  if (n == 0 || n > (~uint64_t(0) >> shift)) {
    *err = "memory size '" + text + "' is " + (n == 0 ? "zero" : "too large");
    return false;
  }
  *bytes = n << shift;
  return true;
}

std::string memory_size_text(uint64_t bytes) {
  constexpr uint64_t K = 1024, M = K * K, G = M * K;
  std::ostringstream o;
  o.setf(std::ios::fixed);
  if (bytes < K) o << bytes << (bytes == 1 ? " byte" : " bytes");
  else if (bytes < M) o << std::setprecision(0) << double(bytes) / double(K) << " KiB";
  else if (bytes < 10 * M) o << std::setprecision(1) << double(bytes) / double(M) << " MiB";
  else if (bytes < G) o << std::setprecision(0) << double(bytes) / double(M) << " MiB";
  else o << std::setprecision(1) << double(bytes) / double(G) << " GiB";
  return o.str();
}

MemoryBudget::MemoryBudget() : limit_(available_memory() / 2) {}

MemoryBudget& memory_budget() {
  static MemoryBudget b;
  return b;
}

void MemoryBudget::check(uint64_t more, const std::string& what) const {
  if (more <= limit_ && used_ <= limit_ - more) return;
  // The message names no amounts in use: they differ between back ends run
  // side by side, and their errors must compare equal.
  throw_runtime(QK_ERR_MEMORY, std::string(qk_err_message(QK_ERR_MEMORY)) + ": " + what + " would need more than the " +
                                   memory_size_text(limit_) + " budget (--memory-budget)");
}

}  // namespace quelkit::harness
