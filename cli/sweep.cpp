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

#include "cli/command.h"
#include "frontend/frontend.h"
#include "harness/measure.h"
#include "harness/selection.h"
#include "harness/session.h"
#include "harness/sweep_data.h"

namespace quelkit {

namespace {

using harness::Selection;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) v.push_back(item);
  return v;
}

// A comma-separated list of numbers from lo to hi, checked while parsing.
CLI::Validator numbers(double lo, double hi, const char* what) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        std::vector<std::string> items = split(s);
        if (items.empty()) return std::string("needs a list of ") + what;
        for (auto& x : items)
          if (!cli::real_between(lo, hi)(x).empty()) return std::string("takes ") + what + ", not '" + x + "'";
        return {};
      },
      "");
}

struct SweepOptions {
  std::string sizes = "1000000,10000000", points = "0,1,5,10,25,50,75,90,95,99,100";
  std::string selections = "branch,nobranch,auto", backends, out_dir;
  int reps = 5;
};

int run_sweep(const SweepOptions& o);

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

// One back end under one selection: a runner of the size's one session, so
// every lane scans the same relation in the same memory. (A session per lane
// had a copy of the relation each, and two lanes of the same back end and
// selection differed by up to 20% here: where a copy lay, not what ran.)
struct Lane {
  std::string backend;
  Selection selection;
  harness::Runner* runner = nullptr;  // owned by the session
  std::string label() const { return backend + "/" + harness::selection_name(selection); }
};

// Median of the statement's run_ns over `reps` runs, per tuple.
double per_tuple(harness::Session& s, Lane& l, const std::string& text, uint64_t n, int reps, std::string* chose) {
  auto src = std::make_shared<Source>("<sweep>", text);
  auto stmts = frontend::parse(src);
  frontend::BoundQuery bq = frontend::bind(*stmts[0], s.ranges(), s.catalog(), src);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    harness::Result res = s.evaluate(bq, *l.runner, src, false);
    if (!res.ok) throw std::runtime_error(l.label() + ": " + res.error.format());
    t.push_back(double(res.stats.run_ns) / double(n));
    *chose = res.stats.selection;
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

cli::Run define_sweep(CLI::App& app, const std::vector<std::string>&) {
  auto o = std::make_shared<SweepOptions>();
  app.description(
      "The selectivity sweep: every back end with a page kernel, under each --selection, over a relation\n"
      "whose predicate column is uniformly random (docs/DESIGN.md), ns per tuple at each selectivity.");
  app.add_option("--sizes", o->sizes, "tuples, comma-separated (default 1000000,10000000)")
      ->check(numbers(1, 1e9, "sizes from 1 to 1000000000 tuples"))
      ->type_name("LIST");
  app.add_option("-b,--backend", o->backends, "back ends (default: every one with a page kernel)")
      ->check(cli::backend_list())
      ->type_name("LIST");
  app.add_option("--selections", o->selections, "of branch, nobranch, auto (default all three)")
      ->check(cli::list_of({"branch", "nobranch", "auto"}))
      ->type_name("LIST");
  app.add_option("--points", o->points, "selectivities in percent (default 0,1,5,10,25,50,75,90,95,99,100)")
      ->check(numbers(0, 100, "percentages from 0 to 100"))
      ->type_name("LIST");
  app.add_option("--reps", o->reps, "runs per point, the median reported (default 5)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--out", o->out_dir, "also write DIR/sweep.csv (bench/plot_sweep.py plots it)")->type_name("DIR");
  return [o] { return run_sweep(*o); };
}

namespace {

int run_sweep(const SweepOptions& o) {
  if (!o.out_dir.empty()) cli::require_output_dir("--out", o.out_dir);
  std::vector<uint64_t> sizes;
  for (const auto& x : split(o.sizes)) sizes.push_back(uint64_t(std::stod(x)));
  std::vector<double> points;
  for (const auto& x : split(o.points)) points.push_back(std::stod(x));
  std::vector<Selection> selections;
  for (const auto& x : split(o.selections)) harness::parse_selection(x, &selections.emplace_back());
  const std::string& backends = o.backends;
  const std::string& out_dir = o.out_dir;
  const int reps = o.reps;
  if (selections.empty()) cli::usage_error("nothing to sweep");

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
    cli::usage_error(e.err.message);
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
      harness::SessionOptions o;
      o.format = harness::OutFormat::None;
      std::ostringstream s_out, s_err;
      harness::Session session(o, s_out, s_err);  // its own runner (the default) is not used
      session.catalog().add(harness::make_sweep_relation(n));
      session.run(std::make_shared<Source>("<sweep>", "range of s is sweep"));
      std::vector<std::unique_ptr<Lane>> lanes;
      for (const auto& b : lanes_of)
        for (Selection sel : selections) {
          auto l = std::make_unique<Lane>();
          l->backend = b;
          l->selection = sel;
          harness::PrepareOptions po = o.prepare;
          po.selection = sel;
          const auto [name, mode] = harness::parse_backend_list(b).at(0);
          l->runner = &session.add_runner(name, mode, po);
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
            double v = per_tuple(session, *lanes[li], text, n, reps, &chose);
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

}  // namespace

}  // namespace quelkit
