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

// n rows `stride` bytes apart added to a grouped block as n qk_accum_row
// calls would add them. Where every aggregate adds its column
// (agg_adds_column), each row's group is found first, in row order
// (qk_group_find: groups made in order of first appearance; a row that makes
// none, or any row of a probe-only block, given accumulators nothing reads),
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
  for (uint32_t k = 0; k < n; ++k) groups[k] = qk_group_find(a, rows + k * stride);
  for (uint32_t i = 0; i < a->naggs; ++i) {
    const qk_agg* g = &protos[i];
    const uint8_t* col = rows + g->arg.offset;
    with_column_step(g, [&]<uint8_t Fn, int K>() {
      for (uint32_t k = 0; k < n; ++k) agg_add_column<Fn, K>(groups[k] + i, col + k * stride, 1, stride);
    });
  }
}

}  // namespace quelkit::rt
