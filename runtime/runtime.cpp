// The extern "C" runtime helpers (runtime.h). Simple rules are defined once in
// runtime_inline.h and wrapped here; pattern matching, ascii and concat are
// out of line because every evaluator calls them rather than inlining them.
#include "runtime/runtime.h"

#include <charconv>
#include <cstring>

#include "runtime/runtime_inline.h"

using namespace quelkit;

extern "C" {

int qk_raise(qk_ctx* ctx, int32_t code, uint64_t pos) noexcept {
  if (ctx->err_code == 0) {
    ctx->err_code = code;
    ctx->err_pos = pos;
  }
  return -1;
}

const char* qk_err_message(int32_t code) noexcept {
  switch (code) {
#define QK_ERR_MSG(ID, V, MSG) \
  case V:                      \
    return MSG;
    QK_ERRORS(QK_ERR_MSG)
#undef QK_ERR_MSG
  }
  return "unknown runtime error";
}

int qk_char_cmp(const uint8_t* a, uint32_t alen, const uint8_t* b, uint32_t blen) noexcept {
  return rt::char_cmp(a, alen, b, blen);
}

// Index just past the class that starts at pat[i] == '[', or 0 if unclosed.
static uint32_t class_end(const uint8_t* pat, uint32_t plen, uint32_t i) {
  uint32_t j = i + 1;
  if (j < plen && pat[j] == '^') ++j;
  if (j < plen && pat[j] == ']') ++j;  // a leading ']' is a member, as in glob
  while (j < plen && pat[j] != ']') {
    if (pat[j] == '\\' && j + 1 < plen) ++j;
    ++j;
  }
  return j < plen ? j + 1 : 0;
}

static bool class_has(const uint8_t* pat, uint32_t begin, uint32_t end, uint8_t c) {
  // pat[begin] == '[', pat[end-1] == ']'
  uint32_t j = begin + 1;
  bool neg = false;
  if (pat[j] == '^') {
    neg = true;
    ++j;
  }
  bool hit = false;
  while (j < end - 1) {
    uint8_t lo = pat[j];
    if (lo == '\\' && j + 1 < end - 1) lo = pat[++j];
    ++j;
    uint8_t hi = lo;
    if (j + 1 < end - 1 && pat[j] == '-') {
      hi = pat[j + 1];
      if (hi == '\\' && j + 2 < end - 1) {
        hi = pat[j + 2];
        ++j;
      }
      j += 2;
    }
    if (c >= lo && c <= hi) hit = true;
  }
  return hit != neg;
}

int qk_pattern_check(const uint8_t* pat, uint32_t plen, uint32_t* bad_index) noexcept {
  for (uint32_t i = 0; i < plen; ++i) {
    if (pat[i] == '\\') {
      ++i;
    } else if (pat[i] == '[') {
      uint32_t e = class_end(pat, plen, i);
      if (e == 0) {
        if (bad_index) *bad_index = i;
        return 1;
      }
      i = e - 1;
    }
  }
  return 0;
}

// The first non-blank byte at or after i (n if none): the comparison rule
// ignores every blank of the value and of the pattern.
static uint32_t skip_blanks(const uint8_t* p, uint32_t n, uint32_t i) {
  while (i < n && p[i] == ' ') ++i;
  return i;
}

// Glob matching with one backtrack point per '*': linear in practice, no
// recursion. Every index rests on a non-blank byte (or the end), so `?` and a
// class take one non-blank character, as INGRES's lexcomp did.
int qk_pattern_match(const uint8_t* v, uint32_t vlen, const uint8_t* pat, uint32_t plen) noexcept {
  uint32_t vi = skip_blanks(v, vlen, 0), pi = skip_blanks(pat, plen, 0);
  uint32_t star_p = UINT32_MAX, star_v = 0;
  while (vi < vlen) {
    if (pi < plen) {
      uint8_t pc = pat[pi];
      if (pc == '*') {
        star_p = pi = skip_blanks(pat, plen, pi + 1);
        star_v = vi;
        continue;
      }
      if (pc == '?') {
        pi = skip_blanks(pat, plen, pi + 1);
        vi = skip_blanks(v, vlen, vi + 1);
        continue;
      }
      if (pc == '[') {
        uint32_t e = class_end(pat, plen, pi);
        if (e != 0 && class_has(pat, pi, e, v[vi])) {
          pi = skip_blanks(pat, plen, e);
          vi = skip_blanks(v, vlen, vi + 1);
          continue;
        }
        if (e == 0 && v[vi] == '[') {  // unreachable after binding; treat literally
          pi = skip_blanks(pat, plen, pi + 1);
          vi = skip_blanks(v, vlen, vi + 1);
          continue;
        }
      } else {
        uint8_t lit = pc;
        uint32_t adv = 1;
        if (pc == '\\' && pi + 1 < plen) {
          lit = pat[pi + 1];
          adv = 2;
          if (lit == ' ') {  // an escaped blank is a blank: ignored
            pi = skip_blanks(pat, plen, pi + 2);
            continue;
          }
        }
        if (lit == v[vi]) {
          pi = skip_blanks(pat, plen, pi + adv);
          vi = skip_blanks(v, vlen, vi + 1);
          continue;
        }
      }
    }
    if (star_p == UINT32_MAX) return 0;
    pi = star_p;
    vi = star_v = skip_blanks(v, vlen, star_v + 1);
  }
  // What is left may only be stars and escaped blanks.
  while (pi < plen && (pat[pi] == '*' || (pat[pi] == '\\' && pi + 1 < plen && pat[pi + 1] == ' ')))
    pi = skip_blanks(pat, plen, pi + (pat[pi] == '*' ? 1 : 2));
  return pi == plen ? 1 : 0;
}

void qk_concat(const uint8_t* a, uint32_t alen, const uint8_t* b, uint32_t blen, uint8_t* out) noexcept {
  uint32_t n = rt::strip(a, alen);
  if (n == 0 && alen != 0) n = 1;  // the manual: "the result is never trimmed to 0 length"
  std::memmove(out, a, n);
  std::memmove(out + n, b, blen);
  std::memset(out + n + blen, ' ', alen - n);
}

static void put_text(const char* buf, size_t n, uint8_t* out, uint32_t width) {
  rt::store_char(out, width, reinterpret_cast<const uint8_t*>(buf), uint32_t(n));
}

void qk_ascii_i4(int32_t v, uint8_t* out, uint32_t width) noexcept {
  char buf[16];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  put_text(buf, size_t(r.ptr - buf), out, width);
}
void qk_ascii_f4(float v, uint8_t* out, uint32_t width) noexcept {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  put_text(buf, size_t(r.ptr - buf), out, width);
}
void qk_ascii_f8(double v, uint8_t* out, uint32_t width) noexcept {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  put_text(buf, size_t(r.ptr - buf), out, width);
}

}  // extern "C"
