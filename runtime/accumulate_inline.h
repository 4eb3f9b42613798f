// The step every accumulated number takes (accumulate.h), written once as an
// inline template: accumulate.cpp's qk_agg_add_i / qk_agg_add_f are made of it,
// and evaluators that accumulate in their own loops (vector/'s aggregate
// primitives) call it with the function known at compile time, so their
// values and errors are the runtime's by construction, not by a copy.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/accumulate.h"
#include "runtime/inline.h"

namespace quelkit::rt {

// v (an integer as int64_t, a float as double) added to g, an aggregate that
// is not a u variant and has no error yet: min/max keep the first of equal
// values, every value is counted, sums and avgs add it (an i4 sum of an integer checked
// for overflow, a float one for infinity: then g->err, which the caller
// checks before adding more). fn and int_sum are g's (callers may pass them
// as constants).
template <class T>
QK_INLINE void agg_add_plain(qk_agg* g, uint8_t fn, uint8_t int_sum, T v, T* best) noexcept {
  if ((fn == QK_AGG_MIN || fn == QK_AGG_MAX) && (!g->has_best || (fn == QK_AGG_MIN ? v < *best : v > *best))) {
    *best = v;
    g->has_best = 1;
  }
  ++g->count;
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

}  // namespace quelkit::rt
