// `quelkit sweep`: the selectivity sweep. Each back end with a page kernel
// runs a one-i4 projection over the sweep relation (harness/sweep_data.h,
// uniformly random predicate column) under each selection (--selection),
// at selectivities 0..100%, for three query families:
//   single       retrieve (s.v) where s.pct < K
//   pct_first    retrieve (s.v) where s.pct < K and s.half = 0
//   half_first   retrieve (s.v) where s.half = 0 and s.pct < K
// (the two orders of one conjunction: with a branch, the first conjunct runs
// on every tuple and the second only on its survivors; Ross, PODS 2002).
// Prints ns per tuple per point, then the checks of the selection axis
// (nobranch against branch at 0, 50 and 100%; auto against the better of the
// two at every point), computed from the run; writes sweep.csv with --out.
#include "cli/sweep.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "harness/measure.h"
#include "harness/selection.h"
#include "harness/session.h"
#include "harness/sweep_data.h"

namespace quelkit {

namespace {

using harness::Selection;

constexpr const char* kUsage = R"(usage: quelkit sweep [options]
  the selectivity sweep: every back end with a page kernel, under each --selection, over a relation
  whose predicate column is uniformly random (docs/DESIGN.md), ns per tuple at each selectivity
    --sizes LIST         tuples, comma-separated (default 1000000,10000000)
    -b LIST              back ends (default: every one with a page kernel)
    --selections LIST    of branch, nobranch, auto (default all three)
    --points LIST        selectivities in percent (default 0,1,5,10,25,50,75,90,95,99,100)
    --reps N             runs per point, the median reported (default 5)
    --out DIR            also write DIR/sweep.csv (bench/plot_sweep.py plots it)
)";

[[noreturn]] void usage(const std::string& msg) {
  std::cerr << "quelkit sweep: error: " << msg << "\n" << kUsage;
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) v.push_back(item);
  return v;
}

double to_number(const std::string& s, const std::string& opt) {
  try {
    size_t n = 0;
    double d = std::stod(s, &n);
    if (n != s.size() || d < 0) throw std::invalid_argument(s);
    return d;
  } catch (...) {
    usage(opt + " needs non-negative numbers, not '" + s + "'");
  }
}

struct Family {
  const char* name;
  const char* before;  // the qualification around `s.pct < K`
  const char* after;
};
constexpr Family kFamilies[] = {
    {"single", "", ""},
    {"pct_first", "", " and s.half = 0"},
    {"half_first", "s.half = 0 and ", ""},
};

// One back end in one selection, with its own copy of the relation.
struct Lane {
  std::string backend;
  Selection selection;
  std::ostringstream out, err;
  std::unique_ptr<harness::Session> s;
  std::string label() const { return backend + "/" + harness::selection_name(selection); }
};

// Median of the statement's run_ns over `reps` runs, per tuple.
double per_tuple(Lane& l, const std::string& text, uint64_t n, int reps, std::string* chose) {
  auto src = std::make_shared<Source>("<sweep>", text);
  auto stmts = frontend::parse(src);
  frontend::BoundQuery bq = frontend::bind(*stmts[0], l.s->ranges(), l.s->catalog(), src);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    harness::Result res = l.s->evaluate(bq, *l.s->runners()[0], src, false);
    if (!res.ok) throw std::runtime_error(l.label() + ": " + res.error.format());
    t.push_back(double(res.stats.run_ns) / double(n));
    *chose = res.stats.selection;
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int run_sweep(const std::vector<std::string>& args, size_t i) {
  std::vector<uint64_t> sizes = {1000000, 10000000};
  std::vector<double> points = {0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100};
  std::vector<Selection> selections = {Selection::Branch, Selection::NoBranch, Selection::Auto};
  std::string backends, out_dir;
  int reps = 5;
  auto value = [&](const std::string& opt) -> std::string {
    if (i >= args.size()) usage(opt + " needs a value");
    return args[i++];
  };
  while (i < args.size()) {
    std::string a = args[i++];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--sizes") {
      sizes.clear();
      for (const auto& s : split(value(a))) {
        double d = to_number(s, a);
        if (d < 1 || d > 1e9) usage("--sizes must be between 1 and 1000000000 tuples");
        sizes.push_back(uint64_t(d));
      }
    } else if (a == "-b") {
      backends = value(a);
    } else if (a == "--selections") {
      selections.clear();
      for (const auto& s : split(value(a))) {
        Selection sel;
        if (!harness::parse_selection(s, &sel)) usage("--selections takes branch, nobranch and auto, not '" + s + "'");
        selections.push_back(sel);
      }
    } else if (a == "--points") {
      points.clear();
      for (const auto& s : split(value(a))) {
        double d = to_number(s, a);
        if (d > 100) usage("--points are percentages, at most 100");
        points.push_back(d);
      }
    } else if (a == "--reps") {
      double d = to_number(value(a), a);
      if (d < 1 || d > 1000) usage("--reps must be between 1 and 1000");
      reps = int(d);
    } else if (a == "--out") {
      out_dir = value(a);
    } else {
      usage("unknown option " + a);
    }
  }
  if (sizes.empty() || points.empty() || selections.empty()) usage("nothing to sweep");
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec || !std::filesystem::is_directory(out_dir)) usage("--out " + out_dir + ": not a directory that can be written");
  }

  // Back ends: those asked for, else every built mode with a page kernel (the
  // interpreters and the JITs' qual mode evaluate tuple at a time).
  std::vector<std::string> lanes_of;
  try {
    for (const auto& [b, m] : harness::parse_backend_list(backends.empty() ? "all" : backends, /*measured=*/true)) {
      const std::string name = b + ":" + m;
      if (backends.empty() && (b == "interp" || m == "qual")) continue;
      lanes_of.push_back(name);
    }
  } catch (QuelError& e) {
    usage(e.err.message);
  }

  std::printf("quelkit sweep: %s\n", harness::machine_description().c_str());
  std::printf("ns per tuple (run_ns / tuples, median of %d runs); back ends interleaved per point\n", reps);
  std::ofstream csv;
  if (!out_dir.empty()) {
    csv.open(std::filesystem::path(out_dir) / "sweep.csv");
    csv << "tuples,family,percent,backend,selection,ns_per_tuple,ran\n";
  }
  int failed_checks = 0;
  try {
    for (uint64_t n : sizes) {
      std::vector<std::unique_ptr<Lane>> lanes;
      for (const auto& b : lanes_of)
        for (Selection sel : selections) {
          auto l = std::make_unique<Lane>();
          l->backend = b;
          l->selection = sel;
          harness::SessionOptions o;
          o.backends = harness::parse_backend_list(b);
          o.format = harness::OutFormat::None;
          o.prepare.selection = sel;
          l->s = std::make_unique<harness::Session>(o, l->out, l->err);
          l->s->catalog().add(harness::make_sweep_relation(n));
          l->s->run(std::make_shared<Source>("<sweep>", "range of s is sweep"));
          lanes.push_back(std::move(l));
        }
      for (const Family& f : kFamilies) {
        std::printf("\n%llu tuples, %s: retrieve (s.v) where %ss.pct < K%s\n", static_cast<unsigned long long>(n),
                    f.name, f.before, f.after);
        std::printf("  %-6s", "pct");
        for (const auto& l : lanes) std::printf(" %16s", l->label().c_str());
        std::printf("\n");
        // ns[lane][point]
        std::vector<std::vector<double>> ns(lanes.size());
        for (double p : points) {
          const int k = int(p * 100 + 0.5);
          const std::string text =
              std::string("retrieve (s.v) where ") + f.before + "s.pct < " + std::to_string(k) + f.after;
          std::printf("  %5.4g%%", p);
          for (size_t li = 0; li < lanes.size(); ++li) {
            std::string chose;
            double v = per_tuple(*lanes[li], text, n, reps, &chose);
            ns[li].push_back(v);
            std::printf(" %16.2f", v);
            if (csv.is_open())
              csv << n << ',' << f.name << ',' << p << ',' << lanes[li]->backend << ','
                  << harness::selection_name(lanes[li]->selection) << ',' << v << ',' << chose << '\n';
          }
          std::printf("\n");
          std::fflush(stdout);
        }
        // The selection axis's checks, per back end, from this family's curves.
        std::map<std::string, std::map<Selection, size_t>> by;
        for (size_t li = 0; li < lanes.size(); ++li) by[lanes[li]->backend][lanes[li]->selection] = li;
        auto at = [&](double p) {
          auto it = std::find(points.begin(), points.end(), p);
          return it == points.end() ? -1 : int(it - points.begin());
        };
        for (const auto& [b, m] : by) {
          if (!m.count(Selection::Branch) || !m.count(Selection::NoBranch)) continue;
          const auto& br = ns[m.at(Selection::Branch)];
          const auto& nb = ns[m.at(Selection::NoBranch)];
          std::string line = "  " + b + ":";
          auto check = [&](bool ok, const std::string& what) {
            line += std::string(ok ? "  ok " : "  MISSED ") + what;
            failed_checks += !ok;
          };
          char buf[160];
          for (double p : {0.0, 100.0})
            if (int j = at(p); j >= 0) {
              std::snprintf(buf, sizeof buf, "nobranch/branch at %g%% = %.2f (<= 1.3)", p, nb[size_t(j)] / br[size_t(j)]);
              check(nb[size_t(j)] <= 1.3 * br[size_t(j)], buf);
            }
          if (int j = at(50); j >= 0) {
            std::snprintf(buf, sizeof buf, "at 50%% = %.2f (< 1)", nb[size_t(j)] / br[size_t(j)]);
            check(nb[size_t(j)] < br[size_t(j)], buf);
          }
          if (m.count(Selection::Auto)) {
            const auto& au = ns[m.at(Selection::Auto)];
            double worst = 0;
            for (size_t j = 0; j < points.size(); ++j) worst = std::max(worst, au[j] / std::min(br[j], nb[j]));
            std::snprintf(buf, sizeof buf, "auto/better, worst point = %.2f (<= 1.1)", worst);
            check(worst <= 1.1, buf);
          }
          std::printf("%s\n", line.c_str());
        }
      }
    }
  } catch (QuelError& e) {
    std::cerr << "quelkit sweep: error: " << e.err.format() << "\n";
    return 1;
  } catch (std::exception& e) {
    std::cerr << "quelkit sweep: error: " << e.what() << "\n";
    return 1;
  }
  if (!out_dir.empty()) std::printf("\nwrote %s/sweep.csv (python3 bench/plot_sweep.py %s)\n", out_dir.c_str(), out_dir.c_str());
  std::printf("%d of the selection axis's checks missed\n", failed_checks);
  return 0;
}

}  // namespace quelkit
