// The report's last block (report_parts.h): each conclusion of the paper
// beside what this run's figures say, computed from the measured rows (and
// from `quelkit profile --json` output for Table 3 when it is given), never
// typed in.
#include <algorithm>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bench/report/report_parts.h"

namespace quelkit::report {

namespace {

bool native(const std::string& l) {
  return l.rfind("llvm:", 0) == 0 || l.rfind("gccjit:", 0) == 0 || l.rfind("stencil:", 0) == 0;
}
bool threaded(const std::string& l) { return l.rfind("threaded:", 0) == 0; }

// The fastest cell whose label passes `pick`.
const Cell* fastest(const Row& r, bool (*pick)(const std::string&)) {
  const Cell* b = nullptr;
  for (const Cell& c : r.cells)
    if (!c.external() && pick(c.runner) && (!b || c.m.median_ns < b->m.median_ns)) b = &c;
  return b;
}

const Row* at(const std::vector<Row>& rows, const char* q, bool largest) {
  const Row* b = nullptr;
  for (const auto& r : rows)
    if (r.query == q && !r.keyed && (!b || (largest ? r.size > b->size : r.size < b->size))) b = &r;
  return b;
}

double prepare_of(const Measured& m, const Cell& c, bool first) {
  const double f = first ? first_prepare(m, c.runner) : -1;
  return f >= 0 ? f : c.prepare_ns;
}

// The list of back ends of `quelkit profile --json`'s output (a bare list, or
// an object whose "backends" is one), each with a "table3" list; null with
// *why set otherwise.
nlohmann::json profile_backends(const std::string& path, std::string* why) {
  std::ifstream f(path);
  if (!f) {
    *why = "cannot be read";
    return nullptr;
  }
  auto doc = nlohmann::json::parse(f, nullptr, false);
  if (doc.is_discarded()) {
    *why = "is not JSON";
    return nullptr;
  }
  auto list = doc.is_object() && doc.contains("backends") ? doc["backends"] : doc;
  bool any = false;
  if (list.is_array())
    for (const auto& b : list) any = any || (b.is_object() && b.contains("table3") && b["table3"].is_array());
  if (!any) {
    *why = "is not `quelkit profile --json` output (no back end with a table3 list)";
    return nullptr;
  }
  return list;
}

void table3(const std::string& path) {
  if (path.empty()) {
    std::cout << "  Table 3 (hot routines): no profile (run `./kit profile --json > FILE`, then --profile-json FILE)\n";
    return;
  }
  std::string why;
  const auto list = profile_backends(path, &why);
  if (list.is_null()) {  // checked before the run (check_profile_json); changed since
    std::cout << "  Table 3: " << path << " " << why << "\n";
    return;
  }
  std::cout << "  Table 3 (hot routines, paper % vs this profile's share of its counterpart, from " << path << "):\n";
  for (const auto& b : list) {
    if (!b.is_object() || !b.contains("table3") || !b["table3"].is_array()) continue;
    std::cout << "    " << b.value("label", std::string("?")) << ":";
    for (const auto& r : b["table3"])
      std::cout << "  " << r.value("routine", std::string("?")) << " " << fmt(r.value("paper_percent", 0.0), 0)
                << "% vs " << fmt(r.value("percent", 0.0), 1) << "%";
    std::cout << "\n";
  }
}

}  // namespace

bool check_profile_json(const std::string& path, std::string* why) { return !profile_backends(path, why).is_null(); }

void print_conclusions(const Measured& m, const std::string& profile_json) {
  std::cout << "The paper's conclusions, checked by this run\n";
  // 1. Threaded code against native code: the fastest threaded mode over the
  // fastest native back end, per tuple, at the largest heap size.
  std::vector<double> pen;
  std::string per_query;
  for (const char* q : {"b", "c", "d"}) {
    const Row* r = at(m.rows, q, true);
    if (!r) continue;
    const Cell *t = fastest(*r, threaded), *n = fastest(*r, native);
    if (!t || !n) continue;
    const double p = 100 * (t->m.median_ns / n->m.median_ns - 1);
    pen.push_back(p);
    per_query += " (" + std::string(q) + ") " + fmt(p, 0) + "%";
  }
  std::cout << "  threaded-code penalty against native code: the paper 5-10%; this run "
            << (pen.empty() ? std::string("- (needs threaded and a native back end)")
                            : "median " + fmt(harness::summarise(pen).median, 0) + "% [" + per_query.substr(1) + "]")
            << "\n";
  // 2. Break-even of compiling: the tuple count from which a native back
  // end's one-off cost (prepare + run) beats the interpreter's. Two of them:
  // the native back end that pays back soonest, and the one that runs
  // fastest at the largest size. The fastest alone was a coin toss where
  // llvm:fused and gccjit:fused run about alike, and with it the figure,
  // since their prepare costs differ widely (docs/DESIGN.md, "Measurements").
  for (int first = 1; first >= 0; --first) {
    std::vector<std::string> parts;
    // First-in-process prepare is measured on (d) only.
    for (const char* q : {"c", "d"}) {
      if (first && q[0] != 'd') continue;
      const Row* r = at(m.rows, q, true);
      if (!r) continue;
      const Cell* base = &r->cells[0];
      const Cell* n = fastest(*r, native);
      if (!n) continue;
      const BreakEven fast = break_even(m, q, n->runner, base->runner, first);
      const Cell* soon = n;
      BreakEven soonest = fast;
      for (const Cell& c : r->cells) {
        if (&c == n || c.external() || !native(c.runner)) continue;  // n's is `fast`
        const BreakEven b = break_even(m, q, c.runner, base->runner, first);
        if (sooner(b, soonest)) soon = &c, soonest = b;
      }
      std::string part = "(" + std::string(q) + ") vs " + base->runner + ": ";
      if (soon != n) part += "soonest " + soon->runner + " " + break_even_text(soonest) + ", fastest ";
      parts.push_back(part + n->runner + " " + break_even_text(fast));
    }
    std::cout << "  break-even of compiling (" << (first ? "first-in-process" : "warm-process")
              << " prepare): the paper about 10 records; this run";
    for (size_t i = 0; i < parts.size(); ++i) std::cout << (i ? "; " : " ") << parts[i];
    std::cout << (parts.empty() ? " -" : "") << "\n";
  }
  // 3. DC-INGRES's gain: short commands (the smallest relation, one-off cost
  // with first-in-process prepare) and long ones (the largest, warm).
  for (int longc = 0; longc < 2; ++longc) {
    std::string ours, vax;
    // Which prepare a short command was charged: first-in-process where both
    // cells have one (--children), else the warm-process one; said as used.
    bool first_used = true;
    for (const char* q : {"b", "c", "d"}) {
      if (!longc && q[0] != 'd') continue;  // first-in-process prepare: (d) only
      const Row* r = at(m.rows, q, longc);
      if (!r) continue;
      const Cell* n = fastest(*r, native);
      if (!n) continue;
      const Cell& base = r->cells[0];
      const double tb = base.m.median_ns + (longc ? 0 : prepare_of(m, base, true));
      const double tn = n->m.median_ns + (longc ? 0 : prepare_of(m, *n, true));
      if (!longc) first_used = first_used && first_prepare(m, base.runner) >= 0 && first_prepare(m, n->runner) >= 0;
      ours += " (" + std::string(q) + ") " + fmt(100 * (tb - tn) / tn, 0) + "%";
      // A short command's gain is near -100% when the prepare dwarfs the
      // run; the two one-off costs say by how much.
      if (!longc) ours += " (" + base.runner + " " + dur(tb) + ", " + n->runner + " " + dur(tn) + ")";
      const auto& v = paper_query(q[0])->vax;
      if (!v.empty()) {
        const auto& p = longc ? v.rbegin()->second : v.begin()->second;
        vax += " (" + std::string(q) + ") " + fmt(100 * (p.first - p.second) / p.second, 0) + "%";
      }
    }
    std::cout << "  DC-INGRES's gain on " << (longc ? "long" : "short") << " commands: the paper" << vax
              << "; this run (fastest native over " << (m.rows.empty() ? "" : m.rows[0].cells[0].runner)
              << (longc         ? ", statement time, largest relation"
                  : first_used ? ", prepare (first-in-process) + run, smallest relation"
                               : ", prepare (warm-process: first-in-process not measured) + run, smallest relation")
              << ")"
              << (ours.empty() ? " -" : ours) << "\n";
  }
  table3(profile_json);
  std::cout << "\n";
}

}  // namespace quelkit::report
