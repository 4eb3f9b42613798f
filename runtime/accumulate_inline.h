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
  if (fn == QK_AGG_COUNT || fn == QK_AGG_ANY || fn == QK_AGG_AVG) ++g->count;  // the only ones that read it
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

// g's argument in n rows `stride` bytes apart added in row order, its
// function and column kind picked once for the rows: agg_add_column for a g
// that agg_adds_column, else qk_agg_add_row row by row.
QK_INLINE void agg_add_rows(qk_agg* g, const uint8_t* rows, uint32_t n, size_t stride) noexcept {
  if (!agg_adds_column(g)) {
    for (uint32_t k = 0; k < n; ++k) qk_agg_add_row(g, rows + k * stride);
    return;
  }
  const uint8_t* col = rows + g->arg.offset;
  auto by_kind = [&]<uint8_t Fn>() {
    switch (g->arg.kind) {
      case QK_COL_I1: return agg_add_column<Fn, QK_COL_I1>(g, col, n, stride);
      case QK_COL_I2: return agg_add_column<Fn, QK_COL_I2>(g, col, n, stride);
      case QK_COL_I4: return agg_add_column<Fn, QK_COL_I4>(g, col, n, stride);
      case QK_COL_F4: return agg_add_column<Fn, QK_COL_F4>(g, col, n, stride);
      default: return agg_add_column<Fn, QK_COL_F8>(g, col, n, stride);
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

}  // namespace quelkit::rt
