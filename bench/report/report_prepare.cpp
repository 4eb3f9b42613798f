// Prepare cost in the report (report_parts.h): first-in-process prepare (a
// fresh `quelkit --stats=json` child per sample: what a one-off query pays,
// with the back end's libraries cold), warm-process cold prepare (plan cache
// cleared in a process that has prepared before), the break-even rows built on
// each, and compile cost by --jit-opt level.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/report/report_parts.h"
#include "frontend/frontend.h"
#include "bench/workloads/parts.h"

namespace quelkit::report {

using namespace harness;

namespace {

// The retrieve's prepare_ns from one child's --stats=json (statement 2: the
// range before it, which no back end runs, has an object too), or < 0.
double child_prepare(const std::string& exe, const std::string& label, bool native) {
  const std::string cmd = "'" + exe + "' --parts 1000 --format none --stats=json -b " + label +
                          (native ? " --jit-cpu native" : "") + " -e 'range of p is parts " +
                          paper_query('d')->text + "' 2>/dev/null";
  // The query text has no single quote, so it travels inside one.
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  std::string out;
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, k);
  pclose(f);
  std::istringstream is(out);
  std::string ln;
  while (std::getline(is, ln)) {
    if (ln.find("\"prepare_ns\"") == std::string::npos) continue;
    auto j = nlohmann::json::parse(ln, nullptr, false);
    if (j.is_object() && j.value("statement", "") == "retrieve" && j.contains("prepare_ns"))
      return j["prepare_ns"].get<double>();
  }
  return -1;
}

const Row* largest(const std::vector<Row>& rows, const char* qid) {
  const Row* best = nullptr;
  for (const auto& r : rows)
    if (r.query == qid && !r.keyed && (!best || r.size > best->size)) best = &r;
  return best;
}

}  // namespace

void measure_first_prepare(const SessionOptions& so, int children, Measured* m) {
  if (children <= 0) return;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  m->first_prepare_children = children;
  // One child first, discarded: the first process of a run also pays for the
  // executable's pages coming into the page cache, which is not a prepare.
  child_prepare(exe, so.backends.front().first + ":" + so.backends.front().second, so.prepare.jit_native_cpu);
  for (const auto& b : so.backends) {
    const std::string label = b.first + ":" + b.second;
    std::vector<double> v;
    for (int k = 0; k < children; ++k)
      if (double p = child_prepare(exe, label, so.prepare.jit_native_cpu); p >= 0) v.push_back(p);
    if (!v.empty()) m->first_prepare_ns[label] = summarise(v).median;
  }
}

double first_prepare(const Measured& m, const std::string& label) {
  auto it = m.first_prepare_ns.find(label);
  return it == m.first_prepare_ns.end() ? -1.0 : it->second;
}

BreakEven break_even(const Measured& m, const char* qid, const std::string& x, const std::string& base, bool first) {
  std::vector<const Row*> rows;
  for (const auto& r : m.rows)
    if (r.query == qid && !r.keyed) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) { return a->size < b->size; });
  auto prepare = [&](const Cell& c) { return first ? first_prepare(m, c.runner) : c.prepare_ns; };
  auto cell = [](const Row& r, const std::string& label) -> const Cell* {
    for (const auto& c : r.cells)
      if (c.runner == label) return &c;
    return nullptr;
  };
  bool seen = false;
  double prev_n = 0, prev_d = 0;
  for (const Row* r : rows) {
    const Cell *cx = cell(*r, x), *cb = cell(*r, base);
    if (!cx || !cb) continue;
    const double px = prepare(*cx), pb = prepare(*cb);
    if (px < 0 || pb < 0) return BreakEven{};
    const double n = double(std::max<uint64_t>(r->size, 1));
    const double d = (px + cx->m.median_ns) - (pb + cb->m.median_ns);  // > 0: x costs more here
    if (d <= 0) {
      if (!seen) return BreakEven{BreakEven::AtMost, n};
      return BreakEven{BreakEven::At, prev_n + (n - prev_n) * prev_d / (prev_d - d)};
    }
    seen = true;
    prev_n = n;
    prev_d = d;
  }
  return seen ? BreakEven{BreakEven::Never, prev_n} : BreakEven{};
}

std::string break_even_text(const BreakEven& b) {
  switch (b.kind) {
    case BreakEven::At: return fmt(b.tuples, 0) + " tuples";
    case BreakEven::AtMost: return "<= " + fmt(b.tuples, 0) + " tuples";
    case BreakEven::Never: return "> " + fmt(b.tuples, 0) + " tuples";
    case BreakEven::Unknown: break;
  }
  return "?";
}

bool sooner(const BreakEven& a, const BreakEven& b) {
  // The kinds in order of payback: AtMost, At, Never, Unknown.
  auto rank = [](BreakEven::Kind k) {
    return k == BreakEven::AtMost ? 0 : k == BreakEven::At ? 1 : k == BreakEven::Never ? 2 : 3;
  };
  if (rank(a.kind) != rank(b.kind)) return rank(a.kind) < rank(b.kind);
  return a.kind == BreakEven::At && a.tuples < b.tuples;
}

void print_prepare(const Measured& m) {
  // Break-even: where a back end's one-off cost (prepare + statement time)
  // crosses below the base's over the heap sizes measured, interpolated
  // between the sizes around the crossing (DESIGN.md): the crossings of the
  // one-off plot. Against the interpreter (the first back end) and against
  // threaded code; once with warm-process prepare at each size, once with
  // first-in-process prepare.
  std::cout << "Prepare cost and break-even tuple counts\n"
            << "  warm = cold prepare in a warm process (plan cache cleared, median of 5, of 3 at 10M tuples\n"
            << "  and more); first = the first prepare of (d) in a fresh process ";
  if (m.first_prepare_children)
    std::cout << "(median of " << m.first_prepare_children << " child processes, `quelkit --stats=json`)\n";
  else
    std::cout << "(not measured: --children 0)\n";
  std::cout
            << "  break-even = where prepare + statement time crosses below the base's, linearly interpolated between\n"
            << "  the two heap sizes measured around the crossing (<= N: cheaper already at the smallest; > N: not by\n"
            << "  the largest)\n";
  for (const char* qid : {"c", "d"}) {
    const Row* best = largest(m.rows, qid);
    if (!best) continue;
    const double n = double(std::max<uint64_t>(best->size, 1));
    std::vector<const Cell*> bases = {&best->cells[0]};
    for (const auto& c : best->cells)
      if (c.runner.rfind("threaded:", 0) == 0) {
        if (&c != bases[0]) bases.push_back(&c);  // -b threaded:...,...: one base, not the same twice
        break;
      }
    std::cout << "  (" << qid << "), prepare and per tuple at " << best->size << " tuples:\n    " << std::left
              << std::setw(16) << "back end" << std::right << std::setw(11) << "warm" << std::setw(11)
              << (qid[0] == 'd' ? "first" : "first (d)")  // the fresh process prepares (d) only
              << std::setw(11) << "per tuple";
    for (const Cell* b : bases)
      for (const char* w : {"warm", "first"}) std::cout << std::setw(26) << ("vs " + b->runner + " (" + w + ")");
    std::cout << "\n";
    for (const auto& c : best->cells) {
      if (c.external()) continue;
      const double fc = first_prepare(m, c.runner);
      std::cout << "    " << std::left << std::setw(16) << c.runner << std::right << std::setw(11) << dur(c.prepare_ns)
                << std::setw(11) << (fc >= 0 ? dur(fc) : "-") << std::setw(11) << dur(c.m.median_ns / n);
      for (const Cell* b : bases)
        for (int first = 0; first < 2; ++first)
          std::cout << std::setw(26)
                    << (&c == b ? std::string("-") : break_even_text(break_even(m, qid, c.runner, b->runner, first)));
      std::cout << "\n";
    }
  }
  std::cout << "  (the paper: break-even about ten records, compile overhead about .012 s on the VAX)\n\n";
}

void measure_levels(const SessionOptions& so, Measured* m) {
  // Compile cost by optimisation level, for back ends that compile (whose
  // prepare reports code-generation time): cold prepares of (c) and (d),
  // those of them --queries asked for.
  std::vector<char> queries;
  for (char qc : {'c', 'd'})
    if (m->queries.empty() || m->queries.find(qc) != std::string::npos) queries.push_back(qc);
  if (queries.empty()) return;
  std::ostringstream sink_out, sink_err;
  std::vector<std::pair<std::string, std::string>> compiling;
  for (const auto& b : so.backends) {
    SessionOptions lo = so;
    lo.backends = {b};
    Session probe(lo, sink_out, sink_err);
    probe.catalog().add(make_parts(1, false, Structure::Heap));
    probe.run(std::make_shared<Source>("<probe>", "range of p is parts"));
    auto src = std::make_shared<Source>("<probe d>", paper_query('d')->text);
    auto stmts = frontend::parse(src);
    auto q = frontend::bind(*stmts[0], probe.ranges(), probe.catalog(), src);
    Result r = probe.evaluate(q, *probe.runners()[0], src, false);
    if (r.ok && r.stats.codegen_ns > 0) compiling.push_back(b);
  }
  if (compiling.empty()) return;
  // One kernel variant each: on a one-tuple relation auto never switches, but
  // said, not left to the data (a warm figure above includes nobranch's
  // compile too where auto switched to it: --stats' auto:nobranch).
  std::cout << "Compile cost by --jit-opt level (cold prepare of the branch kernel, median of 9, [min - max];\n"
               "the warm figures above include the nobranch kernel too where --selection auto switched to it)\n";
  std::cout << "  " << std::left << std::setw(16) << "back end" << std::right;
  for (int l = 0; l <= 3; ++l) std::cout << std::setw(34) << ("level " + std::to_string(l));
  std::cout << "\n";
  for (const auto& b : compiling) {
    for (char qc : queries) {
      std::cout << "  " << std::left << std::setw(16) << (b.first + ":" + b.second + " (" + qc + ")") << std::right;
      for (int l = 0; l <= 3; ++l) {
        SessionOptions lo = so;
        lo.backends = {b};
        lo.prepare.jit_opt = l;
        lo.prepare.selection = Selection::Branch;
        Session s(lo, sink_out, sink_err);
        s.catalog().add(make_parts(1, false, Structure::Heap));
        s.run(std::make_shared<Source>("<levels>", "range of p is parts"));
        auto src = std::make_shared<Source>("<levels>", paper_query(qc)->text);
        auto stmts = frontend::parse(src);
        auto q = frontend::bind(*stmts[0], s.ranges(), s.catalog(), src);
        std::vector<double> t;
        for (int k = 0; k < 9; ++k) {
          s.runners()[0]->cache().clear();
          t.push_back(double(s.evaluate(q, *s.runners()[0], src, false).stats.prepare_ns));
        }
        const Stats st = summarise(t);
        m->levels.push_back({b.first + ":" + b.second, l, qc, st.median, st.min, st.max});
        std::cout << std::setw(34) << (dur(st.median) + " [" + dur(st.min) + " - " + dur(st.max) + "]");
      }
      std::cout << "\n";
    }
  }
  std::cout << "\n";
}

}  // namespace quelkit::report
