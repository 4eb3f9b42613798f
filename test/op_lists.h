// The operator lists that per-operator tests iterate, derived from the
// catalogue (frontend/ops.def) rather than written out, so that a new row is
// tested by every such test without editing one. Each list is a family the
// tests know how to write QUEL for; `family_of` puts every operator a user
// can write into exactly one, and Catalogue.EveryWrittenOperatorHasATestFamily
// fails for a row no family takes (a new typing rule, say), naming it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/ir.h"
#include "frontend/types.h"

namespace quelkit::test {

enum class Family {
  NotWritten,      // leaves, conversions (spelled by their type, types.def) and
                   // pattern matches (the binder derives them from = and !=)
  NumberToNumber,  // unary over numbers: -a, abs(a), sqrt(a) ...
  NumberToText,    // ascii(a)
  NumbersToNumber, // binary over numbers: a + b, a ** b, mod(a, b) ...
  Comparison,      // a = b ... a >= b, over numbers or characters
  TextsToText,     // concat(a, b)
  Connective,      // a and b, a or b
  Negation,        // not a
  Unknown,         // a row no family takes: the tests must learn it
};

namespace op_lists_detail {
struct Row {
  ir::Generic g;
  bool token;  // the lexer has a token for it (TOKEN is not None)
};
inline constexpr Row kRows[] = {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) \
  {ir::Generic::ID, std::string_view(#TOKEN) != "None"},
#include "frontend/ops.def"
};
static_assert(sizeof kRows / sizeof kRows[0] == size_t(ir::kNumGenerics));
}  // namespace op_lists_detail

// The family of a generic operator, from its catalogue row: class, arity,
// typing rule and whether the user writes it (a token, or a function name).
inline Family family_of(ir::Generic g) {
  using ir::Class;
  using ir::Typing;
  const ir::GenericInfo& gi = ir::generic_info(g);
  const bool written = gi.cls == Class::Function || op_lists_detail::kRows[size_t(g)].token;
  if (!written || gi.cls == Class::Leaf || gi.cls == Class::Convert) return Family::NotWritten;
  const bool numeric = gi.typing == Typing::Keep || gi.typing == Typing::Float8 || gi.typing == Typing::Integer ||
                       gi.typing == Typing::Numeric;
  if (gi.cls == Class::Compare && gi.typing == Typing::Compare && gi.arity == 2) return Family::Comparison;
  if (gi.cls == Class::Logic && gi.arity == 2) return Family::Connective;
  if (gi.cls == Class::Logic && gi.arity == 1) return Family::Negation;
  if (gi.typing == Typing::Ascii && gi.arity == 1) return Family::NumberToText;
  if (gi.typing == Typing::Concat && gi.arity == 2) return Family::TextsToText;
  if (numeric && gi.arity == 1) return Family::NumberToNumber;
  if (numeric && gi.arity == 2) return Family::NumbersToNumber;
  return Family::Unknown;
}

// Every generic operator of a family, in catalogue order.
inline std::vector<ir::Generic> family(Family f) {
  std::vector<ir::Generic> out;
  for (size_t i = 0; i < size_t(ir::kNumGenerics); ++i)
    if (family_of(ir::Generic(i)) == f) out.push_back(ir::Generic(i));
  return out;
}

// Its operands must be integers (typing rule Integer: mod); a test converts
// other operands with int4()/int2() first.
inline bool integers_only(ir::Generic g) { return ir::generic_info(g).typing == ir::Typing::Integer; }

// QUEL for a generic operator over operand texts, spelled as the catalogue
// spells it: `(a + b)`, `(-a)`, `(not a)`, `mod(a, b)`.
inline std::string quel(ir::Generic g, const std::string& a, const std::string& b = "") {
  const ir::GenericInfo& gi = ir::generic_info(g);
  if (!gi.infix) return std::string(gi.quel) + "(" + a + (b.empty() ? "" : ", " + b) + ")";
  if (b.empty()) return "(" + std::string(gi.quel) + (gi.cls == ir::Class::Logic ? " " : "") + a + ")";
  return "(" + a + " " + gi.quel + " " + b + ")";
}

// An explicit conversion to `to`: int1(a) ... float8(a) (types.def).
inline std::string quel_cvt(Tk to, const std::string& a) { return std::string(type_info(to).convert_fn) + "(" + a + ")"; }

// The types a number converts to explicitly, in types.def order.
inline std::vector<Tk> convertible_types() {
  std::vector<Tk> out;
  for (int i = 0; i < kNumTk; ++i)
    if (*type_info(Tk(i)).convert_fn) out.push_back(Tk(i));
  return out;
}

}  // namespace quelkit::test
