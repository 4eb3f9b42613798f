// One paper query on every back end and every reference (paper_run.h). Cold
// preparations come first (each checks the result); then every cell's warm
// run is measured in one interleaved measurement, so ratios between cells are
// taken repetition by repetition.
#include "bench/measure/paper_run.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "bench/measure/floor.h"
#include "bench/measure/reference.h"
#include "bench/measure/sqlite_ref.h"
#include "frontend/frontend.h"
#include "storage/checksum.h"
#include "engine/session.h"

namespace quelkit {

using namespace harness;

const Cell* Row::find(CellKind k) const {
  for (const Cell& c : cells)
    if (c.kind == k) return &c;
  return nullptr;
}

const Cell* Row::best() const {
  const Cell* b = nullptr;
  for (const Cell& c : cells)
    if (!c.external() && (!b || c.m.median_ns < b->m.median_ns)) b = &c;
  return b;
}

void evaluate_text(Session& session, Runner& r, const std::string& name, const std::string& text, ExecStats* st) {
  auto src = std::make_shared<Source>(name, text);
  auto parsed = frontend::parse(src);
  const frontend::BoundQuery b = frontend::bind(*parsed[0], session.ranges(), session.catalog(), src);
  Result res = session.evaluate(b, r, src, false, false);
  asm volatile("" : : "r"(res.stats.run_ns));
  if (st) {
    st->prepares += res.stats.prepares;
    st->cache_hits += res.stats.cache_hits;
    st->prepare_ns += res.stats.prepare_ns;
  }
}

bool measure_query(Session& session, const PaperQuerySpec& pq, uint64_t n, Structure structure, SqliteRef* db,
                   const PaperRunOptions& o, Row* row, bool* mismatch, std::string* err) {
  auto src = std::make_shared<Source>(std::string("<paper ") + pq.id + ">", pq.text);
  auto stmts = frontend::parse(src);
  // Shared by the cold runs here and the warm closures measured below.
  auto qp = std::make_shared<frontend::BoundQuery>(frontend::bind(*stmts[0], session.ranges(), session.catalog(), src));
  const frontend::BoundQuery& q = *qp;
  row->query = pq.id;
  row->size = n;
  row->keyed = structure != Structure::Heap;
  row->structure = structure;
  row->reads = !q.vars.empty();
  std::vector<std::function<void()>> runs;
  std::vector<std::function<uint64_t()>> statement_runs;  // by index of runs: a statement, timed by its run_ns
  auto disagree = [&](const Cell& c) {
    if (row->cells.empty() || (c.rows == row->cells[0].rows && c.checksum == row->cells[0].checksum)) return;
    *err += "quelkit paper: " + c.runner + " disagrees with " + row->cells[0].runner + " on (" + pq.id + ") at " +
            std::to_string(n) + ": " + std::to_string(c.rows) + " rows " + checksum_hex(c.checksum) + " vs " +
            std::to_string(row->cells[0].rows) + " rows " + checksum_hex(row->cells[0].checksum) + "\n";
    *mismatch = true;
  };
  for (auto& rp : session.runners()) {
    Runner* r = rp.get();
    Cell c;
    c.runner = r->label();
    // Cold: the prepare cost a warm process pays (median of cold runs, each
    // one also checks the result).
    std::vector<double> prep;
    Result first;
    for (int k = 0; k < std::max(1, o.cold_runs); ++k) {
      r->cache().clear();
      Result res = session.evaluate(q, *r, src, false);
      if (!res.ok) {
        *err += "quelkit paper: (" + std::string(pq.id) + ") failed on " + r->label() + ": " + res.error.format() + "\n";
        return false;
      }
      prep.push_back(double(res.stats.prepare_ns));
      if (k == 0) first = std::move(res);
    }
    c.prepare_ns = summarise(prep).median;
    c.prepares = first.stats.prepares;
    c.rows = first.nrows();
    c.checksum = first.checksum.sum;
    c.scanned = first.stats.rows_scanned;
    c.cache_hits = session.evaluate(q, *r, src, false).stats.cache_hits;
    disagree(c);
    row->cells.push_back(c);
    // Warm: the statement as a user pays for it on every execution. Its runs
    // take no checksum (the cold runs above checked it): a pass over every
    // result row between timed runs is not the statement's work, and the
    // reference loop's timed runs take none either (docs/stats.md).
    if (!row->reads) {
      // A statement that reads no relation is all fixed cost: timed whole
      // from its text by the wall clock (lex, parse, bind, plan, plan-cache
      // lookup, prepare where the back end does not reuse plans, run), as
      // SQLite's below is prepared, stepped and finalized from its text.
      runs.push_back([&session, r, text = std::string(pq.text), name = src->name()] {
        evaluate_text(session, *r, name, text);
      });
      continue;
    }
    runs.push_back(nullptr);
    statement_runs.resize(runs.size());
    statement_runs.back() = [&session, qp, r, src] { return session.evaluate(*qp, *r, src, false, false).stats.run_ns; };
  }
  if (db) {
    // SQLite on the same data, checksummed the same way: it must agree.
    Cell c;
    c.runner = "sqlite";
    c.kind = CellKind::Sqlite;
    std::string sql = SqliteRef::sql_for(pq.id[0]), e;
    if (!db->run(sql, &c.rows, &c.checksum, &e)) {
      *err += "quelkit paper: sqlite failed on (" + std::string(pq.id) + "): " + e + "\n";
      return false;
    }
    if (!row->count) disagree(c);
    row->cells.push_back(c);
    // Its timed runs step the query and store its rows, and take no
    // checksum (the run above checked it), as the engine's and the
    // reference loop's: the checksum is off every clock (DESIGN.md).
    // A statement that reads no relation from its text every run, as
    // quelkit's above; the others as one prepared statement, reset per run.
    runs.push_back([db, sql, from_text = !row->reads, stored = std::make_shared<SqliteRows>()] {
      std::string e2;
      if (from_text) db->execute_text(sql, stored.get(), &e2);
      else db->execute(sql, stored.get(), &e2);
    });
  }
  const Relation& rel = *session.catalog().find("parts");
  if (o.references && bench::has_reference(pq.id[0]) && !row->count) {
    // The hand-written loop over the same pages: what the query costs by hand.
    Cell c;
    c.runner = "reference";
    c.kind = CellKind::Reference;
    bench::ReferenceResult rr;
    std::string e;
    if (!bench::run_reference(pq.id[0], rel, &rr, &e)) {
      *err += "quelkit paper: reference loop failed on (" + std::string(pq.id) + "): " + e + "\n";
      return false;
    }
    c.rows = rr.rows;
    c.checksum = rr.checksum;
    disagree(c);
    row->cells.push_back(c);
    runs.push_back([&rel, id = pq.id[0]] {
      bench::ReferenceResult r2;
      r2.verify = false;  // the checksum is off the clock, as the engine's
      bench::run_reference(id, rel, &r2);
    });
  }
  if (o.references && row->reads) {
    Cell s;
    s.runner = "scan (walk only)";
    s.kind = CellKind::Scan;
    s.scanned = bench::scan_reference(rel);
    row->cells.push_back(s);
    runs.push_back([&rel] { bench::scan_reference(rel); });
    Cell f;
    f.runner = "floor (stream)";
    f.kind = CellKind::Floor;
    row->cells.push_back(f);
    runs.push_back([&rel] {
      uint64_t v = bench::stream_floor(rel);
      asm volatile("" : : "r"(v));
    });
  }
  // What each run is timed by: a statement by its own run_ns (the engine's
  // clock: prepare and the checksum's verification are off it, docs/stats.md),
  // everything else by the wall clock around it. The timing module reads the
  // sum of those as its clock, so its calibration and repetitions see exactly
  // the time that counts.
  uint64_t counted = 0;
  std::vector<std::function<void()>> timed;
  for (size_t k = 0; k < runs.size(); ++k) {
    if (k < statement_runs.size() && statement_runs[k]) {
      timed.push_back([&counted, f = statement_runs[k]] { counted += f(); });
    } else {
      timed.push_back([&counted, f = runs[k]] {
        const uint64_t t0 = now_ns();
        f();
        counted += now_ns() - t0;
      });
    }
  }
  std::vector<Measurement> ms = measure_interleaved(timed, o.timing, [&counted] { return counted; });
  for (size_t k = 0; k < ms.size(); ++k) row->cells[k].m = std::move(ms[k]);
  if (const Cell* f = row->find(CellKind::Floor); f && f->m.median_ns > 0)
    row->floor_gbs = double(bench::stream_bytes(rel)) / f->m.median_ns;
  return true;
}

}  // namespace quelkit
