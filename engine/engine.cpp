// A statement's evaluation on one runner (engine.h): what is on the clock (the
// decomposition and scans of exec.h, rows into the stored result, sort by /
// unique) and what is not (the checksum over the stored result, verify_ns).
// The rest of the engine: plan_cache.cpp, runner.cpp, decompose.cpp,
// access_path.cpp, scan.cpp, sinks.cpp, result_order.cpp, result_difference.cpp.
#include "engine/engine.h"

#include "engine/exec.h"
#include "engine/measure.h"
#include "engine/result_order.h"
#include "engine/sinks.h"

namespace quelkit::harness {

Result Engine::evaluate(const frontend::BoundQuery& q, Runner& runner, bool keep_rows, bool verify,
                        qk_accum* acc) {
  runner.drop_statement_plans();
  Result res;
  res.layout.attrs.reserve(q.targets.size());
  for (const auto& t : q.targets) res.layout.add(t.name, t.expr->type);
  res.rows.shape(res.layout.tuple_len, q.rows_what);
  const bool retrieve = q.kind == frontend::BoundKind::Retrieve;
  const bool count = runner.options().count_sink && retrieve && q.into.empty();
  const Relation* replaced =
      q.kind == frontend::BoundKind::Replace ? cat_.find(q.vars[size_t(q.update_var)].relation) : nullptr;
  ResultSink rows(res, replaced, q.update_pos, src_);  // (only a replace raises there)
  CountSink counted;
  AccumSink accumulated(acc, res.layout.tuple_len);
  Sink& sink = acc ? static_cast<Sink&>(accumulated) : count ? static_cast<Sink&>(counted) : rows;
  Exec ex(cat_, runner, q, src_, stmt_no_, res, count);
  ex.set_entry(entry_);
  // On the clock: scan, qualification, projection of every qualifying row
  // into the result, and sort by / unique (the statement's work). Off it:
  // the checksum over the stored rows (verify_ns).
  uint64_t t0 = phase_ns();
  auto failed = [&](Error e) {
    res.ok = false;
    res.error = std::move(e);
    // A failed statement outputs nothing: its counts are where it stopped.
    res.rows.clear();
    std::vector<Tid>().swap(res.tids);
    res.tids_charge.reset();
  };
  // A back end's background work for this statement ends on its clock.
  struct StatementEnd {
    AdaptHooks* hooks;
    ExecStats& st;
    ~StatementEnd() {
      if (!hooks) return;
      TierReport r;
      hooks->statement_ends(&r);
      st.add_tiers(r, st.pages_walked);
    }
  };
  try {
    StatementEnd end{runner.hooks(), res.stats};
    ex.run_statement(sink);
    if (retrieve && !count && (q.unique || !q.sort.empty())) order_rows(res.rows, res.layout, q.sort, q.unique);
  } catch (RuntimeFailure& f) {
    failed(std::move(f.err));
  } catch (QuelError& e) {
    // Cancellation and the memory budget, raised outside the scan's own checks.
    if (e.err.kind != ErrKind::Runtime) throw;
    if (!e.err.src) e.err.src = src_;
    if (!e.err.pos.line) e.err.pos = q.pos;
    failed(std::move(e.err));
  }
  uint64_t total = phase_ns() - t0;
  const uint64_t off_clock = res.stats.prepare_ns + res.stats.dump_ns;
  res.stats.run_ns = total > off_clock ? total - off_clock : 0;
  runner.drop_statement_plans();

  if (verify && res.ok) {  // a failed statement holds no rows: nothing to verify (verify_ns 0)
    const uint64_t v0 = phase_ns();
    res.rows.for_each_run([&](const uint8_t* run, size_t n) { res.checksum.add_rows(res.layout, run, n); });
    res.stats.verify_ns = phase_ns() - v0;
  } else {
    res.checksum.rows = res.rows.size();  // verify_ns 0: nothing verified
  }
  if (count && res.ok) res.checksum.rows = counted.count;  // no rows, no sum: checksum 0
  // A count holds no rows to compare or print, whatever the caller asked.
  res.keep_rows = keep_rows && !count;
  if (!keep_rows) res.rows.clear();  // the chunks go back to the pool for the next run
  res.stats.access_path = ex.take_access_path();
  res.stats.selection = ex.take_selections();
  res.stats.accumulated = ex.take_accumulated();
  res.stats.rows_out = res.checksum.rows;
  res.stats.checksum = res.checksum.sum;
  return res;
}

}  // namespace quelkit::harness
