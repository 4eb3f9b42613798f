// Running a vectorized program: the batch's storage, the fused page kernel
// (batches of live tuples spanning the pages of a call, qualification then
// projection), the
// tuple-at-a-time entry points (a batch of one), and the re-run of a batch in
// which some tuple flagged an error.
#include <algorithm>
#include <cstring>

#include "storage/page.h"
#include "storage/page_walk.h"
#include "vector/program.h"

namespace quelkit::vector {

Runner::Runner(Program p) : p_(std::move(p)) {
  cap_ = p_.opt.batch;
  tuples_.assign(cap_, nullptr);
  const size_t slots = size_t(p_.nvec) * cap_;
  vec_store_.assign(slots ? slots : 1, 0);
  sels_.assign(p_.nsel, Sel{});
  sel_store_.assign(size_t(p_.nsel) * cap_, 0);
  for (size_t s = 0; s < sels_.size(); ++s) sels_[s].buf = sel_store_.data() + s * cap_;
  scratch_.assign(size_t(p_.scratch_bytes) + 1, 0);
  err_code_.assign(cap_, 0);
  err_at_.assign(cap_, 0);

  b_.tuple = tuples_.data();
  b_.vecs = reinterpret_cast<uint8_t*>(vec_store_.data());
  b_.vec_bytes = size_t(cap_) * 8;
  b_.scal = p_.scalars.data();
  b_.sels = sels_.data();
  b_.scratch = scratch_.data();
  b_.err_code = err_code_.data();
  b_.err_at = err_at_.data();
  b_.row_len = p_.row_len;
  acc_rows_.assign(size_t(cap_) * p_.row_len + 1, 0);
  groups_.assign(cap_, nullptr);
  b_.group = groups_.data();
}

// Instructions [from, to) over the batch as it stands.
void Runner::run(uint32_t from, uint32_t to) {
  const Instr* in = p_.code.data() + from;
  const Instr* end = p_.code.data() + to;
  for (; in != end; ++in) in->fn(*in, b_);
}

void Runner::clear_errors() {
  std::memset(err_code_.data(), 0, err_code_.size());
  b_.flagged = false;
}

// The error the batch of one flagged, raised into ctx.
int Runner::raise_first(qk_ctx* ctx) {
  uint32_t i = 0;
  while (i < b_.n && !b_.err_code[i]) ++i;
  if (i == b_.n) i = 0;  // not reached: flagged means some tuple has a code
  int code = b_.err_code[i];
  uint64_t pos = p_.code[b_.err_at[i]].pos;
  clear_errors();
  return qk_raise(ctx, code, pos);
}

int Runner::qualify(const uint8_t* tuple, qk_ctx* ctx) {
  if (b_.flagged) clear_errors();
  b_.n = 1;
  b_.tuple[0] = tuple;
  b_.params = ctx->params;
  sels_[kAllSel] = Sel{nullptr, 1, true, sels_[kAllSel].buf};
  run(0, p_.proj_start);
  if (b_.flagged) [[unlikely]]
    return raise_first(ctx);
  return sels_[p_.qual_sel].n != 0;
}

int Runner::project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) {
  if (b_.flagged) clear_errors();
  b_.n = 1;
  b_.tuple[0] = tuple;
  b_.params = ctx->params;
  b_.rows = row;
  Sel one{nullptr, 1, true, sels_[p_.qual_sel].buf};
  sels_[kAllSel] = Sel{nullptr, 1, true, sels_[kAllSel].buf};
  sels_[p_.qual_sel] = one;  // the caller's tuple qualifies
  run(0, p_.qual_start);
  run(p_.proj_start, uint32_t(p_.code.size()));
  if (b_.flagged) [[unlikely]]
    return raise_first(ctx);
  return 0;
}

// A batch some tuple of which flagged an error, run again tuple at a time
// from its first tuple (the live tuples of `page` from line `from` on), as
// tuple-at-a-time evaluation runs: qualify, then project if it qualifies. The
// first error met is raised, with its line.
int64_t Runner::rerun(const uint8_t* page, uint32_t from, uint32_t n, uint8_t* rows, qk_ctx* ctx) {
  // What the batch flagged first, should the re-run (against every argument
  // of vector/program.h) raise nothing.
  uint32_t first = 0;
  while (first + 1 < n && !b_.err_code[first]) ++first;
  const int code = b_.err_code[first] ? int(b_.err_code[first]) : int(QK_ERR_BOUNDS);
  const uint64_t pos = p_.code[b_.err_at[first]].pos;
  uint32_t first_line = from;
  for (uint32_t line = from, k = 0; k < n; ++line) {
    uint16_t off = harness::page_line(page, line);
    if (!off) continue;
    if (k == first) first_line = line;
    ++k;
    int q = qualify(page + off, ctx);
    if (q == 0) continue;
    if (q > 0 && project(page + off, rows, ctx) == 0) continue;
    ctx->err_slot = line;
    return -1;
  }
  ctx->err_slot = first_line;
  return qk_raise(ctx, code, pos);
}

int64_t Runner::run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) { return walk_page(page, rows, ctx, false); }

// The page kernel's batches. accumulate: each batch's rows are written at
// `rows` (acc_rows_) and accumulated (acc_code_) before the next is gathered.
int64_t Runner::walk_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx, bool accumulate) {
  // The page walk of storage/page_walk.h, in batches: the next page whole,
  // then the line table in order.
  if (b_.flagged) clear_errors();
  const uint32_t nl = harness::page_nlines(page);
  harness::prefetch_page_ahead(page, p_.in_len);
  const uint32_t proj_end = uint32_t(p_.code.size());
  const uint32_t cap = cap_;
  const uint8_t** const tuple = tuples_.data();
  Sel& all = sels_[kAllSel];
  b_.params = ctx->params;
  int64_t nrows = 0;
  uint32_t line = 0;
  while (line < nl) {
    // The next batch: up to cap live tuples, in line order (a deleted line,
    // offset 0, is overwritten by the next one).
    const uint32_t from = line;
    uint32_t n = 0;
    if (nl - line <= cap) {
      for (; line < nl; ++line) {
        uint16_t off = harness::page_line(page, line);
        tuple[n] = page + off;
        n += off != 0;
      }
    } else {
      for (; line < nl && n < cap; ++line) {
        uint16_t off = harness::page_line(page, line);
        tuple[n] = page + off;
        n += off != 0;
      }
    }
    if (n == 0) break;
    b_.n = n;
    all.n = n;
    all.full = true;
    run(0, p_.proj_start);
    uint8_t* const at = accumulate ? rows : rows + nrows * p_.row_len;
    if (b_.flagged) [[unlikely]]
      return rerun(page, from, n, at, ctx);
    const uint32_t m = sels_[p_.qual_sel].n;
    if (m == 0) continue;
    b_.rows = at;
    run(p_.proj_start, proj_end);
    if (b_.flagged) [[unlikely]]
      return rerun(page, from, n, at, ctx);
    if (accumulate)
      for (const Instr& in : acc_code_) in.fn(in, b_);
    nrows += m;
  }
  return nrows;
}

// A block's aggregate as the key of the primitives made for it.
static uint64_t agg_key(const qk_agg& g) {
  return uint64_t(g.fn) | uint64_t(g.is_unique) << 8 | uint64_t(g.int_sum) << 9 | uint64_t(g.arg.kind) << 16 |
         uint64_t(g.arg.offset) << 32;
}

int64_t Runner::run_accumulate(const uint8_t* page, qk_accum* acc, qk_ctx* ctx) {
  // The aggregate primitives for this block's aggregates: made again only
  // when a block of other functions or arguments comes (its key differs).
  const qk_agg* protos = qk_accum_protos(acc);
  bool same = acc_key_.size() == 1 + size_t(acc->naggs) && acc_key_[0] == acc->nby;
  for (uint32_t i = 0; same && i < acc->naggs; ++i) same = acc_key_[1 + i] == agg_key(protos[i]);
  if (!same) {
    acc_key_.assign(1, acc->nby);
    for (uint32_t i = 0; i < acc->naggs; ++i) acc_key_.push_back(agg_key(protos[i]));
    acc_code_ = lower_accumulate(acc, p_.qual_sel);
  }
  b_.acc = acc;
  return walk_page(page, acc_rows_.data(), ctx, true);
}

int64_t Runner::run_pages(const uint8_t* const* pages, uint32_t npages, uint8_t* rows, qk_ctx* ctx) {
  // Batches across pages: the live tuples of the pages in scan order, `cap_`
  // at a time, each page walked as storage/page_walk.h says (the next page
  // prefetched whole as a page is started, its line table in order). A
  // flagged batch is not re-run here: the harness runs these pages again one
  // at a time through run_page, whose re-run finds the failing tuple.
  if (b_.flagged) clear_errors();
  const uint32_t proj_end = uint32_t(p_.code.size());
  const uint8_t** const tuple = tuples_.data();
  Sel& all = sels_[kAllSel];
  b_.params = ctx->params;
  int64_t nrows = 0;
  uint32_t n = 0;
  auto run_batch = [&]() -> bool {
    b_.n = n;
    all.n = n;
    all.full = true;
    run(0, p_.proj_start);
    if (b_.flagged) [[unlikely]]
      return false;
    const uint32_t m = sels_[p_.qual_sel].n;
    if (m) {
      b_.rows = rows + nrows * p_.row_len;
      run(p_.proj_start, proj_end);
      if (b_.flagged) [[unlikely]]
        return false;
      nrows += m;
    }
    n = 0;
    return true;
  };
  for (uint32_t pi = 0; pi < npages; ++pi) {
    const uint8_t* page = pages[pi];
    const uint32_t nl = harness::page_nlines(page);
    harness::prefetch_page_ahead(page, p_.in_len);
    for (uint32_t line = 0; line < nl; ++line) {
      uint16_t off = harness::page_line(page, line);
      tuple[n] = page + off;
      n += off != 0;
      if (n == cap_ && !run_batch()) return -1;
    }
  }
  if (n && !run_batch()) return -1;
  return nrows;
}

}  // namespace quelkit::vector
