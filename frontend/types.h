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

enum class Tk : uint8_t { I1, I2, I4, F4, F8, C, B };

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

  constexpr bool is_int() const { return kind == Tk::I1 || kind == Tk::I2 || kind == Tk::I4; }
  constexpr bool is_float() const { return kind == Tk::F4 || kind == Tk::F8; }
  constexpr bool is_numeric() const { return is_int() || is_float(); }
  constexpr bool is_char() const { return kind == Tk::C; }
  friend constexpr bool operator==(Type a, Type b) { return a.kind == b.kind && a.len == b.len; }
};

// "i2", "f8", "c20", "bool".
std::string type_name(Type t);
// Parses a format as written in create/copy ("i2", "c20"); nullopt if not one.
std::optional<Type> parse_format(std::string_view s);

}  // namespace quelkit
