// Inline definitions of the runtime rules (runtime.h). The extern "C" helpers
// in runtime.cpp are defined from these, so C++ evaluators that want them
// inlined (threaded handlers, the interpreter, the fold pass) and generated code
// that calls the C symbols share one definition of every rule.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "runtime/runtime.h"
#include "runtime/inline.h"

namespace quelkit::rt {

// ---- characters ----
// INGRES's rule (its scompare and lexcomp): a character comparison ignores
// every blank, leading, inner and trailing, on both sides; what is left is
// compared byte by byte, unsigned, and a proper prefix comes first. So
// "Ross, Stanley" = "R o s s,Stanley" and "ab" < " a b c". A value is printed
// without its trailing blanks; this is its length once they are gone.
inline uint32_t strip(const uint8_t* p, uint32_t n) noexcept {
  while (n > 0 && p[n - 1] == ' ') --n;
  return n;
}
inline std::string_view strip(std::string_view s) noexcept {
  return s.substr(0, strip(reinterpret_cast<const uint8_t*>(s.data()), uint32_t(s.size())));
}

// The bytes the rule compares: the value without any of its blanks. Two
// values are equal under the rule exactly when these are, so keys, hashes
// and group tables are made from them.
inline std::string squeeze(const uint8_t* p, uint32_t n) {
  std::string out;
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    if (p[i] != ' ') out.push_back(char(p[i]));
  return out;
}
inline std::string squeeze(std::string_view s) {
  return squeeze(reinterpret_cast<const uint8_t*>(s.data()), uint32_t(s.size()));
}

// A value as `=` tells it apart, as a part of a key of several columns: its
// squeezed length, then its squeezed bytes (engine/aggregate.cpp's group
// keys and runtime/accumulate.cpp's, which must be the same bytes), written
// at out (room for 4 + n bytes); returns the bytes written.
inline uint32_t put_char_key(uint8_t* out, const uint8_t* p, uint32_t n) {
  uint32_t len = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (p[i] != ' ') out[sizeof len + len++] = p[i];
  std::memcpy(out, &len, sizeof len);
  return uint32_t(sizeof len) + len;
}
// The same appended to key.
inline void append_char_key(std::string* key, const uint8_t* p, uint32_t n) {
  const size_t at = key->size();
  key->resize(at + sizeof(uint32_t) + n);
  key->resize(at + put_char_key(reinterpret_cast<uint8_t*>(key->data()) + at, p, n));
}

// A character column holds exactly `width` bytes: a value of `len` bytes is
// stored truncated to the width, or followed by blanks up to it. Always
// inlined: the store handlers of threaded code and the vector primitives must
// stay one straight run of moves. The JITs emit the same copy and fill inline
// (jit/codegen.cpp, project); the stencils fill without memset (jit/stencil/bodies.h).
QK_INLINE void store_char(uint8_t* dst, uint32_t width, const uint8_t* src, uint32_t len) noexcept {
  const uint32_t n = len < width ? len : width;
  copy_short(dst, src, n);
  std::memset(dst + n, ' ', width - n);
}

// A string literal's escapes (quel.nr 4.1 and 16.1, INGRES's patmat): a
// backslash makes the character after it ordinary and is dropped, so `\*`
// is a star and `\\` a backslash, in a pattern and in any other string.
// A literal with an unescaped * ? or [ is a pattern (the matcher reads its
// escapes); any other stands for its text with the escapes resolved.
inline bool is_pattern_text(std::string_view s) noexcept {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '*' || s[i] == '?' || s[i] == '[') return true;
  }
  return false;
}
inline std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out.push_back(s[i]);
  }
  return out;
}

// The rule's order. Equal leading bytes are skipped in lockstep first (the
// same bytes hold the same blanks, so the squeezed prefixes agree): a value
// compared with itself, or with one that differs only late, costs one pass.
// The JITs and stencils call this through qk_char_cmp.
inline int char_cmp(const uint8_t* a, uint32_t alen, const uint8_t* b, uint32_t blen) {
  const uint32_t n = alen < blen ? alen : blen;
  uint32_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  uint32_t j = i;
  for (;;) {
    while (i < alen && a[i] == ' ') ++i;
    while (j < blen && b[j] == ' ') ++j;
    if (i == alen) return j == blen ? 0 : -1;
    if (j == blen) return 1;
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i;
    ++j;
  }
}

// ---- integers (i4) ----
inline int add_i4(int32_t a, int32_t b, int32_t* r) {
  return __builtin_add_overflow(a, b, r) ? QK_ERR_OVERFLOW : 0;
}
inline int sub_i4(int32_t a, int32_t b, int32_t* r) {
  return __builtin_sub_overflow(a, b, r) ? QK_ERR_OVERFLOW : 0;
}
inline int mul_i4(int32_t a, int32_t b, int32_t* r) {
  return __builtin_mul_overflow(a, b, r) ? QK_ERR_OVERFLOW : 0;
}
inline int div_i4(int32_t a, int32_t b, int32_t* r) {
  if (b == 0) return QK_ERR_DIV_ZERO;
  if (a == INT32_MIN && b == -1) return QK_ERR_OVERFLOW;
  *r = a / b;  // C++ truncates toward zero
  return 0;
}
inline int mod_i4(int32_t a, int32_t b, int32_t* r) {
  if (b == 0) return QK_ERR_MOD_ZERO;
  *r = (b == -1) ? 0 : a % b;  // sign follows the dividend; INT32_MIN % -1 is UB in C
  return 0;
}
inline int neg_i4(int32_t a, int32_t* r) {
  if (a == INT32_MIN) return QK_ERR_OVERFLOW;
  *r = -a;
  return 0;
}
inline int abs_i4(int32_t a, int32_t* r) {
  if (a == INT32_MIN) return QK_ERR_OVERFLOW;
  *r = a < 0 ? -a : a;
  return 0;
}

// ---- floats: every result must be finite ----
template <class F>
inline int fin(F v, F* r) {
  if (!std::isfinite(v)) return QK_ERR_FLOAT_RESULT;
  *r = v;
  return 0;
}
inline int add_f4(float a, float b, float* r) { return fin<float>(a + b, r); }
inline int sub_f4(float a, float b, float* r) { return fin<float>(a - b, r); }
inline int mul_f4(float a, float b, float* r) { return fin<float>(a * b, r); }
inline int div_f4(float a, float b, float* r) {
  if (b == 0.0f) return QK_ERR_DIV_ZERO;
  return fin<float>(a / b, r);
}
inline int add_f8(double a, double b, double* r) { return fin<double>(a + b, r); }
inline int sub_f8(double a, double b, double* r) { return fin<double>(a - b, r); }
inline int mul_f8(double a, double b, double* r) { return fin<double>(a * b, r); }
inline int div_f8(double a, double b, double* r) {
  if (b == 0.0) return QK_ERR_DIV_ZERO;
  return fin<double>(a / b, r);
}
inline int pow_f8(double a, double b, double* r) { return fin<double>(std::pow(a, b), r); }
inline int sqrt_f8(double a, double* r) {
  if (a < 0) return QK_ERR_SQRT_NEG;
  return fin<double>(std::sqrt(a), r);
}
inline int log_f8(double a, double* r) {
  if (!(a > 0)) return QK_ERR_LOG_DOMAIN;
  return fin<double>(std::log(a), r);
}
inline int exp_f8(double a, double* r) { return fin<double>(std::exp(a), r); }
inline int sin_f8(double a, double* r) { return fin<double>(std::sin(a), r); }
inline int cos_f8(double a, double* r) { return fin<double>(std::cos(a), r); }
inline int atan_f8(double a, double* r) { return fin<double>(std::atan(a), r); }

// ---- conversions ----
inline int f8_to_int(double a, double lo, double hi, int32_t* r) {
  double t = std::trunc(a);
  if (!(t >= lo && t <= hi)) return QK_ERR_CONVERT_RANGE;  // NaN fails too
  *r = static_cast<int32_t>(t);
  return 0;
}
inline int cvt_f8_i4(double a, int32_t* r) { return f8_to_int(a, -2147483648.0, 2147483647.0, r); }
inline int cvt_f8_i2(double a, int32_t* r) { return f8_to_int(a, -32768.0, 32767.0, r); }
inline int cvt_f8_i1(double a, int32_t* r) { return f8_to_int(a, -128.0, 127.0, r); }
inline int cvt_i4_i2(int32_t a, int32_t* r) {
  if (a < -32768 || a > 32767) return QK_ERR_CONVERT_RANGE;
  *r = a;
  return 0;
}
inline int cvt_i4_i1(int32_t a, int32_t* r) {
  if (a < -128 || a > 127) return QK_ERR_CONVERT_RANGE;
  *r = a;
  return 0;
}
inline int cvt_f8_f4(double a, float* r) { return fin<float>(static_cast<float>(a), r); }

// ---- hashing ----
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t fnv1a64(const uint8_t* p, uint64_t n, uint64_t h) {
  for (uint64_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
// A character key's hash: of its squeezed bytes, so that values the rule
// finds equal fall in one bucket.
inline uint64_t fnv1a64_squeezed(const uint8_t* p, uint64_t n, uint64_t h) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] != ' ') h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

}  // namespace quelkit::rt
