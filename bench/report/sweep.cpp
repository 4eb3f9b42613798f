// `quelkit sweep`: the selectivity sweep. Each back end with a page kernel
// runs a one-i4 projection over the sweep relation (bench/workloads/sweep_data.h,
// uniformly random predicate column) under each selection (--selection),
// at selectivities 0..100%, for three query families:
//   single       retrieve (s.v) where s.pct < K
//   pct_first    retrieve (s.v) where s.pct < K and s.half = 0
//   half_first   retrieve (s.v) where s.half = 0 and s.pct < K
// (the two orders of one conjunction: with a branch, the first conjunct runs
// on every tuple and the second only on its survivors; Ross, PODS 2002).
// Each point is measured with the timing module (engine/measure.h): every
// lane's answer checked against the first lane's (rows and checksum), each
// lane warmed up and calibrated, then their repetitions interleaved in
// rotated rounds (A B C, B C A, ...), each timed by the statements' own
// run_ns. Prints ns per tuple per point (the median), then the checks of the
// selection axis (nobranch against branch at 0, 50 and 100%; auto against the
// better of the two at every point), each a ratio of repetitions taken side
// by side (harness::ratio), with its spread, marked where the median's 95%
// interval holds the bound (noise cannot tell); writes sweep.csv with --out.
#include "bench/report/sweep.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "frontend/frontend.h"
#include "engine/backend.h"
#include "storage/checksum.h"
#include "storage/whole_file.h"
#include "engine/measure.h"
#include "engine/selection.h"
#include "engine/session.h"
#include "bench/workloads/sweep_data.h"
#include "engine/version.h"

namespace quelkit {

namespace {

using harness::Selection;

// A comma-separated list of numbers from lo to hi, checked while parsing.
CLI::Validator numbers(double lo, double hi, const char* what) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (std::string e = cli::empty_element(s); !e.empty()) return e;
        std::vector<std::string> items = cli::split(s);
        if (items.empty()) return std::string("needs a list of ") + what;
        for (auto& x : items)
          if (!cli::real_between(lo, hi)(x).empty()) return std::string("takes ") + what + ", not '" + x + "'";
        return {};
      },
      "");
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

// One back end under one selection. Every lane is a runner of the size's one
// session, so every lane scans the same relation in the same memory. (A
// session per lane had a copy of the relation each, and two lanes of the same
// back end and selection differed widely here: where a copy lay, not what
// ran.) A back end's lanes share its one runner, which each sets to its
// selection before it runs: its plan's kernels are generated once, and auto's
// branch or nobranch is the very code of the branch or nobranch lane. (A
// runner per lane compiled a kernel per lane, and two compiles of one kernel
// need not run alike: auto running branch and the branch lane differed by
// more than the auto check allows, either way round. docs/DESIGN.md,
// "Measurements".)
struct Lane {
  std::string backend;
  Selection selection;
  harness::Runner* runner = nullptr;  // owned by the session, shared by the back end's lanes
  // A mode without a page kernel (interp, the JITs' qual mode: its
  // registration's ModeSpec::page_kernel), asked for by name: it evaluates tuple at a
  // time whatever the selection, so it has one lane, not one per selection
  // (three lanes timed one loop three times), named without a selection: the
  // back end alone in the table, an empty selection in the CSV, null in the JSON.
  bool no_kernel = false;
  // Its statements ran tuple at a time (--stats' selection empty): it has
  // no selection axis, and no check of the axis is made for it.
  bool tuple_at_a_time = false;
  std::string label() const { return no_kernel ? backend : backend + "/" + harness::selection_name(selection); }
};

// The CSV's `ran`: what a lane's statements ran (--stats' selection), the
// one value where all agree, else each with its count, the most frequent
// first: "auto:branch=9;auto:nobranch=5".
std::string ran_column(const std::map<std::string, int>& ran) {
  if (ran.size() == 1) return ran.begin()->first;
  std::vector<std::pair<std::string, int>> v(ran.begin(), ran.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [s, n] : v) out += (out.empty() ? "" : ";") + s + "=" + std::to_string(n);
  return out;
}

// A sweep point as the table prints it: "50%", "0.5%".
std::string percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", p);
  return buf;
}

// The point's statement, parsed and bound once for every lane.
frontend::BoundQuery bind_point(harness::Session& s, const std::shared_ptr<Source>& src) {
  auto stmts = frontend::parse(src);
  return frontend::bind(*stmts[0], s.ranges(), s.catalog(), src);
}

}  // namespace

cli::Run define_sweep(CLI::App& app, const std::vector<std::string>&) {
  auto o = std::make_shared<SweepOptions>();
  app.description(
      "The selectivity sweep: every back end with a page kernel, under each --selection, over a relation\n"
      "whose predicate column is uniformly random (docs/DESIGN.md), ns per tuple at each selectivity.\n"
      "The checks are measurements reported, as paper's targets are: a missed one leaves the exit status 0;\n"
      "1 means a run failed.");
  app.add_option("--sizes", o->sizes, "tuples, comma-separated; +N adds to the default (default 1000000,10000000)")
      ->check(cli::size_list(1000000000, "the sweep's relation stops there"))
      ->type_name("[+]N,...");
  app.add_option("-b,--backend", o->backends, "back ends (default: every one with a page kernel)")
      ->check(cli::backend_list())
      ->type_name("LIST");
  app.add_option("--selections", o->selections, "of branch, nobranch, auto (default all three)")
      ->check(cli::list_of({"branch", "nobranch", "auto"}))
      ->type_name("LIST");
  app.add_option("--points", o->points, "selectivities in percent (default 0,1,5,10,25,50,75,90,95,99,100)")
      ->check(numbers(0, 100, "percentages from 0 to 100"))
      ->type_name("LIST");
  app.add_option("--reps", o->reps, "repetitions per point, interleaved across lanes, the median reported (default 15)")
      ->check(cli::whole(1, 1000))
      ->type_name("N");
  app.add_option("--budget", o->budget,
                 "seconds a lane's repetitions at a point may take; a slower lane takes as many as fit, at least 5 "
                 "(or --reps if fewer) (default 0.5)")
      ->check(cli::real_above(0))
      ->type_name("S");
  app.add_option("--min-time", o->min_time, "seconds each repetition runs at least (default 0.01)")
      ->check(cli::real_above(0, 60))
      ->type_name("S");
  app.add_option("--out", o->out_dir, "also write DIR/sweep.csv and DIR/sweep.json (bench/plots/plot_sweep.py plots them)")
      ->check(cli::a_name("a directory"))
      ->type_name("DIR");
  // The JIT back ends' code, as the report and the monitor take it: the
  // curves of one kernel compiled at another level, or for this machine.
  cli::add_jit_opt_option(app, &o->jit_opt);
  cli::add_jit_cpu_option(app, &o->jit_cpu);
  cli::add_memory_budget_option(app, &o->memory_budget);
  return [o, &app] {
    // No --backend: every page kernel built, the JITs' among them.
    cli::refuse_unread_backend_options(app, harness::parse_backend_list(o->backends.empty() ? "all" : o->backends,
                                                                        /*measured=*/true));
    return run_sweep(*o);
  };
}

int run_sweep(const SweepOptions& o) {
  cli::apply_memory_budget(o.memory_budget);  // before any size is checked against it
  if (!o.out_dir.empty()) cli::require_output_dir("--out", o.out_dir);
  std::vector<uint64_t> sizes = cli::parse_sizes(o.sizes, {1000000, 10000000});
  std::vector<double> points;
  for (const auto& x : cli::split(o.points)) points.push_back(std::stod(x));
  std::vector<Selection> selections;
  for (const auto& x : cli::split(o.selections)) harness::parse_selection(x, &selections.emplace_back());
  sizes = cli::drop_repeats(std::move(sizes));
  points = cli::drop_repeats(std::move(points));
  selections = cli::drop_repeats(std::move(selections));
  for (uint64_t n : sizes) cli::require_fits("--sizes", n, cli::heap_bytes(*harness::make_sweep_relation(0), n));
  const std::string& backends = o.backends;
  const std::string& out_dir = o.out_dir;
  harness::Timing timing;
  timing.reps = o.reps;
  timing.min_seconds = o.min_time;
  timing.budget_seconds = o.budget;
  timing.min_reps = std::min(o.reps, kSweepMinReps);
  if (selections.empty()) cli::usage_error("nothing to sweep");

  // Back ends: those asked for, else every built mode with a page kernel (the
  // interpreters and the JITs' qual mode evaluate tuple at a time: their
  // registrations' ModeSpec::page_kernel).
  std::vector<std::string> lanes_of;
  try {
    for (const auto& [b, m] : harness::parse_backend_list(backends.empty() ? "all" : backends, /*measured=*/true)) {
      const std::string name = b + ":" + m;
      if (backends.empty() && !harness::has_page_kernel(b, m)) continue;
      lanes_of.push_back(name);
    }
  } catch (QuelError& e) {
    cli::usage_error(e.err.message);
  }

  std::printf("quelkit sweep: %s\n", harness::machine_description().c_str());
  std::printf(
      "ns per tuple (run_ns / tuples): median of %d repetitions of >= %g s (a lane as many as fit in %g s at a\n"
      "point, at least %d), the lanes' repetitions interleaved (A B C, B C A, ...) at each point; a check's ratio is\n"
      "the median of the ratios of side-by-side repetitions, ± half their min-max spread; \"within noise\" where\n"
      "the median's interval (order statistics: 95%%, less under 6 repetitions) holds the check's bound\n",
      timing.reps, timing.min_seconds, timing.budget_seconds, timing.min_reps);
  // sweep.csv is written as the points are measured, whole or not at all
  // (storage/whole_file.h): a run that fails or is stopped leaves the old one.
  std::optional<harness::WholeFile> csv_file;
  // sweep.json: what made the run (machine, settings), every point with its
  // figures, and every check with its verdict: the run reproduced or read
  // back without the printed text. The CSV holds the points alone.
  nlohmann::ordered_json doc;
  if (!out_dir.empty()) {
    csv_file.emplace((std::filesystem::path(out_dir) / "sweep.csv").string());
    if (!csv_file->ok()) {
      std::cerr << "quelkit sweep: error: " << csv_file->error() << "\n";
      return 1;
    }
    csv_file->stream() << "tuples,family,percent,backend,selection,ns_per_tuple,ran,spread,rows,reps\n";
    doc = {{"tool", "quelkit sweep"},
           {"version", harness::kit_version()},
           {"commit", harness::kit_commit()},
           {"machine", harness::machine_description()},
           {"build", QUELKIT_BUILD_TYPE},
           {"settings",
            {{"sizes", sizes},
             {"points", points},
             {"selections", nlohmann::ordered_json::array()},
             {"backends", lanes_of},
             {"reps", timing.reps},
             {"min_reps", timing.min_reps},
             {"min_time_s", timing.min_seconds},
             {"budget_s", timing.budget_seconds},
             {"jit_opt", o.jit_opt},
             {"jit_cpu", o.jit_cpu}}},
           {"points", nlohmann::ordered_json::array()},
           {"checks", nlohmann::ordered_json::array()}};
    for (Selection sel : selections) doc["settings"]["selections"].push_back(harness::selection_name(sel));
  }
  int failed_checks = 0, checks = 0, noise_misses = 0;
  try {
    for (uint64_t n : sizes) {
      harness::SessionOptions so;
      so.format = harness::OutFormat::None;
      so.prepare.jit_opt = o.jit_opt;
      so.prepare.jit_native_cpu = o.jit_cpu == "native";
      std::ostringstream s_out, s_err;
      harness::Session session(so, s_out, s_err);  // its own runner (the default) is not used
      session.catalog().add(harness::make_sweep_relation(n));
      session.run(std::make_shared<Source>("<sweep>", "range of s is sweep"));
      std::vector<std::unique_ptr<Lane>> lanes;
      for (const auto& b : lanes_of) {
        // Made under auto, so that every back end keeps what it needs to
        // generate or lower either selection when a lane asks for it (vector
        // keeps its plan only then); each lane then sets its own.
        harness::PrepareOptions po = so.prepare;
        po.selection = Selection::Auto;
        const auto [name, mode] = harness::parse_backend_list(b).at(0);
        harness::Runner* runner = &session.add_runner(name, mode, po);
        const bool no_kernel = !harness::has_page_kernel(name, mode);
        for (Selection sel : selections) {
          auto l = std::make_unique<Lane>();
          l->backend = b;
          l->selection = no_kernel ? Selection::Auto : sel;
          l->no_kernel = no_kernel;
          l->runner = runner;
          lanes.push_back(std::move(l));
          if (no_kernel) break;
        }
      }
      if (n == sizes.front() && !lanes.empty()) {  // as the lanes' runners were made
        const harness::PrepareOptions& made = lanes.front()->runner->prepare_options();
        std::printf("JIT code: --jit-opt %d, %s\n", made.jit_opt, cli::jit_cpu_description(made.jit_native_cpu));
      }
      for (const Family& f : kFamilies) {
        // A conjunction's point is K, s.pct's selectivity: s.half = 0 keeps
        // about half of those (the CSV's rows say what was selected).
        std::printf("\n%llu tuples, %s: retrieve (s.v) where %ss.pct < K%s%s\n", static_cast<unsigned long long>(n),
                    f.name, f.before, f.after,
                    *f.before || *f.after ? " (pct: K; the conjunction selects about K/2)" : " (pct: K, the selectivity)");
        std::printf("  %-6s", "pct");
        for (const auto& l : lanes) std::printf(" %16s", l->label().c_str());
        std::printf("\n");
        // m[lane][point]; ran[lane][point]: what its statements ran (ran_column)
        std::vector<std::vector<harness::Measurement>> m(lanes.size());
        std::vector<std::vector<std::string>> ran(lanes.size());
        for (double p : points) {
          const int k = int(p * 100 + 0.5);
          auto src = std::make_shared<Source>(
              "<sweep>", std::string("retrieve (s.v) where ") + f.before + "s.pct < " + std::to_string(k) + f.after);
          const frontend::BoundQuery bq = bind_point(session, src);
          // Each lane's runs count their statements' run_ns into `counted`,
          // the clock the timing module reads: prepare and verification stay
          // off it, as in the report.
          uint64_t counted = 0;
          harness::Checksum answer;
          // One statement on lane li under its selection; a failure ends the sweep.
          auto run_lane = [&](size_t li, bool verify) {
            lanes[li]->runner->set_selection(lanes[li]->selection);
            harness::Result res = session.evaluate(bq, *lanes[li]->runner, src, false, verify);
            if (!res.ok) throw std::runtime_error(lanes[li]->label() + ": " + res.error.format());
            return res;
          };
          // Every lane's answer first, checksummed and set beside the first
          // lane's: a sweep whose lanes returned different rows would compare
          // nothing. The timed runs then leave the checksum out (run_ns never
          // held it; between timed runs it is a pass over every result row
          // that the next run would start after, docs/stats.md).
          for (size_t li = 0; li < lanes.size(); ++li) {
            const harness::Result res = run_lane(li, true);
            lanes[li]->tuple_at_a_time = res.stats.selection.empty();
            if (li == 0) {
              answer = res.checksum;
            } else if (res.checksum != answer) {
              throw std::runtime_error(lanes[li]->label() + " disagrees with " + lanes[0]->label() + " at " +
                                       percent(p) + ": " + std::to_string(res.checksum.rows) + " rows " +
                                       harness::checksum_hex(res.checksum.sum) + " vs " + std::to_string(answer.rows) +
                                       " rows " + harness::checksum_hex(answer.sum));
            }
          }
          // What each lane's statements ran, counted: auto may choose
          // differently from one statement to the next where the two
          // selections are close (llvm:fused at 0%, timed within 5-10% of
          // each other), and its median is then a mix of both.
          std::vector<std::map<std::string, int>> chose(lanes.size());
          std::vector<std::function<void()>> runs;
          for (size_t li = 0; li < lanes.size(); ++li)
            runs.push_back([&, li] {
              const harness::Result res = run_lane(li, false);
              counted += res.stats.run_ns;
              ++chose[li][res.stats.selection];
            });
          std::vector<harness::Measurement> ms = harness::measure_interleaved(runs, timing, [&counted] { return counted; });
          std::printf("  %5.4g%%", p);
          for (size_t li = 0; li < lanes.size(); ++li) {
            const double v = ms[li].median_ns / double(n);
            std::printf(" %16.2f", v);
            if (csv_file) {
              const Lane& l = *lanes[li];
              csv_file->stream() << n << ',' << f.name << ',' << p << ',' << l.backend << ','
                  << (l.no_kernel ? "" : harness::selection_name(l.selection)) << ',' << harness::figure_text(v) << ','
                  << ran_column(chose[li]) << ',' << harness::figure_text(ms[li].spread()) << ',' << answer.rows
                  << ',' << ms[li].reps << '\n';
              doc["points"].push_back({{"tuples", n},
                                       {"family", f.name},
                                       {"percent", p},
                                       {"rows", answer.rows},  // the qualifying rows: the selectivity that ran
                                       {"backend", lanes[li]->backend},
                                       {"selection", l.no_kernel ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json(harness::selection_name(l.selection))},
                                       {"ns_per_tuple", v},
                                       {"min_ns_per_tuple", ms[li].min_ns / double(n)},
                                       {"max_ns_per_tuple", ms[li].max_ns / double(n)},
                                       {"reps", ms[li].reps},
                                       {"spread", ms[li].spread()},
                                       {"ran", ran_column(chose[li])}});
            }
            m[li].push_back(std::move(ms[li]));
            ran[li].push_back(ran_column(chose[li]));
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
        for (const auto& [b, of] : by) {
          if (lanes[of.begin()->second]->tuple_at_a_time) {
            std::printf("  %s: evaluates tuple at a time (no page kernel): no selection axis to check\n", b.c_str());
            continue;
          }
          if (!of.count(Selection::Branch) || !of.count(Selection::NoBranch)) {
            // Said, not left out: a run of `--selections auto,branch` would
            // otherwise end "0 of the selection axis's 0 checks missed".
            std::printf("  %s: no check: they compare nobranch with branch (and auto with the better of the two), "
                        "and --selections does not run both\n",
                        b.c_str());
            continue;
          }
          const auto& br = m[of.at(Selection::Branch)];
          const auto& nb = m[of.at(Selection::NoBranch)];
          std::string line = "  " + b + ":";
          int made = 0;  // checks this family's points allow
          // A check on the median of a paired ratio against a bound (strict:
          // below it; else at most it), printed with its spread. Where the
          // median's 95% interval (harness::summarise) holds the bound, the
          // repetitions cannot tell a pass from a miss: the verdict is still
          // the median's, marked, and such misses are counted apart.
          auto check = [&](const harness::Stats& r, double bound, bool strict, const char* what) {
            const harness::Verdict v = harness::judge(r, bound, strict);
            const bool ok = v.met, told = v.told;
            char buf[320];
            const std::string spread = harness::spread_text(r.spread, r.n);
            std::snprintf(buf, sizeof buf, "%s = %.2f%s%s", what, r.median, spread.empty() ? "" : " ", spread.c_str());
            line += std::string(ok ? "  ok " : "  MISSED ") + buf + harness::noise_mark(told, r);
            if (csv_file)
              doc["checks"].push_back({{"tuples", n},
                                       {"family", f.name},
                                       {"backend", b},
                                       {"check", what},
                                       {"bound", bound},
                                       {"strict", strict},
                                       {"median", r.median},
                                       {"q1", r.q1},
                                       {"q3", r.q3},
                                       {"spread", r.spread},
                                       {"pairs", r.n},
                                       {"ci", {r.lo, r.hi}},
                                       {"ci_level", r.level},
                                       {"met", ok},
                                       {"told", told}});
            failed_checks += !ok;
            noise_misses += !ok && !told;
            ++checks, ++made;
          };
          for (double p : {0.0, 100.0})
            if (int j = at(p); j >= 0) {
              const harness::Stats r = harness::ratio(nb[size_t(j)], br[size_t(j)]);
              const std::string what = "nobranch/branch at " + percent(p) + " (<= 1.3)";
              check(r, 1.3, false, what.c_str());
            }
          if (int j = at(50); j >= 0) {
            const harness::Stats r = harness::ratio(nb[size_t(j)], br[size_t(j)]);
            check(r, 1, true, "nobranch/branch at 50% (< 1)");
          }
          if (of.count(Selection::Auto)) {
            // Against the better of the two at each point (by median), the
            // worst point reported with what auto ran there and which was
            // better: a miss where auto ran the better one is two runs of
            // one kernel timed apart, not a wrong choice.
            const size_t ai = of.at(Selection::Auto);
            const auto& au = m[ai];
            harness::Stats worst;
            size_t wj = 0;
            for (size_t j = 0; j < points.size(); ++j) {
              const auto& better = nb[j].median_ns < br[j].median_ns ? nb[j] : br[j];
              const harness::Stats r = harness::ratio(au[j], better);
              if (r.median > worst.median) worst = r, wj = j;
            }
            const std::string what = "auto/better, worst point (" + percent(points[wj]) + ", ran " +
                                     ran[ai][wj] + ", better " +
                                     (nb[wj].median_ns < br[wj].median_ns ? "nobranch" : "branch") + ", <= 1.1)";
            check(worst, 1.1, false, what.c_str());
          }
          if (made) std::printf("%s\n", line.c_str());
          else std::printf("  %s: no check at these points (nobranch against branch is checked at 0, 50 and 100%%)\n", b.c_str());
        }
      }
    }
  } catch (QuelError& e) {
    std::cerr << "quelkit sweep: " << e.err.format() << "\n";
    return 1;
  } catch (std::exception& e) {
    std::cerr << "quelkit sweep: error: " << e.what() << "\n";
    return 1;
  }
  if (!out_dir.empty()) {
    harness::WholeFile js((std::filesystem::path(out_dir) / "sweep.json").string());
    js.stream() << doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    if (const std::string err = harness::commit_all({&*csv_file, &js}); !err.empty()) {
      std::cerr << "quelkit sweep: error: " << err << "\n";
      return 1;
    }
    std::printf("\nwrote %s/sweep.csv and %s/sweep.json (python3 bench/plots/plot_sweep.py %s)\n", out_dir.c_str(),
                out_dir.c_str(), out_dir.c_str());
  }
  std::printf("%d of the selection axis's %d checks missed%s\n", failed_checks, checks,
              harness::noise_misses_note(noise_misses).c_str());
  return 0;
}

}  // namespace quelkit
