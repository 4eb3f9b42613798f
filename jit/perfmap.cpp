// The perf map writer (perfmap.h). One file per process, opened on the first
// registration after enabling, flushed after every line so a profiler reading
// it while the process still runs (perf report after perf record) sees every
// function compiled so far. Entries are never removed: perf has no way to
// retire an address range, so a long session's map lists evicted plans too.
#include "jit/perfmap.h"

#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <mutex>

namespace quelkit::harness {

namespace {

std::atomic<bool> g_enabled{false};
std::mutex g_mu;
std::FILE* g_file = nullptr;
long g_file_pid = 0;  // a forked child must not append to its parent's map

}  // namespace

void perfmap_enable(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

bool perfmap_enabled() { return g_enabled.load(std::memory_order_relaxed); }

std::string perfmap_path(long pid) { return "/tmp/perf-" + std::to_string(pid ? pid : long(getpid())) + ".map"; }

void perfmap_register(const void* addr, size_t size, std::string_view name) {
  if (!perfmap_enabled() || !addr || size == 0) return;
  std::lock_guard<std::mutex> lock(g_mu);
  long pid = long(getpid());
  if (g_file && g_file_pid != pid) {
    std::fclose(g_file);
    g_file = nullptr;
  }
  if (!g_file) {
    g_file = std::fopen(perfmap_path(pid).c_str(), "a");
    g_file_pid = pid;
    if (!g_file) return;  // /tmp not writable: profiles show the code as anonymous
  }
  std::fprintf(g_file, "%" PRIxPTR " %zx %.*s\n", reinterpret_cast<uintptr_t>(addr), size, int(name.size()),
               name.data());
  std::fflush(g_file);
}

void perfmap_close(bool remove) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_file) std::fclose(g_file);
  g_file = nullptr;
  if (remove) std::remove(perfmap_path().c_str());
}

}  // namespace quelkit::harness
