/* Aggregate accumulation in the runtime's C ABI: the running state of QUEL's
 * aggregates (count countu sum sumu avg avgu min max any) and the group table
 * of aggregate functions, which the harness's own accumulation and every back
 * end's accumulating kernel (Use::Aggregate, engine/backend.h), generated code
 * included, all call, so a value is the same bit for bit wherever it was
 * accumulated (a float sum adds in the order the tuples are given: scan order).
 *
 * Accumulation errors (an i4 sum's overflow, a float sum turned infinite, the
 * group table out of its memory room) do not stop a scan: each aggregate keeps
 * its first one (qk_agg.err) and accumulates nothing more, and the harness
 * raises it once the scan is over. An error evaluating the argument or the
 * qualification at any tuple therefore comes first, as it did when the
 * aggregate's inner query ran to its end before anything was accumulated.
 */
#ifndef QUELKIT_ACCUMULATE_H
#define QUELKIT_ACCUMULATE_H

#include <stdint.h>

#include "runtime/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A value's column in a projected row: its kind numbered as quelkit::Tk
 * (frontend/types.def: I1 I2 I4 F4 F8 C B; engine/aggregate.cpp asserts it). */
enum qk_col_kind { QK_COL_I1, QK_COL_I2, QK_COL_I4, QK_COL_F4, QK_COL_F8, QK_COL_C, QK_COL_B };
typedef struct qk_col {
  uint8_t kind;
  uint8_t pad_[3];
  uint32_t offset; /* bytes into the row */
  uint32_t len;    /* bytes (a character column's width) */
} qk_col;

enum qk_agg_fn { QK_AGG_COUNT, QK_AGG_SUM, QK_AGG_AVG, QK_AGG_MIN, QK_AGG_MAX, QK_AGG_ANY };

/* One aggregate's running state.
 *   fn, is_unique  the function; is_unique: a u variant (each distinct value once)
 *   int_sum        sum of an integer argument: i4, checked for overflow; other
 *                  sums and every avg add doubles, checked for infinity
 *   err            0, or the first accumulation error (qk_err code); sticky
 *   count          values accumulated (distinct ones for the u variants), kept
 *                  by count, any and avg only: nothing reads a sum's, a min's or a max's
 *   best_*         min/max: the value so far (has_best), the first of equal ones
 *   seen           u variants: the equality keys of the values counted (runtime-owned)
 */
typedef struct qk_agg {
  uint8_t fn;
  uint8_t is_unique;
  uint8_t int_sum;
  uint8_t has_best;
  int32_t err;
  qk_col arg;
  int64_t count;
  int32_t isum;
  int32_t pad_;
  double fsum;
  int64_t best_i;
  double best_f;
  uint8_t* best_c; /* arg.len bytes, for a character argument */
  void* seen;
} qk_agg;

/* A statement's aggregates that share one scan: naggs aggregates over rows
 * whose first nby columns are a by list (nby 0: simple aggregates).
 *   aggs      simple: the naggs accumulators; grouped: each group's, in the
 *             group table (qk_group_aggs)
 *   row       room for one projected row (row_len bytes), for kernels that
 *             project a tuple before accumulating it (qk_accum_row)
 *   probe_only  the groups pass: rows only make their groups (every group of
 *             the whole relation exists, its value over no rows)
 *   room      bytes the group table may take; beyond it err = QK_ERR_MEMORY
 *   bytes     what it takes now (each group's key twice, its by values, its
 *             accumulators and the table's slot)
 */
typedef struct qk_accum {
  uint32_t naggs;
  uint32_t nby;
  qk_agg* aggs;
  qk_col* by;
  uint32_t by_len; /* bytes of the by values at the row's start */
  uint32_t row_len;
  uint8_t* row;
  uint8_t probe_only;
  uint8_t pad_[3];
  int32_t err;
  uint64_t room;
  uint64_t bytes;
  void* groups;
  /* The group front: a two-way table in front of the group table,
   * keyed by the by values' bytes as the row holds them (bytes equal are
   * keys equal, so a hit is the row's group without building its key), which
   * qk_group_probe and generated code both read. front_slots rows (a power
   * of two; 0: no front) of by_len bytes at front_rows; front_group[s] the
   * group + 1 of row s (0: empty), front_aggs[s] its accumulators. The by
   * bytes lie in their slot s (qk_front_fold's) or its pair s ^ 1 (some of
   * a few hundred groups share a slot). Filled by qk_group_probe (not in a probe_only block), emptied for
   * good once it hits too rarely. */
  uint32_t front_slots;
  uint32_t pad2_;
  uint8_t* front_rows;
  uint32_t* front_group;
  qk_agg** front_aggs;
  uint64_t front_hits; /* hits of kernels that read the front themselves (added as a page ends) */
} qk_accum;

/* The front's hash of n by bytes (n <= QK_FRONT_MAX_LEN): the bytes read as
 * little-endian 64-bit words (zeros past n), each xored in and multiplied by
 * an odd constant modulo 2^64 (multiplicative hashing); its top
 * QK_FRONT_SLOT_BITS bits, which every bit of the words reaches, are the
 * slot of a front of 1 << QK_FRONT_SLOT_BITS. Generated code computes the
 * same steps (jit/codegen.cpp). */
#define QK_FRONT_MAX_LEN 64
#define QK_FRONT_SLOT_BITS 12
#define QK_FRONT_MUL 0x9E3779B97F4A7C15ull /* 2^64 / the golden ratio, odd */
static inline int64_t qk_front_fold(int64_t h, int64_t w) { return (int64_t)(((uint64_t)h ^ (uint64_t)w) * QK_FRONT_MUL); }
static inline int64_t qk_front_finish(int64_t h) { return (int64_t)((uint64_t)h >> (64 - QK_FRONT_SLOT_BITS)); }

/* A new block for `naggs` aggregates (fn, is_unique, arg of each taken from
 * protos) over rows of row_len bytes whose first nby columns are `by`.
 * qk_accum_free frees it and everything it holds. */
qk_accum* qk_accum_new(uint32_t naggs, const qk_agg* protos, uint32_t nby, const qk_col* by, uint32_t row_len,
                       uint64_t room) QK_NOEXCEPT;
void qk_accum_free(qk_accum* a) QK_NOEXCEPT;

/* One qualifying tuple's projected row (by values, then each aggregate's
 * argument at its column) accumulated. */
void qk_accum_row(qk_accum* a, const uint8_t* row) QK_NOEXCEPT;

/* The group of the by values at row's start (their equality key built by the
 * `=` rule, qk_key_*), made if new, in order of first appearance; -1 when
 * the table is out of room (a->err set). */
int64_t qk_group_probe(qk_accum* a, const uint8_t* row) QK_NOEXCEPT;
/* The accumulators of the row's group (qk_group_probe, then qk_group_aggs),
 * so a kernel adding to a group's aggregates itself calls one function a
 * row. A row that makes no group (the table out of room, or a block that
 * only makes groups: probe_only) is given accumulators that nothing reads:
 * generated code adds to them without a test. Only for aggregates whose
 * additions allocate nothing (not u variants, no characters). */
qk_agg* qk_group_find(qk_accum* a, const uint8_t* row) QK_NOEXCEPT;
uint64_t qk_group_count(const qk_accum* a) QK_NOEXCEPT;
/* The naggs aggregates' functions and arguments (fn, is_unique, int_sum,
 * arg) as qk_accum_new was given them, for kernels that pick their code by
 * them: simple, the accumulators themselves; grouped, each new group's. */
const qk_agg* qk_accum_protos(const qk_accum* a) QK_NOEXCEPT;
qk_agg* qk_group_aggs(qk_accum* a, uint64_t group) QK_NOEXCEPT;
/* The by values the group was made from: by_len bytes, packed as in the row. */
const uint8_t* qk_group_row(const qk_accum* a, uint64_t group) QK_NOEXCEPT;

/* One value added to one aggregate, by the register class it is held in. */
void qk_agg_add_i(qk_agg* g, int64_t v) QK_NOEXCEPT;
void qk_agg_add_f(qk_agg* g, double v) QK_NOEXCEPT;
void qk_agg_add_c(qk_agg* g, const uint8_t* v) QK_NOEXCEPT;
/* The argument of g read from a row at g->arg and added. */
void qk_agg_add_row(qk_agg* g, const uint8_t* row) QK_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif
