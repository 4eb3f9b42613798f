// The scan of one one-variable plan (exec.h): its pages by access path, the
// page walk of page_walk.h (a back end's fused kernel a page per call, or a
// batch's pages per call where its batches span pages, or the tuple-at-a-time
// loop), the cancellation check at each page boundary, rows projected straight
// into the sink, and a failing tuple's counts and error.
#include <algorithm>
#include <exception>
#include <optional>

#include "harness/exec.h"
#include "harness/measure.h"
#include "harness/page_walk.h"

namespace quelkit::harness {

// Runs one plan over the pages of its access path, projecting qualifying rows
// straight into the sink's room.
void Exec::execute(const Plan& plan, Relation* rel, const std::string& cache_key, const AccessSpec& acc,
                   std::vector<uint8_t>& params, Sink& out, bool want_tids) {
  ExecStats& st = res_.stats;
  std::unique_ptr<Prepared> owner;
  const std::vector<uint64_t>* prepared_at = nullptr;
  Prepared* prep = runner_.get(plan, cache_key, params.empty() ? nullptr : params.data(), owner, st, &prepared_at);
  if (scratch_.size() < plan.scratch_size + 1) scratch_.resize(plan.scratch_size + 1);
  qk_ctx ctx{};
  ctx.params = params.data();
  ctx.scratch = scratch_.data();
  const uint32_t row_len = plan.out.tuple_len;

  if (cancel_requested()) cancelled();
  auto fail = [&](int64_t ordinal) {
    Error e;
    e.kind = ErrKind::Runtime;
    e.code = ctx.err_code;
    e.message = qk_err_message(ctx.err_code);
    e.pos = SrcPos::unpack(ctx.err_pos);
    if (prepared_at) {  // a cached plan raises at the positions it was prepared with
      auto at = std::find(prepared_at->begin(), prepared_at->end(), ctx.err_pos);
      std::vector<uint64_t> here = plan_positions(plan);
      if (at != prepared_at->end() && size_t(at - prepared_at->begin()) < here.size())
        e.pos = SrcPos::unpack(here[size_t(at - prepared_at->begin())]);
    }
    e.src = src_;
    e.relation = rel ? rel->name() : "";
    e.tuple = ordinal;
    throw RuntimeFailure{std::move(e)};
  };

  if (!rel) {  // no variable left: evaluate once, on no tuple (none scanned, none qualified)
    runner_.make_tuple_functions(*prep, st);
    static const uint8_t empty[8] = {};
    int r = prep->qualify(empty, &ctx);
    if (r < 0) fail(1);
    if (r) {
      size_t cap = 0;
      uint8_t* row = out.room(1, &cap);
      if (prep->project(empty, row, &ctx) < 0) fail(1);
      out.wrote(1, nullptr);
    }
    return;
  }

  // A back end that adapts mid-scan (adaptive/) hears what lies ahead, and
  // says afterwards what ran (also when the scan fails: then nothing more of
  // this plan is coming).
  const KeyBounds bounds = resolve_bounds(acc, params);
  ScanOutlook outlook;
  outlook.pages = rel->pages_within(bounds);
  outlook.tuples = rel->ntuples();
  outlook.tuples_per_page = rel->tuples_per_page();
  outlook.runs_after = runner_.reuses() ? runs_after() : 0;
  prep->scan_begins(outlook);
  struct ScanEnd {
    Prepared* prep;
    ExecStats& st;
    TierReport& r;
    uint64_t pages_before;
    bool last;
    int unwinding = std::uncaught_exceptions();
    ~ScanEnd() {
      r.clear();
      prep->scan_ends(last || std::uncaught_exceptions() > unwinding, &r);
      st.add_tiers(r, pages_before);
    }
  } scan_end{prep, st, tierbuf_, st.pages_walked, outlook.runs_after == 0};

  const uint32_t tpp = rel->tuples_per_page(), in_len = rel->tuple_len();
  // Reused across executions: (f)-(i) run thousands of small substituted scans.
  std::vector<Tid>& tids = tidbuf_;
  if (want_tids && tids.size() < tpp) tids.resize(tpp);
  const bool kernel = prep->has_kernel() && runner_.options().use_kernel && !want_tids;
  if (!kernel) runner_.make_tuple_functions(*prep, st);
  // --selection (selection.h): branch or nobranch as asked; auto lets its
  // probe pick the selection of each kernel call until it has decided.
  const Selection asked = runner_.prepare_options().selection;
  std::optional<AutoProbe> probe;
  const uint64_t scanned_before = st.rows_scanned;
  // A plan whose every tuple qualifies has nothing to select on: under auto
  // it runs branch (the one loop both variants are) without a probe. The
  // probe's seed (where its timed pages begin): the clock's low bits, mixed,
  // so the same statement run again times other pages; read only for a scan
  // long enough to be timed (substituted lookups scan thousands of one-page
  // relations). The scan's pages, not the relation's: a key range or a hash
  // bucket is a few of them.
  if (kernel && asked == Selection::Auto && !plan.always_qualifies()) {
    const uint32_t pages = uint32_t(std::min<uint64_t>(outlook.pages, rel->npages()));
    const uint64_t seed =
        AutoProbe::times(pages, tpp, prep->auto_memory) ? (now_ns() >> 3) * 0x9E3779B97F4A7C15ull >> 32 : 0;
    probe.emplace(pages, tpp, seed, prep->auto_memory);
  }
  if (kernel)
    runner_.select_kernel(*prep, probe ? probe->next() : asked == Selection::Auto ? Selection::Branch : asked, st);
  int64_t ordinal = 0;
  // Rows go straight into the sink's room: `held` rows written at `at`, room
  // for `cap`; handed over when the next page might not fit (per page when
  // tids go with them, whose buffer holds a page's).
  uint8_t* at = nullptr;
  size_t cap = 0, held = 0;
  auto hand_over = [&] {
    if (held) out.wrote(held, want_tids ? tids.data() : nullptr);
    at = nullptr;  // the room is the sink's again: ask anew
    cap = held = 0;
  };

  // The live tuples of a page a kernel ran: counted here, off the kernel's
  // loop, only for a page with a deleted line (a heap that was never deleted
  // from has none, and the count is the line count).
  auto live_of = [&](const uint8_t* pg) {
    const uint32_t nl = page_nlines(pg);
    uint32_t live = nl;
    if (rel->has_deleted())
      for (uint32_t i = 0; i < nl; ++i) live -= page_line(pg, i) == 0;
    return live;
  };
  // Before a kernel call under auto: the selection the probe wants (generated
  // on first use, counted as prepare); while it times them, the clock at the
  // first call of a block (block_t0, 0 between blocks).
  uint64_t block_t0 = 0;
  auto before_call = [&] {
    if (!probe || !probe->deciding()) return;
    runner_.select_kernel(*prep, probe->next(), st);
    if (probe->timing() && !block_t0) block_t0 = now_ns();
  };
  // What a call of `live` tuples hands the probe: at the call that ends a
  // block, the block's ns from its first call to now, less one clock read;
  // 0 before. A block is one interval, not the sum of its calls timed each:
  // a page kernel call is a few reads of this machine's clock long (50 ns,
  // a read 30), and two reads around every call measured the reads. The
  // sweep's pct_first at 0%, llvm:fused: nobranch 0.91 of branch in
  // statement time; the summed calls read 0.84-1.33 (median 1.00) and auto
  // kept branch in 70-89% of its scans (four processes).
  auto timed_ns = [&](uint64_t live) -> uint64_t {
    if (!block_t0 || !probe->ends_block(live)) return 0;
    const uint64_t ns = now_ns() - block_t0, clock = clock_read_ns();
    block_t0 = 0;
    return ns > clock ? ns - clock : 1;
  };
  // Rows a kernel wrote for `live` tuples: counted; under auto, the probe fed.
  auto kernel_ran = [&](uint64_t live, int64_t n, uint32_t pages, uint64_t ns) {
    ordinal += int64_t(live);
    st.rows_scanned += live;
    st.rows_qualified += uint64_t(n);
    held += size_t(n);
    if (probe && probe->deciding()) {
      probe->ran(prep->kernel_selection(), live, uint64_t(n), ns, pages);
      if (!probe->deciding()) {
        runner_.select_kernel(*prep, probe->chosen(), st);
        probe->remember(&prep->auto_memory);
      }
    }
  };
  // A kernel call on `pg` failed: the tuples before the failing one counted
  // (scanned, and the rows they wrote at `rows`), and the error raised.
  auto kernel_failed = [&](const uint8_t* pg, uint8_t* rows) {
    int64_t ord = ordinal;
    for (int64_t i = 0; i <= ctx.err_slot && i < page_nlines(pg); ++i) ord += page_line(pg, uint32_t(i)) != 0;
    st.rows_scanned += uint64_t(ord - ordinal);
    st.rows_qualified += qualified_before(*prep, pg, rel->page_size(), ctx.err_slot, rows, ctx);
    fail(ord);
  };
  // One page through the kernel, rows at `rows`.
  auto kernel_page = [&](const uint8_t* pg, uint8_t* rows) {
    before_call();
    int64_t n = prep->run_page(pg, rows, &ctx);
    if (n < 0) kernel_failed(pg, rows);
    const uint64_t live = live_of(pg);
    kernel_ran(live, n, 1, timed_ns(live));
  };
  // Kernels whose batches span pages (Prepared::batch_tuples) take several
  // pages a call: enough for one batch. A failing call is run again a page at
  // a time, which finds the failing tuple and counts what came before it
  // exactly as a page kernel does.
  const uint32_t span = kernel && prep->batch_tuples() > tpp
                            ? std::min<uint32_t>(kMaxPagesPerCall, prep->batch_tuples() / std::max<uint32_t>(tpp, 1))
                            : 1;
  std::vector<const uint8_t*>& pending = pagebuf_;
  pending.clear();
  auto flush = [&] {
    // While the room left might not hold the rest's rows, a page at a time,
    // asking for a page's room as page_step does: the result's chunks, and
    // the page where the memory budget stops a statement (its counts), are
    // then those of every other back end. Only the pages that end a chunk.
    size_t first = 0;
    for (; first < pending.size() && cap - held < size_t(tpp) * (pending.size() - first); ++first) {
      ++st.pages_walked;
      if (cap - held < tpp) {
        hand_over();
        at = out.room(tpp, &cap);
      }
      kernel_page(pending[first], at + held * row_len);
    }
    const uint32_t count = uint32_t(pending.size() - first);
    if (count) {
      uint8_t* rows = at + held * row_len;
      before_call();
      int64_t n = prep->run_pages(pending.data() + first, count, rows, &ctx);
      if (n < 0) {
        for (size_t i = first; i < pending.size(); ++i) {  // counted up to the failing page, as a page kernel counts
          ++st.pages_walked;
          kernel_page(pending[i], rows);
          rows = at + held * row_len;
        }
      } else {
        st.pages_walked += count;
        uint64_t live = 0;
        for (size_t i = first; i < pending.size(); ++i) live += live_of(pending[i]);
        kernel_ran(live, n, count, timed_ns(live));
      }
    }
    pending.clear();
  };

  auto page_step = [&](uint32_t page_no) {
    if (cancel_requested()) cancelled();  // page boundary (page_walk.h)
    const uint8_t* pg = rel->page(page_no);
    if (span > 1) {  // walked when its batch runs (flush)
      pending.push_back(pg);
      if (pending.size() == span) flush();
      return true;
    }
    ++st.pages_walked;
    if (cap - held < tpp) {
      hand_over();
      at = out.room(tpp, &cap);
    }
    uint8_t* rows = at + held * row_len;
    if (kernel) {
      kernel_page(pg, rows);
      return true;
    }
    size_t n = 0;
    walk_page(pg, in_len, [&](uint32_t i, const uint8_t* t) {
      ++ordinal;
      ++st.rows_scanned;
      int r = prep->qualify(t, &ctx);
      if (r == 0) return true;
      if (r < 0) fail(ordinal);
      // A tuple whose projection fails is not counted: a failed statement's
      // counts are the same whether its back end ran a page kernel or not.
      if (prep->project(t, rows + n * row_len, &ctx) < 0) fail(ordinal);
      ++st.rows_qualified;
      if (want_tids) tids[n] = Tid{page_no, uint16_t(i)};
      ++n;
      return true;
    });
    held += n;
    if (want_tids) hand_over();
    return true;
  };

  // The steady state of a scan through a page kernel a page per call, once
  // nothing is left to decide (no auto probe deciding): the loop a
  // hand-written scan is, with its counts in locals and the kernel called
  // straight (Prepared::page_kernel) where it is one function. The same
  // pages, calls and counts as page_step's; what it leaves out is page_step's
  // per-page bookkeeping through the lambdas' captures, the probe's checks
  // and a virtual call, which perf put at a sixth of llvm:fused's kernel
  // samples on (b). Measured, (b) on 20,000 PARTS tuples (in cache), median
  // of 2,001 runs, three processes each: llvm:fused 20.2-20.8 -> 16.9-17.1
  // us, gccjit:fused 25.8-26.6 -> 22.6-23.6. At 1M tuples, where memory
  // bounds the scan, the difference is inside the noise. A keyed scan's
  // pages (a key range, a bucket chain) are fewer tuples each on wide PARTS,
  // so the per-page cost weighs more there.
  // `skip`: the pages page_step has run already (each_page's order).
  auto steady = [&](uint32_t skip) {
    Prepared::PageKernel fn = prep->page_kernel();
    uint8_t* room = at;
    size_t room_cap = cap, room_held = held;
    uint64_t live = 0, qualified = 0;
    uint32_t pages = 0;
    auto sync = [&] {  // the locals into the scan's counts, before anything can throw
      st.pages_walked += pages;
      st.rows_scanned += live;
      st.rows_qualified += qualified;
      ordinal += int64_t(live);
      at = room, cap = room_cap, held = room_held;
      pages = 0, live = qualified = 0;
    };
    rel->each_page(bounds, [&](uint32_t page_no) {
      if (skip) {
        --skip;
        return true;
      }
      if (cancel_requested()) {  // page boundary (page_walk.h)
        sync();
        cancelled();
      }
      const uint8_t* pg = rel->page(page_no);
      if (room_cap - room_held < tpp) {
        sync();
        hand_over();
        room = out.room(tpp, &room_cap);
        room_held = 0;
      }
      uint8_t* rows = room + room_held * row_len;
      const int64_t n = fn ? fn(pg, rows, &ctx) : prep->run_page(pg, rows, &ctx);
      ++pages;
      if (n < 0) {
        sync();
        kernel_failed(pg, rows);
      }
      room_held += size_t(n);
      qualified += uint64_t(n);
      live += live_of(pg);
      return true;
    });
    sync();
  };

  if (kernel && span == 1) {
    // page_step while the auto probe decides, the steady loop over the rest
    // (each_page's order both times: the second walk passes over the pages
    // the first ran).
    uint32_t probed = 0;
    if (probe)
      rel->each_page(bounds, [&](uint32_t page_no) {
        if (!probe->deciding()) return false;
        ++probed;
        return page_step(page_no);
      });
    steady(probed);
  } else {
    rel->each_page(bounds, page_step);
  }
  flush();
  hand_over();
  // The plan's tuples under auto, which decide when a short scan is timed.
  if (probe) prep->auto_memory.tuples += st.rows_scanned - scanned_before;
  if (kernel)
    note_selection(std::string(asked == Selection::Auto ? "auto:" : "") + selection_name(prep->kernel_selection()));
}

void Exec::cancelled() const {
  Error e;
  e.kind = ErrKind::Runtime;
  e.code = QK_ERR_CANCELLED;
  e.message = qk_err_message(QK_ERR_CANCELLED);
  e.pos = q_.pos;
  e.src = src_;
  throw RuntimeFailure{std::move(e)};
}

uint64_t Exec::qualified_before(Prepared& prep, const uint8_t* pg, uint32_t page_size, int64_t slot, uint8_t* rows,
                                const qk_ctx& ctx) {
  if (slot <= 0) return 0;
  // The same page cut short before the failing line: every tuple on it
  // evaluated without an error the first time, so it does again.
  std::vector<uint8_t> cut(pg, pg + page_size);
  store<uint16_t>(cut.data() + kPageOffNLines, uint16_t(std::min<int64_t>(slot, page_nlines(pg))));
  qk_ctx c = ctx;
  c.err_code = 0;
  c.err_pos = 0;
  c.err_slot = 0;
  int64_t n = prep.recount_page(cut.data(), rows, &c);
  return n > 0 ? uint64_t(n) : 0;
}

}  // namespace quelkit::harness
