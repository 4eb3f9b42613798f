// The step every accumulated number takes (accumulate.h), written once as an
// inline template: accumulate.cpp's qk_agg_add_i / qk_agg_add_f are made of it,
// and evaluators that accumulate in their own loops (vector/'s aggregate
// primitives, stencil's page of rows) call it, or its loop over a column of
// rows, with the function known at compile time, so their values and errors
// are the runtime's by construction, not by a copy.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "runtime/accumulate.h"
#include "runtime/inline.h"

namespace quelkit::rt {

// Whether an aggregate of function fn keeps its count: count and any are
// it, avg divides by it; nothing reads a sum's, a min's or a max's.
QK_INLINE constexpr bool agg_keeps_count(uint8_t fn) noexcept {
  return fn == QK_AGG_COUNT || fn == QK_AGG_ANY || fn == QK_AGG_AVG;
}

// v (an integer as int64_t, a float as double) added to g, an aggregate that
// is not a u variant and has no error yet: min/max keep the first of equal
// values, counts, anys and avgs count it, sums and avgs add it (an i4 sum of an integer checked
// for overflow, a float one for infinity: then g->err, which the caller
// checks before adding more). fn and int_sum are g's (callers may pass them
// as constants).
template <class T>
QK_INLINE void agg_add_plain(qk_agg* g, uint8_t fn, uint8_t int_sum, T v, T* best) noexcept {
  if ((fn == QK_AGG_MIN || fn == QK_AGG_MAX) && (!g->has_best || (fn == QK_AGG_MIN ? v < *best : v > *best))) {
    *best = v;
    g->has_best = 1;
  }
  if (agg_keeps_count(fn)) ++g->count;
  if (fn != QK_AGG_SUM && fn != QK_AGG_AVG) return;
  if constexpr (std::is_integral_v<T>) {
    if (int_sum) {
      if (__builtin_add_overflow(g->isum, int32_t(v), &g->isum)) g->err = QK_ERR_OVERFLOW;
      return;
    }
  }
  g->fsum += double(v);
  if (!std::isfinite(g->fsum)) g->err = QK_ERR_FLOAT_RESULT;
}

// A numeric column's value as accumulate.cpp reads it (int_at, float_at):
// integers as int64_t, floats as double. K: a qk_col_kind, I1 to F8.
template <int K>
QK_INLINE auto agg_column_value(const uint8_t* p) noexcept {
  if constexpr (K == QK_COL_I1) return int64_t(int8_t(p[0]));
  else if constexpr (K == QK_COL_I2 || K == QK_COL_I4) {
    std::conditional_t<K == QK_COL_I2, int16_t, int32_t> v;
    std::memcpy(&v, p, sizeof v);
    return int64_t(v);
  } else {
    std::conditional_t<K == QK_COL_F4, float, double> v;
    std::memcpy(&v, p, sizeof v);
    return double(v);
  }
}

// n values of kind K at col, col + stride, ... added to g (not a u variant)
// in that order, as n calls of qk_agg_add_i/_f would add them: a count or
// any adds n; the rest stop at g's error.
template <uint8_t Fn, int K>
QK_INLINE void agg_add_column(qk_agg* g, const uint8_t* col, uint32_t n, size_t stride) noexcept {
  if (g->err) return;
  if constexpr (Fn == QK_AGG_COUNT || Fn == QK_AGG_ANY) {
    g->count += n;
  } else {
    constexpr uint8_t int_sum = Fn == QK_AGG_SUM && K <= QK_COL_I4;
    for (uint32_t k = 0; k < n && !g->err; ++k) {
      const auto v = agg_column_value<K>(col + k * stride);
      if constexpr (K <= QK_COL_I4) agg_add_plain(g, Fn, int_sum, v, &g->best_i);
      else agg_add_plain(g, Fn, int_sum, v, &g->best_f);
    }
  }
}

// True if g takes its column the way agg_add_column adds it: not a u variant,
// a number, its sum the one accumulate.cpp picks (i4 for an integer).
QK_INLINE bool agg_adds_column(const qk_agg* g) noexcept {
  return !g->is_unique && g->arg.kind <= QK_COL_F8 && g->fn <= QK_AGG_ANY &&
         bool(g->int_sum) == (g->fn == QK_AGG_SUM && g->arg.kind <= QK_COL_I4);
}

// Calls f.template operator()<Fn, K>() with g's function and column kind
// (g one that agg_adds_column): the one switch every column loop goes through.
template <class F>
QK_INLINE void with_column_step(const qk_agg* g, F&& f) noexcept {
  auto by_kind = [&]<uint8_t Fn>() {
    switch (g->arg.kind) {
      case QK_COL_I1: return f.template operator()<Fn, QK_COL_I1>();
      case QK_COL_I2: return f.template operator()<Fn, QK_COL_I2>();
      case QK_COL_I4: return f.template operator()<Fn, QK_COL_I4>();
      case QK_COL_F4: return f.template operator()<Fn, QK_COL_F4>();
      default: return f.template operator()<Fn, QK_COL_F8>();
    }
  };
  switch (g->fn) {
    case QK_AGG_COUNT: return by_kind.template operator()<QK_AGG_COUNT>();
    case QK_AGG_SUM: return by_kind.template operator()<QK_AGG_SUM>();
    case QK_AGG_AVG: return by_kind.template operator()<QK_AGG_AVG>();
    case QK_AGG_MIN: return by_kind.template operator()<QK_AGG_MIN>();
    case QK_AGG_MAX: return by_kind.template operator()<QK_AGG_MAX>();
    default: return by_kind.template operator()<QK_AGG_ANY>();
  }
}

// g's argument in n rows `stride` bytes apart added in row order, its
// function and column kind picked once for the rows: agg_add_column for a g
// that agg_adds_column, else qk_agg_add_row row by row.
QK_INLINE void agg_add_rows(qk_agg* g, const uint8_t* rows, uint32_t n, size_t stride) noexcept {
  if (!agg_adds_column(g)) {
    for (uint32_t k = 0; k < n; ++k) qk_agg_add_row(g, rows + k * stride);
    return;
  }
  const uint8_t* col = rows + g->arg.offset;
  with_column_step(g, [&]<uint8_t Fn, int K>() { agg_add_column<Fn, K>(g, col, n, stride); });
}

// n little-endian bytes at p as a word, zeros above them (n <= 8): the
// front's reading of a key's last, short word, in loads that stay inside
// the n bytes.
QK_INLINE int64_t front_tail(const uint8_t* p, uint32_t n) noexcept {
  uint64_t w = 0;
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    w = uint64_t(lo) | uint64_t(hi) << (8 * (n - 4));  // the overlap ors equal bytes
  } else if (n) {
    w = uint64_t(p[0]) | uint64_t(p[n / 2]) << (8 * (n / 2)) | uint64_t(p[n - 1]) << (8 * (n - 1));
  }
  return int64_t(w);
}

// The front's slot of the n by bytes at p (accumulate.h: qk_front_fold),
// slots a power of two: the runtime's and every evaluator that reads the
// front itself.
QK_INLINE uint32_t front_slot(const uint8_t* p, uint32_t n, uint32_t slots) noexcept {
  int64_t h = 0;
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    int64_t w;
    std::memcpy(&w, p + i, 8);
    h = qk_front_fold(h, w);
  }
  if (i < n) h = qk_front_fold(h, front_tail(p + i, n - i));
  return uint32_t(qk_front_finish(h)) & (slots - 1);
}

// Whether the n bytes at x and y are equal, a word at a time (n >= 1).
QK_INLINE bool front_equal(const uint8_t* x, const uint8_t* y, uint32_t n) noexcept {
  if (n >= 8) {
    uint64_t a, b;
    for (uint32_t i = 0; i + 8 < n; i += 8) {
      std::memcpy(&a, x + i, 8), std::memcpy(&b, y + i, 8);
      if (a != b) return false;
    }
    std::memcpy(&a, x + n - 8, 8), std::memcpy(&b, y + n - 8, 8);
    return a == b;
  }
  return front_tail(x, n) == front_tail(y, n);
}

// The accumulators of row's group if the front holds its by values, else
// null (a miss: the caller asks the runtime, qk_group_find or
// qk_group_probe, which also fills the front). What qk_group_probe's own
// front read finds, read where the caller's loop runs; the caller adds its
// hits to a->front_hits, which decides when the front is given up. Only for
// a block with a front and not probe_only (a probe-only row makes its group
// and accumulates nothing: the runtime's to decide).
// N: by_len where the caller knows it (with_front_width), so the hash and
// the compare are a few register operations; 0: read from a.
template <uint32_t N = 0>
QK_INLINE qk_agg* front_find(const qk_accum* a, const uint8_t* row) noexcept {
  const uint32_t n = N ? N : a->by_len;
  const uint32_t first = front_slot(row, n, a->front_slots);
  if (a->front_group[first] && front_equal(a->front_rows + size_t(first) * n, row, n)) return a->front_aggs[first];
  const uint32_t pair = first ^ 1u;  // the slot's pair (accumulate.h: two ways)
  if (a->front_group[pair] && front_equal(a->front_rows + size_t(pair) * n, row, n)) return a->front_aggs[pair];
  return nullptr;
}

// Whether a's front may be read with front_find.
QK_INLINE bool front_readable(const qk_accum* a) noexcept { return a->front_slots && !a->probe_only; }

// f.template operator()<N>() with N = n for the by widths of up to 40
// bytes (the runtime's own front probe is specialised as far), else N = 0.
template <class F, uint32_t... W>
QK_INLINE void with_front_width_of(uint32_t n, F&& f, std::integer_sequence<uint32_t, W...>) noexcept {
  if (!((n == W + 1 ? (f.template operator()<W + 1>(), true) : false) || ...)) f.template operator()<0>();
}
template <class F>
QK_INLINE void with_front_width(uint32_t n, F&& f) noexcept {
  with_front_width_of(n, f, std::make_integer_sequence<uint32_t, 40>{});
}

// Each of n rows' (stride bytes apart) group's accumulators into out[k], in
// row order: from the front where it holds the row's by values
// (front_find, the width a template argument), else miss(row), the
// caller's call into the runtime (which fills the front); the hits added
// to a->front_hits.
template <class Miss>
QK_INLINE void front_groups(qk_accum* a, const uint8_t* rows, uint32_t n, size_t stride, qk_agg** out,
                            Miss&& miss) noexcept {
  if (!front_readable(a)) {
    for (uint32_t k = 0; k < n; ++k) out[k] = miss(rows + k * stride);
    return;
  }
  with_front_width(a->by_len, [&]<uint32_t W>() {
    uint64_t hits = 0;
    for (uint32_t k = 0; k < n; ++k) {
      qk_agg* g = front_find<W>(a, rows + k * stride);
      hits += g != nullptr;
      out[k] = g ? g : miss(rows + k * stride);
    }
    a->front_hits += hits;
  });
}

// n rows `stride` bytes apart added to a grouped block as n qk_accum_row
// calls would add them. Where every aggregate adds its column
// (agg_adds_column), each row's group is found first, in row order
// (the front read here, front_find, else qk_group_find: groups made in
// order of first appearance; a row that makes none, or any row of a
// probe-only block, given accumulators nothing reads),
// into groups[0..n); then each aggregate adds its argument to its row's
// group in row order, its function and column kind picked once for the
// rows (aggregates keep their own errors, so adding them one after another
// and not row by row changes nothing). Otherwise (u variants, characters:
// additions that allocate) row by row through qk_accum_row.
QK_INLINE void agg_add_grouped_rows(qk_accum* a, const uint8_t* rows, uint32_t n, size_t stride,
                                    qk_agg** groups) noexcept {
  const qk_agg* protos = qk_accum_protos(a);  // what every group's accumulators are made as
  for (uint32_t i = 0; i < a->naggs; ++i)
    if (!agg_adds_column(&protos[i])) {
      for (uint32_t k = 0; k < n; ++k) qk_accum_row(a, rows + k * stride);
      return;
    }
  front_groups(a, rows, n, stride, groups, [a](const uint8_t* row) { return qk_group_find(a, row); });
  for (uint32_t i = 0; i < a->naggs; ++i) {
    const qk_agg* g = &protos[i];
    const uint8_t* col = rows + g->arg.offset;
    with_column_step(g, [&]<uint8_t Fn, int K>() {
      for (uint32_t k = 0; k < n; ++k) agg_add_column<Fn, K>(groups[k] + i, col + k * stride, 1, stride);
    });
  }
}

}  // namespace quelkit::rt
