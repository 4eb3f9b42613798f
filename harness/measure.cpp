// Timing loops and the machine description for reports (measure.h).
#include "harness/measure.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/utsname.h>

namespace quelkit::harness {

uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

Measurement measure(const std::function<void()>& run, int reps, double min_seconds) {
  // Calibrate: one run tells how many fit in min_seconds (at least one).
  uint64_t t0 = now_ns();
  run();
  uint64_t one = std::max<uint64_t>(now_ns() - t0, 1);
  const double min_ns = min_seconds * 1e9;
  uint64_t iters = std::max<uint64_t>(1, uint64_t(min_ns / double(one)));
  std::vector<double> per;
  for (int r = 0; r < reps; ++r) {
    uint64_t s = now_ns();
    for (uint64_t i = 0; i < iters; ++i) run();
    uint64_t e = now_ns() - s;
    // Too short (the first estimate was pessimistic): grow and redo.
    if (double(e) < min_ns * 0.5 && iters < (uint64_t(1) << 40)) {
      iters = uint64_t(double(iters) * min_ns / std::max<double>(double(e), 1.0)) + 1;
      --r;
      continue;
    }
    per.push_back(double(e) / double(iters));
  }
  std::sort(per.begin(), per.end());
  Measurement m;
  m.reps = reps;
  m.iters = iters;
  m.min_ns = per.front();
  m.max_ns = per.back();
  m.median_ns = per[per.size() / 2];
  return m;
}

static std::string read_first(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

std::string machine_description() {
  std::ifstream ci("/proc/cpuinfo");
  std::string line, model;
  while (std::getline(ci, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  std::ostringstream os;
  os << (model.empty() ? "unknown CPU" : model) << ", " << std::thread::hardware_concurrency() << " logical cores";
  std::string caches;
  for (int i = 0; i < 8; ++i) {
    std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string size = read_first(base + "size");
    if (size.empty()) break;
    std::string level = read_first(base + "level"), type = read_first(base + "type");
    caches += (caches.empty() ? "" : ", ") + std::string("L") + level +
              (type == "Data" ? "d" : type == "Instruction" ? "i" : "") + " " + size;
  }
  if (!caches.empty()) os << "; caches " << caches;
  struct utsname u;
  if (uname(&u) == 0) os << "; " << u.sysname << " " << u.release;
  return os.str();
}

}  // namespace quelkit::harness
