// The scan of one one-variable plan (exec.h): its pages by access path, the
// page walk of page_walk.h through the plan's entry points (a back end's fused
// kernel a page per call, or a batch's pages per call where its batches span
// pages, or the tuple-at-a-time loop), the cancellation check at each page
// boundary, rows projected straight into the sink, and a failing tuple's
// counts and error.
#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>

#include "engine/exec.h"
#include "engine/measure.h"
#include "storage/index.h"
#include "storage/page_walk.h"

namespace quelkit::harness {

// Tells a back end that adapts mid-scan (AdaptHooks) that a scan is over,
// once: at its end, before a failed page is recounted (so that the recount is
// no page of the scan), or as the scan unwinds.
struct ScanEnd {
  AdaptHooks* hooks;
  Prepared& prep;
  ExecStats& st;
  TierReport& r;
  uint64_t pages_before;
  bool last;
  int unwinding = std::uncaught_exceptions();
  bool done = false;
  void end(bool failed) {
    if (done || !hooks) return;
    done = true;
    r.clear();
    hooks->scan_ends(prep, last || failed, &r);
    st.add_tiers(r, pages_before);
  }
  ~ScanEnd() { end(std::uncaught_exceptions() > unwinding); }
};

// One scan of a plan over the pages its access path gives, from setup to the
// last row handed to the sink: the state the page loop, the kernel calls, the
// auto probe and the sink's room share. Rows go straight into the sink's room:
// `held_` rows written at `at_`, room for `cap_`; handed over when the next
// page might not fit (per page when tids go with them, whose buffer holds a
// page's).
class Exec::Scan {
 public:
  Scan(Exec& ex, const Plan& plan, HeldPlan& held, Relation& rel, const KeyBounds& bounds, uint64_t scan_pages,
       qk_ctx& ctx, Sink& out, bool want_tids, ScanEnd& end);
  // Walks the pages, then hands the last rows over and says which selection ran.
  void run();
  // The scanned relation holds tuples fetched through an index, tuple k
  // (page k / tpp, line k % tpp) the base's tuple map[k]: the tids an update
  // gets are the base's.
  void map_tids(const std::vector<Tid>* map) { tid_map_ = map; }

 private:
  [[noreturn]] void fail(int64_t ordinal) const { ex_.failed(plan_, prepared_at_, &rel_, ctx_, ordinal); }
  void hand_over();
  // Room for a page's rows (asked for anew when what is left might not hold
  // them); where the next row goes.
  uint8_t* page_room();
  uint32_t live_of(const uint8_t* pg) const;
  void start_probe(uint64_t scan_pages);
  void select(Selection s);
  void before_call();
  uint64_t timed_ns(uint64_t live);
  void kernel_ran(uint64_t live, int64_t n, uint32_t pages, uint64_t ns);
  void counted(uint64_t live, int64_t n, uint32_t pages, uint64_t ns);
  [[noreturn]] void kernel_failed(const uint8_t* pg, uint8_t* rows);
  void kernel_page(const uint8_t* pg, uint8_t* rows);
  void flush();
  bool page_step(uint32_t page_no);
  void tuple_page(uint32_t page_no, const uint8_t* pg, uint8_t* rows);
  bool accumulate_step(uint32_t page_no);
  template <bool Accumulate>
  void probed_then_steady();
  template <bool Accumulate>
  void steady(uint32_t skip);

  Exec& ex_;
  ExecStats& st_;
  const Plan& plan_;
  Prepared& prep_;
  AutoMemory& memory_;
  ScanEnd& end_;
  Relation& rel_;
  const KeyBounds& bounds_;
  qk_ctx& ctx_;
  const std::vector<uint64_t>* prepared_at_;
  Sink& out_;
  const bool want_tids_;
  const uint32_t row_len_, tpp_, in_len_;
  // The entries the scan calls: the page kernel's in the selection running
  // now, or the tuple functions where it has no kernel (kernel_ false).
  Entries e_;
  bool kernel_ = false;
  // An aggregate's inner query that its back end accumulates (Use::Aggregate):
  // the block e_.accumulate adds each page's qualifying tuples to, no rows.
  qk_accum* acc_ = nullptr;
  // --selection (selection.h): branch or nobranch as asked; auto lets its
  // probe pick the selection of each kernel call until it has decided.
  const Selection asked_;
  std::optional<AutoProbe> probe_;
  const uint64_t scanned_before_;
  // Pages a kernel call takes: 1, or for a kernel whose batches span pages
  // (Entries::pages) enough for one batch, queued in pending_.
  uint32_t span_ = 1;
  std::vector<Tid>& tids_;  // reused across executions: (f)-(i) run thousands of small substituted scans
  std::vector<const uint8_t*>& pending_;
  const std::vector<Tid>* tid_map_ = nullptr;
  int64_t ordinal_ = 0;
  uint8_t* at_ = nullptr;
  size_t cap_ = 0, held_ = 0;
  // While the auto probe times kernel calls: the clock at the first call of
  // a block, 0 between blocks.
  uint64_t block_t0_ = 0;
};

// Runs one plan over the pages of its access path, projecting qualifying rows
// straight into the sink's room.
void Exec::execute(const Plan& plan, Relation* rel, const std::string& cache_key, const AccessSpec& acc,
                   std::vector<uint8_t>& params, Sink& out, bool want_tids) {
  ExecStats& st = res_.stats;
  // The plan's literals into the block, after the slots substitution fills
  // (plan.h): before the prepare (a back end may read the block there) and
  // before the key bounds are resolved from it.
  if (!plan.literal_block.empty()) {
    if (params.size() < plan.params.tuple_len) params.resize(plan.params.tuple_len);
    std::memcpy(params.data() + plan.literal_at, plan.literal_block.data(), plan.literal_block.size());
  }
  HeldPlan scratch;
  HeldPlan& held = *runner_.get(plan, cache_key, params.empty() ? nullptr : params.data(), scratch, st);
  Prepared* prep = held.prepared.get();
  const std::vector<uint64_t>* prepared_at = held.cached ? &held.positions : nullptr;
  if (scratch_.size() < plan.scratch_size + 1) scratch_.resize(plan.scratch_size + 1);
  qk_ctx ctx{};
  ctx.params = params.data();
  ctx.scratch = scratch_.data();

  if (cancel_requested()) cancelled();
  if (!rel) {  // no variable left: evaluate once, on no tuple (none scanned, none qualified)
    const Entries e = Runner::entries(*prep, Use::Tuple, Selection::Branch, st);
    ctx.plan = e.state;
    static const uint8_t empty[8] = {};
    int r = e.qualify(empty, &ctx);
    if (r < 0) failed(plan, prepared_at, nullptr, ctx, 1);
    if (r) {
      size_t cap = 0;
      uint8_t* row = out.room(1, &cap);
      if (e.project(empty, row, &ctx) < 0) failed(plan, prepared_at, nullptr, ctx, 1);
      out.wrote(1, nullptr);
    }
    return;
  }

  // A back end that adapts mid-scan (adaptive/) hears what lies ahead, and
  // says afterwards what ran (also when the scan fails: then nothing more of
  // this plan is coming).
  KeyBounds bounds = resolve_bounds(acc, params);
  // Through a secondary index: the base tuples its entries within the
  // bounds name, fetched in tid order into a heap the scan then walks (the
  // index gone, or a bound that raised: the whole relation, as a full scan).
  std::unique_ptr<Relation> fetched;
  std::vector<Tid>& fetched_tids = fetchbuf_;
  fetched_tids.clear();
  if (!acc.index.empty()) {
    Relation* idx = bounds.kind == KeyBounds::All ? nullptr : cat_.find(acc.index);
    if (idx && idx->notes().index_of == rel->name()) {
      fetch_through(*rel, *idx, bounds, fetched_tids, st);
      fetched = std::make_unique<Relation>(rel->name(), rel->schema(), rel->page_size());
      // The entries name live tuples (the index was rebuilt since the last
      // change), so each is at its slot; every cache line of a tuple is
      // prefetched a few tuples ahead, so that the misses of random base
      // pages overlap.
      constexpr size_t kAhead = 8;
      const size_t n = fetched_tids.size();
      const uint32_t len = rel->tuple_len();
      auto prefetch = [&](size_t i) {
        const uint8_t* t = rel->slot(fetched_tids[i]);
        for (uint32_t o = 0; o < len; o += 64) __builtin_prefetch(t + o);
        __builtin_prefetch(t + len - 1);
      };
      for (size_t i = 0; i < std::min(n, kAhead); ++i) prefetch(i);
      fetched->reserve_tuples(n);
      fetched->insert_all(n, [&](size_t i) {
        if (i + kAhead < n) prefetch(i + kAhead);
        return rel->slot(fetched_tids[i]);
      });
      rel = fetched.get();
    }
    bounds = KeyBounds{};
  }
  ScanOutlook outlook;
  outlook.pages = rel->pages_within(bounds);
  outlook.tuples = rel->ntuples();
  outlook.tuples_per_page = rel->tuples_per_page();
  outlook.runs_after = runner_.reuses() ? runs_after() : 0;
  AdaptHooks* hooks = runner_.hooks();
  if (hooks) hooks->scan_begins(*prep, outlook);
  ScanEnd scan_end{hooks, *prep, st, tierbuf_, st.pages_walked, outlook.runs_after == 0};

  Scan scan(*this, plan, held, *rel, bounds, outlook.pages, ctx, out, want_tids, scan_end);
  if (fetched) scan.map_tids(&fetched_tids);
  scan.run();
}

// An index's entries within the bounds: the pages of its key span, each
// entry's key checked against the bounds (a span's first and last pages hold
// others), the tids sorted so that base pages are fetched in page order,
// each once however many of its tuples qualify.
void Exec::fetch_through(const Relation& base, const Relation& idx, const KeyBounds& b, std::vector<Tid>& tids,
                         ExecStats& st) {
  const Attribute& tidp = idx.schema().attrs.back();
  fetchkeys_.clear();
  idx.each_page(b, [&](uint32_t p) {
    if (cancel_requested()) cancelled();  // page boundary (page_walk.h)
    ++st.index_pages;
    walk_page(idx.page(p), idx.tuple_len(), [&](uint32_t, const uint8_t* t) {
      if (key_within(idx, idx.key_of(t), b)) fetchkeys_.push_back(uint32_t(load<int32_t>(t + tidp.offset)));
      return true;
    });
    return true;
  });
  // tidp orders tuples as (page, line) does: sorted by a radix sort of its
  // bytes (the entries' order is the key's, so the tids come at random).
  std::vector<uint32_t>& keys = fetchkeys_;
  std::vector<uint32_t>& spare = fetchspare_;
  spare.resize(keys.size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {};
    for (const uint32_t k : keys) ++count[((k >> shift) & 0xff) + 1];
    if (count[((keys.empty() ? 0 : keys[0]) >> shift & 0xff) + 1] == keys.size()) continue;  // one value: in order
    for (int i = 0; i < 256; ++i) count[i + 1] += count[i];
    for (const uint32_t k : keys) spare[count[(k >> shift) & 0xff]++] = k;
    keys.swap(spare);
  }
  tids.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) tids[i] = tid_of(base, int32_t(keys[i]));
  st.index_fetched += tids.size();
}

void Exec::failed(const Plan& plan, const std::vector<uint64_t>* prepared_at, const Relation* rel, const qk_ctx& ctx,
                  int64_t ordinal) const {
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
}

// The kernel, or the tuple functions, made ready; under auto the probe set up
// and the first selection chosen; the span of a kernel call.
Exec::Scan::Scan(Exec& ex, const Plan& plan, HeldPlan& held, Relation& rel, const KeyBounds& bounds,
                 uint64_t scan_pages, qk_ctx& ctx, Sink& out, bool want_tids, ScanEnd& end)
    : ex_(ex),
      st_(ex.res_.stats),
      plan_(plan),
      prep_(*held.prepared),
      memory_(held.auto_memory),
      end_(end),
      rel_(rel),
      bounds_(bounds),
      ctx_(ctx),
      prepared_at_(held.cached ? &held.positions : nullptr),
      out_(out),
      want_tids_(want_tids),
      row_len_(plan.out.tuple_len),
      tpp_(rel.tuples_per_page()),
      in_len_(rel.tuple_len()),
      asked_(ex.runner_.prepare_options().selection),
      scanned_before_(ex.res_.stats.rows_scanned),
      tids_(ex.tidbuf_),
      pending_(ex.pagebuf_) {
  if (want_tids_ && tids_.size() < tpp_) tids_.resize(tpp_);
  // The kernel it has now (Selection::Auto generates nothing), if the scan
  // may run one; else the tuple functions.
  // An aggregate's rows go into its accumulator: through the back end's
  // accumulating kernel where it has one for this plan (under auto, its
  // probe picks branch or nobranch as for a page kernel), else projected as
  // any rows are and accumulated by the sink.
  qk_accum* const acc = out.accumulator();
  if (acc && ex.runner_.options().use_kernel && !want_tids_ && ex.runner_.backend().accumulates(plan)) {
    e_ = Runner::entries(prep_, Use::Aggregate, asked_ == Selection::NoBranch ? asked_ : Selection::Branch, st_);
    if (e_.accumulate) {
      acc_ = acc;
      ctx_.plan = e_.state;
      if (asked_ == Selection::Auto && !plan.always_qualifies()) start_probe(scan_pages);
      pending_.clear();
      return;
    }
  }
  if (ex.runner_.options().use_kernel && !want_tids_) {
    e_ = Runner::entries(prep_, Use::Page, Selection::Auto, st_);
    kernel_ = e_.page != nullptr;
  }
  if (!kernel_) e_ = Runner::entries(prep_, Use::Tuple, Selection::Branch, st_);
  ctx_.plan = e_.state;
  // A plan whose every tuple qualifies has nothing to select on: under auto
  // it runs branch (the one loop both variants are) without a probe. The
  // probe's seed (where its timed pages begin): the clock's low bits, mixed,
  // so the same statement run again times other pages; read only for a scan
  // long enough to be timed (substituted lookups scan thousands of one-page
  // relations). The scan's pages, not the relation's: a key range or a hash
  // bucket is a few of them.
  if (kernel_ && asked_ == Selection::Auto && !plan.always_qualifies()) start_probe(scan_pages);
  if (kernel_) select(probe_ ? probe_->next() : asked_ == Selection::Auto ? Selection::Branch : asked_);
  // A failing call of several pages is run again a page at a time, which
  // finds the failing tuple and counts what came before it exactly as a page
  // kernel does.
  if (kernel_ && e_.pages && e_.batch_tuples > tpp_)
    span_ = std::min<uint32_t>(kMaxPagesPerCall, e_.batch_tuples / std::max<uint32_t>(tpp_, 1));
  pending_.clear();
}

// The page step (page_step, accumulate_step) while the auto probe decides,
// then the steady loop over the rest (each_page's order both times: the
// second walk passes over the pages the first ran).
template <bool Accumulate>
void Exec::Scan::probed_then_steady() {
  uint32_t probed = 0;
  if (probe_)
    rel_.each_page(bounds_, [&](uint32_t page_no) {
      if (!probe_->deciding()) return false;
      ++probed;
      return Accumulate ? accumulate_step(page_no) : page_step(page_no);
    });
  steady<Accumulate>(probed);
}

void Exec::Scan::run() {
  if (acc_) {
    probed_then_steady<true>();
    if (probe_) memory_.tuples += st_.rows_scanned - scanned_before_;
    ex_.note_selection(std::string(asked_ == Selection::Auto ? "auto:" : "") + selection_name(e_.selection));
    ex_.note_accumulated(ex_.runner_.label());
    return;
  }
  if (out_.accumulator()) ex_.note_accumulated("harness");
  if (kernel_ && span_ == 1)
    probed_then_steady<false>();
  else
    rel_.each_page(bounds_, [this](uint32_t page_no) { return page_step(page_no); });
  flush();
  hand_over();
  // The plan's tuples under auto, which decide when a short scan is timed.
  if (probe_) memory_.tuples += st_.rows_scanned - scanned_before_;
  if (kernel_) ex_.note_selection(std::string(asked_ == Selection::Auto ? "auto:" : "") + selection_name(e_.selection));
}

void Exec::Scan::hand_over() {
  if (held_) out_.wrote(held_, want_tids_ ? tids_.data() : nullptr);
  at_ = nullptr;  // the room is the sink's again: ask anew
  cap_ = held_ = 0;
}

uint8_t* Exec::Scan::page_room() {
  if (cap_ - held_ < tpp_) {
    hand_over();
    at_ = out_.room(tpp_, &cap_);
  }
  return at_ + held_ * row_len_;
}

// The live tuples of a page a kernel ran: counted here, off the kernel's
// loop, only for a page with a deleted line (a heap that was never deleted
// from has none, and the count is the line count).
uint32_t Exec::Scan::live_of(const uint8_t* pg) const {
  const uint32_t nl = page_nlines(pg);
  uint32_t live = nl;
  if (rel_.has_deleted())
    for (uint32_t i = 0; i < nl; ++i) live -= page_line(pg, i) == 0;
  return live;
}

// The page kernel in selection s, asked of the plan when it is not the one
// running (a variant not generated yet is generated then, counted as prepare).
// The auto probe of a scan of at most scan_pages pages.
void Exec::Scan::start_probe(uint64_t scan_pages) {
  const uint32_t pages = uint32_t(std::min<uint64_t>(scan_pages, rel_.npages()));
  const uint64_t seed = AutoProbe::times(pages, tpp_, memory_) ? (now_ns() >> 3) * 0x9E3779B97F4A7C15ull >> 32 : 0;
  probe_.emplace(pages, tpp_, seed, memory_);
}

void Exec::Scan::select(Selection s) {
  if (e_.selection == s) return;
  e_ = Runner::entries(prep_, acc_ ? Use::Aggregate : Use::Page, s, st_);
  ctx_.plan = e_.state;
}

// Before a kernel call under auto: the selection the probe wants (generated
// on first use, counted as prepare); while it times them, the clock at the
// first call of a block.
void Exec::Scan::before_call() {
  if (!probe_ || !probe_->deciding()) return;
  select(probe_->next());
  if (probe_->timing() && !block_t0_) block_t0_ = now_ns();
}

// What a call of `live` tuples hands the probe: at the call that ends a
// block, the block's ns from its first call to now, less one clock read;
// 0 before. A block is one interval, not the sum of its calls timed each:
// a page kernel call is only a few clock reads long, and two reads around
// every call measured the reads (docs/DESIGN.md, Measurements).
uint64_t Exec::Scan::timed_ns(uint64_t live) {
  if (!block_t0_ || !probe_->ends_block(live)) return 0;
  const uint64_t ns = now_ns() - block_t0_, clock = clock_read_ns();
  block_t0_ = 0;
  return ns > clock ? ns - clock : 1;
}

// Rows a kernel wrote for `live` tuples: counted; under auto, the probe fed.
void Exec::Scan::kernel_ran(uint64_t live, int64_t n, uint32_t pages, uint64_t ns) {
  held_ += size_t(n);
  counted(live, n, pages, ns);
}

// A kernel call's tuples counted (`live` walked, n qualified) and, while the
// auto probe decides, handed to it.
void Exec::Scan::counted(uint64_t live, int64_t n, uint32_t pages, uint64_t ns) {
  ordinal_ += int64_t(live);
  st_.rows_scanned += live;
  st_.rows_qualified += uint64_t(n);
  if (probe_ && probe_->deciding()) {
    probe_->ran(e_.selection, live, uint64_t(n), ns, pages);
    if (!probe_->deciding()) {
      select(probe_->chosen());
      probe_->remember(&memory_);
    }
  }
}

// A kernel call on `pg` failed: the tuples before the failing one counted
// (scanned, and the rows they wrote at `rows`), and the error raised. The
// scan is over before the page is recounted.
void Exec::Scan::kernel_failed(const uint8_t* pg, uint8_t* rows) {
  int64_t ord = ordinal_;
  for (int64_t i = 0; i <= ctx_.err_slot && i < page_nlines(pg); ++i) ord += page_line(pg, uint32_t(i)) != 0;
  st_.rows_scanned += uint64_t(ord - ordinal_);
  end_.end(true);
  st_.rows_qualified += qualified_before(e_, pg, rel_.page_size(), ctx_.err_slot, rows, ctx_, acc_);
  fail(ord);
}

// One page through the kernel, rows at `rows`.
void Exec::Scan::kernel_page(const uint8_t* pg, uint8_t* rows) {
  before_call();
  int64_t n = e_.page(pg, rows, &ctx_);
  if (n < 0) kernel_failed(pg, rows);
  const uint64_t live = live_of(pg);
  kernel_ran(live, n, 1, timed_ns(live));
}

// The pages queued for one call of a kernel whose batches span pages.
void Exec::Scan::flush() {
  // While the room left might not hold the rest's rows, a page at a time,
  // asking for a page's room as page_step does: the result's chunks, and
  // the page where the memory budget stops a statement (its counts), are
  // then those of every other back end. Only the pages that end a chunk.
  size_t first = 0;
  for (; first < pending_.size() && cap_ - held_ < size_t(tpp_) * (pending_.size() - first); ++first) {
    ++st_.pages_walked;
    kernel_page(pending_[first], page_room());
  }
  const uint32_t count = uint32_t(pending_.size() - first);
  if (count) {
    uint8_t* rows = at_ + held_ * row_len_;
    before_call();
    int64_t n = e_.pages(pending_.data() + first, count, rows, &ctx_);
    if (n < 0) {
      for (size_t i = first; i < pending_.size(); ++i) {  // counted up to the failing page, as a page kernel counts
        ++st_.pages_walked;
        kernel_page(pending_[i], rows);
        rows = at_ + held_ * row_len_;
      }
    } else {
      st_.pages_walked += count;
      uint64_t live = 0;
      for (size_t i = first; i < pending_.size(); ++i) live += live_of(pending_[i]);
      kernel_ran(live, n, count, timed_ns(live));
    }
  }
  pending_.clear();
}

// One page of the walk: queued for a batch that spans pages, run through the
// kernel, or evaluated a tuple at a time.
bool Exec::Scan::page_step(uint32_t page_no) {
  if (cancel_requested()) ex_.cancelled();  // page boundary (page_walk.h)
  const uint8_t* pg = rel_.page(page_no);
  if (span_ > 1) {  // walked when its batch runs (flush)
    pending_.push_back(pg);
    if (pending_.size() == span_) flush();
    return true;
  }
  ++st_.pages_walked;
  uint8_t* rows = page_room();
  if (kernel_)
    kernel_page(pg, rows);
  else
    tuple_page(page_no, pg, rows);
  return true;
}

// One page through the back end's accumulating kernel: its qualifying tuples
// accumulated, counted as a page kernel's rows are; a failing tuple found,
// counted and raised as kernel_failed does.
bool Exec::Scan::accumulate_step(uint32_t page_no) {
  if (cancel_requested()) ex_.cancelled();  // page boundary (page_walk.h)
  const uint8_t* pg = rel_.page(page_no);
  ++st_.pages_walked;
  before_call();
  const int64_t n = e_.accumulate(pg, acc_, &ctx_);
  if (n < 0) kernel_failed(pg, nullptr);
  const uint64_t live = live_of(pg);
  counted(live, n, 1, timed_ns(live));
  return true;
}

// The tuple-at-a-time loop over one page: qualify, then project into `rows`.
void Exec::Scan::tuple_page(uint32_t page_no, const uint8_t* pg, uint8_t* rows) {
  size_t n = 0;
  walk_page(pg, in_len_, [&](uint32_t i, const uint8_t* t) {
    ++ordinal_;
    ++st_.rows_scanned;
    int r = e_.qualify(t, &ctx_);
    if (r == 0) return true;
    if (r < 0) fail(ordinal_);
    // A tuple whose projection fails is not counted: a failed statement's
    // counts are the same whether its back end ran a page kernel or not.
    if (e_.project(t, rows + n * row_len_, &ctx_) < 0) fail(ordinal_);
    ++st_.rows_qualified;
    if (want_tids_) tids_[n] = tid_map_ ? (*tid_map_)[size_t(page_no) * tpp_ + i] : Tid{page_no, uint16_t(i)};
    ++n;
    return true;
  });
  held_ += n;
  if (want_tids_) hand_over();
}

// The steady state of a scan through a page kernel (or an accumulating
// one: Accumulate) a page per call, once nothing is left to decide (no auto
// probe deciding): the loop a hand-written scan is, with its counts in
// locals and the kernel's entry called straight. The same pages, calls and
// counts as page_step's (accumulate_step's); what it leaves out is their
// per-page bookkeeping through the scan's members and the probe's checks,
// which showed in the kernel's profile on (b) and in min+max's
// (docs/DESIGN.md, Measurements). A keyed scan's pages (a key range, a
// bucket chain) hold few tuples each on wide PARTS, so the per-page cost
// weighs more there.
// `skip`: the pages the step has run already (each_page's order).
template <bool Accumulate>
void Exec::Scan::steady(uint32_t skip) {
  const PageFn fn = e_.page;
  const AccumulateFn acc_fn = e_.accumulate;
  qk_accum* const acc = acc_;
  // The loop's constants in locals: the kernel call could write any member.
  const uint32_t tpp = tpp_, row_len = row_len_;
  qk_ctx* const ctx = &ctx_;
  uint8_t* room = at_;
  size_t room_cap = cap_, room_held = held_;
  uint64_t live = 0, qualified = 0;
  uint32_t pages = 0;
  auto sync = [&] {  // the locals into the scan's counts, before anything can throw
    st_.pages_walked += pages;
    st_.rows_scanned += live;
    st_.rows_qualified += qualified;
    ordinal_ += int64_t(live);
    if constexpr (!Accumulate) at_ = room, cap_ = room_cap, held_ = room_held;
    pages = 0, live = qualified = 0;
  };
  rel_.each_page(bounds_, [&](uint32_t page_no) {
    if (skip) {
      --skip;
      return true;
    }
    if (cancel_requested()) {  // page boundary (page_walk.h)
      sync();
      ex_.cancelled();
    }
    const uint8_t* pg = rel_.page(page_no);
    uint8_t* rows = nullptr;
    int64_t n;
    if constexpr (Accumulate) {
      n = acc_fn(pg, acc, ctx);
    } else {
      if (room_cap - room_held < tpp) {
        sync();
        hand_over();
        room = out_.room(tpp, &room_cap);
        room_held = 0;
      }
      rows = room + room_held * row_len;
      n = fn(pg, rows, ctx);
    }
    ++pages;
    if (n < 0) {
      sync();
      kernel_failed(pg, rows);
    }
    if constexpr (!Accumulate) room_held += size_t(n);
    qualified += uint64_t(n);
    live += live_of(pg);
    return true;
  });
  sync();
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

uint64_t Exec::qualified_before(const Entries& e, const uint8_t* pg, uint32_t page_size, int64_t slot,
                                uint8_t* rows, const qk_ctx& ctx, qk_accum* acc) {
  if (slot <= 0) return 0;
  // The same page cut short before the failing line: every tuple on it
  // evaluated without an error the first time, so it does again.
  std::vector<uint8_t> cut(pg, pg + page_size);
  store<uint16_t>(cut.data() + kPageOffNLines, uint16_t(std::min<int64_t>(slot, page_nlines(pg))));
  qk_ctx c = ctx;
  c.err_code = 0;
  c.err_pos = 0;
  c.err_slot = 0;
  int64_t n = acc ? e.accumulate(cut.data(), acc, &c) : e.page(cut.data(), rows, &c);
  return n > 0 ? uint64_t(n) : 0;
}

}  // namespace quelkit::harness
