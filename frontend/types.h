// INGRES value types as quelkit uses them everywhere: the binder assigns one to
// every IR node, tuple layouts store them, back ends specialise on them.
// Formats i1 i2 i4 f4 f8 c1..c255 are the language's; B (boolean) is the type
// of qualifications and comparisons and never stored in a tuple.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace quelkit {

// The value types, generated from types.def.
enum class Tk : uint8_t {
#define QK_TYPE(ID, FORMAT, FN, SIZE, REG, STORE, HELD) ID,
#include "frontend/types.def"
};
constexpr int kNumTk = 0
#define QK_TYPE(ID, FORMAT, FN, SIZE, REG, STORE, HELD) +1
#include "frontend/types.def"
    ;
// "No type": an operator row's missing operand, or a leaf's type that the
// node carries instead.
inline constexpr Tk kNoTk = Tk(0xff);

struct TypeInfo {
  const char* format;      // "i2", "c", "bool"
  const char* convert_fn;  // "int2", "" if no function converts to it
  uint8_t size;            // bytes in a tuple; 0 for C (the column's width)
  Tk reg;                  // the register class (integers held as i4)
};
inline constexpr TypeInfo kTypes[] = {
#define QK_TYPE(ID, FORMAT, FN, SIZE, REG, STORE, HELD) {FORMAT, FN, SIZE, Tk::REG},
#include "frontend/types.def"
};
static_assert(sizeof kTypes / sizeof kTypes[0] == size_t(kNumTk));
constexpr const TypeInfo& type_info(Tk k) { return kTypes[size_t(k)]; }
constexpr bool is_int(Tk k) { return k == Tk::I1 || k == Tk::I2 || k == Tk::I4; }
constexpr bool is_float(Tk k) { return k == Tk::F4 || k == Tk::F8; }
// What an evaluator holds a value of type k as; kNoTk stays kNoTk.
constexpr Tk reg_class(Tk k) { return k == kNoTk ? kNoTk : type_info(k).reg; }

struct Type {
  Tk kind = Tk::I4;
  uint8_t len = 4;  // bytes in a tuple: 1/2/4/4/8, 0..255 for C (0 only for "" literals), 1 for B

  static constexpr Type i1() { return {Tk::I1, 1}; }
  static constexpr Type i2() { return {Tk::I2, 2}; }
  static constexpr Type i4() { return {Tk::I4, 4}; }
  static constexpr Type f4() { return {Tk::F4, 4}; }
  static constexpr Type f8() { return {Tk::F8, 8}; }
  static constexpr Type c(unsigned n) { return {Tk::C, static_cast<uint8_t>(n)}; }
  static constexpr Type b() { return {Tk::B, 1}; }

  constexpr bool is_int() const { return quelkit::is_int(kind); }
  constexpr bool is_float() const { return quelkit::is_float(kind); }
  constexpr bool is_numeric() const { return is_int() || is_float(); }
  constexpr bool is_char() const { return kind == Tk::C; }
  friend constexpr bool operator==(Type a, Type b) { return a.kind == b.kind && a.len == b.len; }
};

// "i2", "f8", "c20", "bool".
std::string type_name(Type t);
// Parses a format as written in create/copy ("i2", "c20"); nullopt if not one.
std::optional<Type> parse_format(std::string_view s);

}  // namespace quelkit
