// Each typed operator's runtime rule (ops.def's RULE column) as a constexpr
// function pointer, and the C++ types its operands and result have, so that
// an evaluator can run any operator by its row alone:
//
//   constexpr auto f = ir::rule_of<Op::ADD_F4>;       // &rt::add_f4
//   held_t<Tk::F4> r; int e = f(a, b, &r);
//
// rule_of is nullptr for the rows without a rule (leaves; and/or, which every
// back end evaluates as control flow).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "frontend/ir.h"
#include "runtime/rules.h"

namespace quelkit::ir {

namespace rules {
using namespace quelkit::rt;
inline constexpr std::nullptr_t none = nullptr;
}  // namespace rules

template <Op OP>
inline constexpr auto rule_of = nullptr;
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) \
  template <>                                    \
  inline constexpr auto rule_of<Op::ID> = rules::RULE;
#include "frontend/ops.def"

template <Op OP>
inline constexpr bool has_rule = !std::is_same_v<std::remove_cv_t<decltype(rule_of<OP>)>, std::nullptr_t>;

// The C++ type an operand of type T is passed to a rule as.
template <Tk T>
using held_t = std::conditional_t<T == Tk::F4, float,
               std::conditional_t<T == Tk::F8, double,
               std::conditional_t<T == Tk::C, rt::Chars, int32_t>>>;
// The C++ type a rule writes a result of type T into.
template <Tk T>
using result_t = std::conditional_t<T == Tk::C, rt::Text, held_t<T>>;

}  // namespace quelkit::ir
