// The aggregates section's measurement (paper_aggregates.h). An aggregate is
// not one plan but a statement (its inner queries or accumulating kernels,
// the temporaries of its groups), so each run is the statement through
// run_statement on one runner, timed by its run_ns, the engine's clock, which
// holds every inner scan and the accumulation (docs/stats.md).
#include "bench/measure/paper_aggregates.h"

#include <functional>
#include <memory>

#include "bench/measure/floor.h"
#include "bench/measure/quel_sql.h"
#include "bench/measure/quiet_session.h"
#include "bench/measure/sqlite_ref.h"
#include "engine/backend.h"
#include "engine/session.h"
#include "frontend/frontend.h"
#include "storage/checksum.h"

namespace quelkit {

using namespace harness;

const std::vector<PaperAggregateSpec>& paper_aggregates() {
  // Issue 69's six statements and its bounds: simple aggregates at most 1.5x
  // the count scan of the query with the same qualification, grouped ones
  // 3x, 5x and 10x (b)'s by their groups (8, 160, 100,000 at 10M tuples).
  static const std::vector<PaperAggregateSpec> specs = {
      {"count", "retrieve (n = count(p.pnum))", 'b', 1.5},
      {"sum", "retrieve (s = sum(p.qoh where p.qoh < log(9.5) * p.weight))", 'd', 1.5},
      {"minmax", "retrieve (a = min(p.qoh), b = max(p.weight))", 'b', 1.5},
      {"colour", "retrieve unique (p.color, n = count(p.pnum by p.color), s = sum(p.qoh by p.color))", 'b', 3},
      {"pname_colour", "retrieve unique (p.pname, p.color, s = sum(p.qoh by p.pname, p.color))", 'b', 5},
      {"pnum100", "retrieve unique (b = p.pnum / 100, n = count(p.pnum by p.pnum / 100))", 'b', 10},
  };
  return specs;
}

std::string count_scan_label(const std::string& runner, char query) {
  return runner + " count (" + std::string(1, query) + ")";
}

bool measure_aggregate(Session& session, const PaperAggregateSpec& spec, uint64_t n, SqliteRef* db,
                       const PaperRunOptions& o, Row* row, bool* mismatch, std::string* err) {
  auto src = std::make_shared<Source>(std::string("<paper ") + spec.id + ">", spec.text);
  auto stmts = frontend::parse(src);
  const frontend::ast::Stmt& s = *stmts[0];
  row->query = spec.id;
  row->size = n;
  row->structure = Structure::Heap;
  auto disagree = [&](const Cell& c) {
    if (row->cells.empty() || (c.rows == row->cells[0].rows && c.checksum == row->cells[0].checksum)) return;
    *err += "quelkit paper: " + c.runner + " disagrees with " + row->cells[0].runner + " on " + spec.id + " at " +
            std::to_string(n) + ": " + std::to_string(c.rows) + " rows " + checksum_hex(c.checksum) + " vs " +
            std::to_string(row->cells[0].rows) + " rows " + checksum_hex(row->cells[0].checksum) + "\n";
    *mismatch = true;
  };
  // One run of the statement on runner k: its report, or false with err set.
  auto run_on = [&](size_t k, StmtReport* rep) {
    bool ok = false;
    with_runner_alone(session, k, [&] {
      ok = session.run_statement(s, src);
      if (!session.reports().empty()) *rep = session.reports().back();
      session.reports().clear();
    });
    if (!ok)
      *err += "quelkit paper: " + std::string(spec.id) + " failed on " + session.runners()[k]->label() + ": " +
              rep->error + "\n";
    return ok;
  };

  std::vector<std::function<uint64_t()>> timed;  // each returns the ns it counts
  const size_t nrunners = session.runners().size();
  for (size_t k = 0; k < nrunners; ++k) {
    Runner& r = *session.runners()[k];
    Cell c;
    c.runner = r.label();
    // One cold run (plan cache cleared) checks the answer and gives the
    // prepare figure: a statement of several scans at 10M tuples is seconds
    // a run. The timed runs after it count the cache hits.
    r.cache().clear();
    StmtReport cold;
    if (!run_on(k, &cold)) return false;
    c.prepare_ns = double(cold.stats.prepare_ns);
    c.prepares = cold.stats.prepares;
    c.rows = cold.stats.rows_out;
    c.checksum = cold.stats.checksum;
    c.scanned = cold.stats.rows_scanned;
    disagree(c);
    row->cells.push_back(c);
    // Warm runs take no checksum (the cold one checked the answer). The
    // cells are all in place before the first timed run.
    timed.push_back([&session, &run_on, k, row, at = row->cells.size() - 1] {
      StmtReport rep;
      session.set_verify(false);
      run_on(k, &rep);
      session.set_verify(true);
      row->cells[at].cache_hits = rep.stats.cache_hits;
      return rep.stats.run_ns;
    });
  }
  if (db) {
    // The view names the paper's range variable, so that the statement's
    // own translation (quel_sql.h) reads the table.
    const std::string sql = quel_to_sql(s);
    uint64_t changes = 0;
    std::string e;
    if (sql.empty() || !db->exec("CREATE TEMP VIEW IF NOT EXISTS p AS SELECT * FROM parts", &changes, &e)) {
      *err += "quelkit paper: no SQLite statement for " + std::string(spec.id) + (e.empty() ? "" : ": " + e) + "\n";
      return false;
    }
    Cell c;
    c.runner = "sqlite";
    c.kind = CellKind::Sqlite;
    if (!db->run(sql, &c.rows, &c.checksum, &e)) {
      *err += "quelkit paper: sqlite failed on " + std::string(spec.id) + ": " + e + "\n";
      return false;
    }
    disagree(c);
    row->cells.push_back(c);
    timed.push_back([db, sql, stored = std::make_shared<SqliteRows>()] {
      std::string e2;
      const uint64_t t0 = now_ns();
      db->execute(sql, stored.get(), &e2);
      return now_ns() - t0;
    });
  }
  // Each back end's --sink count scan of the bounding query, on a runner of
  // its own (the same back end, mode and options, count sink on), so that
  // "best / its count scan" pairs repetitions of this measurement.
  const PaperQuerySpec* scan_q = paper_query(spec.scan_query);
  auto scan_src = std::make_shared<Source>(std::string("<paper ") + scan_q->id + ">", scan_q->text);
  auto scan_parsed = frontend::parse(scan_src);
  auto scan_bound = std::make_shared<frontend::BoundQuery>(
      frontend::bind(*scan_parsed[0], session.ranges(), session.catalog(), scan_src));
  for (size_t k = 0; k < nrunners; ++k) {
    Runner& r = *session.runners()[k];
    RunnerOptions ro = r.options();
    ro.count_sink = true;
    ro.dumps.clear();
    auto cr = std::make_shared<Runner>(r.name(), r.mode(), find_backend(r.name())->make(r.mode(), r.prepare_options()),
                                       ro, r.prepare_options());
    Result first = session.evaluate(*scan_bound, *cr, scan_src, false);
    if (!first.ok) {
      *err += "quelkit paper: the count scan of (" + std::string(1, spec.scan_query) + ") failed on " + r.label() +
              ": " + first.error.format() + "\n";
      return false;
    }
    Cell c;
    c.runner = count_scan_label(r.label(), spec.scan_query);
    c.kind = CellKind::CountScan;
    c.rows = first.nrows();
    c.scanned = first.stats.rows_scanned;
    row->cells.push_back(c);
    timed.push_back([&session, cr, scan_bound, scan_src] {
      return session.evaluate(*scan_bound, *cr, scan_src, false, false).stats.run_ns;
    });
  }
  const Relation& rel = *session.catalog().find("parts");
  if (o.references) {
    Cell sc;
    sc.runner = "scan (walk only)";
    sc.kind = CellKind::Scan;
    sc.scanned = bench::scan_reference(rel);
    row->cells.push_back(sc);
    timed.push_back([&rel] {
      const uint64_t t0 = now_ns();
      bench::scan_reference(rel);
      return now_ns() - t0;
    });
    Cell f;
    f.runner = "floor (stream)";
    f.kind = CellKind::Floor;
    row->cells.push_back(f);
    timed.push_back([&rel] {
      const uint64_t t0 = now_ns();
      uint64_t v = bench::stream_floor(rel);
      asm volatile("" : : "r"(v));
      return now_ns() - t0;
    });
  }
  // The timing module reads the sum of what the runs counted as its clock.
  uint64_t counted = 0;
  std::vector<std::function<void()>> runs;
  for (auto& t : timed) runs.push_back([&counted, &t] { counted += t(); });
  std::vector<Measurement> ms = measure_interleaved(runs, o.timing, [&counted] { return counted; });
  for (size_t k = 0; k < ms.size(); ++k) row->cells[k].m = std::move(ms[k]);
  if (const Cell* f = row->find(CellKind::Floor); f && f->m.median_ns > 0)
    row->floor_gbs = double(bench::stream_bytes(rel)) / f->m.median_ns;
  return true;
}

}  // namespace quelkit
