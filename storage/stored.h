// Stored values as evaluators hold them: a packed field of a tuple, a
// parameter block or a result row, of stored type S, loaded into its register
// class (integers of every width as int32, f4 as float, f8 as double,
// characters as a pointer to the field) and stored back. The C++ evaluators
// (threaded code, the vectorized primitives) share these, so a field is read
// and widened the one way the CVT rules and the interpreter define.
#pragma once

#include <cstdint>

#include "frontend/types.h"
#include "storage/page.h"
#include "runtime/inline.h"

namespace quelkit::harness {

template <Tk>
inline constexpr bool kNoStoredBool = false;

template <Tk S>
QK_INLINE auto load_stored(const uint8_t* p) {
  if constexpr (S == Tk::I1) return int32_t(load<int8_t>(p));
  else if constexpr (S == Tk::I2) return int32_t(load<int16_t>(p));
  else if constexpr (S == Tk::I4) return load<int32_t>(p);
  else if constexpr (S == Tk::F4) return load<float>(p);
  else if constexpr (S == Tk::F8) return load<double>(p);
  else if constexpr (S == Tk::C) return p;
  else static_assert(kNoStoredBool<S>, "no stored booleans");
}

// A stored value loaded as a value of type T: its register class, or widened
// (an integer to f4 or f8, f4 to f8) exactly as the CVT rules widen.
template <Tk S, Tk T>
QK_INLINE auto load_as(const uint8_t* p) {
  static_assert(reg_class(S) == reg_class(T) || (is_int(S) && is_float(T)) || (S == Tk::F4 && T == Tk::F8),
                "a load never narrows");
  auto v = load_stored<S>(p);
  if constexpr (reg_class(T) == Tk::F4 && is_int(S)) return float(v);
  else if constexpr (reg_class(T) == Tk::F8 && S != Tk::F8) return double(v);
  else return v;
}

// A register value stored as a field of type S (characters are copied by length).
template <Tk S, class V>
QK_INLINE void store_col(uint8_t* p, V v) {
  if constexpr (S == Tk::I1) store<int8_t>(p, int8_t(v));
  else if constexpr (S == Tk::I2) store<int16_t>(p, int16_t(v));
  else if constexpr (S == Tk::I4) store<int32_t>(p, v);
  else if constexpr (S == Tk::F4) store<float>(p, v);
  else if constexpr (S == Tk::F8) store<double>(p, v);
  else static_assert(kNoStoredBool<S>, "characters are stored by length");
}

}  // namespace quelkit::harness
