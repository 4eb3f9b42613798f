// The timing module and the machine description for reports (measure.h).
#include "engine/measure.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
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

uint64_t clock_read_ns() {
  static const uint64_t cost = [] {
    std::vector<uint64_t> d(63);
    for (auto& x : d) {
      const uint64_t a = now_ns();
      x = now_ns() - a;
    }
    std::nth_element(d.begin(), d.begin() + long(d.size() / 2), d.end());
    return d[d.size() / 2];
  }();
  return cost;
}

Stats summarise(std::vector<double> v) {
  Stats s;
  s.n = int(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  s.min = v.front();
  s.max = v.back();
  auto quantile = [&](double p) {
    const double at = p * double(v.size() - 1);
    const size_t lo = size_t(at);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
  };
  s.q1 = quantile(0.25);
  s.q3 = quantile(0.75);
  s.spread = s.median != 0 ? (s.max - s.min) / s.median : 0;
  // The median's interval (measure.h): v[k] lies above the median with
  // probability P(Bin(n, 1/2) <= k); grow k while that stays within 2.5%
  // (under 6 samples it never starts: min..max).
  const size_t n = v.size();
  auto binom = [n](size_t j) {  // P(Bin(n, 1/2) = j)
    return std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(j) + 1) - std::lgamma(double(n - j) + 1) -
                    double(n) * std::log(2.0));
  };
  size_t k = 0;
  for (double at_most = binom(0); k + 2 < n - 1 - k;) {  // P(Bin <= k)
    const double next = at_most + binom(k + 1);
    if (next > 0.025) break;
    at_most = next;
    ++k;
  }
  s.lo = v[k];
  s.hi = v[n - 1 - k];
  double below = 0;  // P(Bin(n, 1/2) <= k): the median below v[k]
  for (size_t j = 0; j <= k; ++j) below += binom(j);
  s.level = 1 - 2 * below;
  return s;
}

namespace {

// Runs per repetition so that one lasts at least min_seconds: one timed run
// tells how many fit (at least one), and how long the repetitions will take.
struct Calibration {
  uint64_t iters = 1;
  double rep_ns = 0;  // one repetition, foretold
};
Calibration calibrate(const std::function<void()>& run, double min_seconds, const Clock& clock) {
  const uint64_t t0 = clock();
  run();
  const uint64_t one = std::max<uint64_t>(clock() - t0, 1);
  Calibration c;
  c.iters = std::max<uint64_t>(1, uint64_t(min_seconds * 1e9 / double(one)));
  c.rep_ns = std::max(min_seconds * 1e9, double(c.iters) * double(one));
  return c;
}

// Repetitions a piece takes: t.reps, or under a budget as many as fit, at
// least t.min_reps (never more than t.reps).
int reps_within_budget(const Timing& t, double rep_ns) {
  const int reps = std::max(1, t.reps);
  if (t.budget_seconds <= 0 || double(reps) * rep_ns <= t.budget_seconds * 1e9) return reps;
  const int fit = int(t.budget_seconds * 1e9 / rep_ns);
  return std::clamp(fit, std::max(1, t.min_reps), reps);
}

// One repetition: iters runs, ns per run. A repetition that took less than
// half the minimum (the first estimate was pessimistic) grows iters and is
// taken again.
double repetition(const std::function<void()>& run, uint64_t& iters, double min_seconds, const Clock& clock) {
  const double min_ns = min_seconds * 1e9;
  for (;;) {
    const uint64_t s = clock();
    for (uint64_t i = 0; i < iters; ++i) run();
    const uint64_t e = clock() - s;
    if (double(e) < min_ns * 0.5 && iters < (uint64_t(1) << 40)) {
      iters = uint64_t(double(iters) * min_ns / std::max<double>(double(e), 1.0)) + 1;
      continue;
    }
    return double(e) / double(iters);
  }
}

void finish(Measurement& m, uint64_t iters) {
  const Stats s = summarise(m.samples);
  m.reps = s.n;
  m.iters = iters;
  m.median_ns = s.median;
  m.min_ns = s.min;
  m.max_ns = s.max;
}

}  // namespace

Measurement measure(const std::function<void()>& run, const Timing& t, const Clock& c) {
  return measure_interleaved({run}, t, c)[0];
}

Measurement measure(const std::function<void()>& run, int reps, double min_seconds) {
  Timing t;
  t.reps = reps;
  t.min_seconds = min_seconds;
  return measure(run, t);
}

std::vector<Measurement> measure_interleaved(const std::vector<std::function<void()>>& runs, const Timing& t,
                                             const Clock& c) {
  const Clock clock = c ? c : Clock(now_ns);
  std::vector<uint64_t> iters(runs.size());
  std::vector<int> reps(runs.size());
  int rounds = 0;
  for (size_t j = 0; j < runs.size(); ++j) {
    for (int w = 0; w < t.warmup; ++w) runs[j]();
    const Calibration c = calibrate(runs[j], t.min_seconds, clock);
    iters[j] = c.iters;
    reps[j] = reps_within_budget(t, c.rep_ns);
    rounds = std::max(rounds, reps[j]);
  }
  std::vector<Measurement> out(runs.size());
  for (int r = 0; r < rounds; ++r)  // rotated rounds (measure.h)
    for (size_t k = 0; k < runs.size(); ++k) {
      const size_t j = (size_t(r) + k) % runs.size();
      if (r < reps[j]) out[j].samples.push_back(repetition(runs[j], iters[j], t.min_seconds, clock));
    }
  for (size_t j = 0; j < runs.size(); ++j) finish(out[j], iters[j]);
  return out;
}

Stats ratio(const Measurement& a, const Measurement& b) {
  std::vector<double> v;
  for (size_t i = 0; i < a.samples.size() && i < b.samples.size(); ++i)
    if (b.samples[i] > 0) v.push_back(a.samples[i] / b.samples[i]);
  return summarise(v);
}

Verdict judge(const Stats& r, double bound, bool strict) {
  auto meets = [&](double x) { return strict ? x < bound : x <= bound; };
  Verdict v;
  v.met = meets(r.median);
  v.told = v.met ? meets(r.hi) : !meets(r.lo);
  return v;
}

std::string noise_mark(bool told, const Stats& r) {
  if (told) return "";
  char buf[128];
  if (r.level >= 0.95)
    std::snprintf(buf, sizeof buf, " (within noise: 95%% CI %.2f-%.2f)", r.lo, r.hi);
  else  // floor: the interval holds the median at least this often
    std::snprintf(buf, sizeof buf, " (within noise: %d%% CI %.2f-%.2f, %d repetitions)", int(r.level * 100 + 1e-9), r.lo,
                  r.hi, r.n);
  return buf;
}

std::string noise_misses_note(int n) {
  if (n <= 0) return "";
  return " (" + std::to_string(n) + " of them within noise: the bound inside their median's interval)";
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

std::string spread_text(double spread, int n) {
  if (n < 2) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "±%.0f%%", 50 * spread);
  return buf;
}

std::string figure_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace quelkit::harness
