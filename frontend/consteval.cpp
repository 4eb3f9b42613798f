// eval_const (consteval.h): one case per typed operator of ops.def. The switch
// has no default and -Wswitch is an error in this file, so an operator added
// to ops.def without a case here does not compile. Every rule that can fail
// goes through quelkit::rt / qk_*, the same code the back ends run.
#include "frontend/consteval.h"

#include <cmath>

#include "harness/runtime/runtime_inline.h"

#pragma GCC diagnostic error "-Wswitch"

namespace quelkit::frontend {

namespace {

int32_t i4(const ir::Value& v) { return static_cast<int32_t>(v.i); }
const uint8_t* bytes(const ir::Value& v) { return reinterpret_cast<const uint8_t*>(v.s.data()); }
uint32_t len(const ir::Value& v) { return static_cast<uint32_t>(v.s.size()); }
int cmp_c(const ir::Value& a, const ir::Value& b) { return rt::char_cmp(bytes(a), len(a), bytes(b), len(b)); }

}  // namespace

bool eval_const(ir::Op op, Type result, const ir::Value* args, ir::Value* out, int* err) {
  using ir::Op;
  ir::Value r;
  int e = 0;
  int32_t t = 0;
  // Operands are read through these only in cases whose arity has them.
  auto A = [&]() -> const ir::Value& { return args[0]; };
  auto B = [&]() -> const ir::Value& { return args[1]; };
  auto text_out = [&] {
    r.s.resize(result.len);
    return reinterpret_cast<uint8_t*>(r.s.data());
  };

  switch (op) {
    case Op::CONST:
    case Op::ATTR:
    case Op::PARAM:
      *err = 0;
      return false;

    // widening integer conversions keep the value
    case Op::CVT_I1_I2: case Op::CVT_I1_I4: case Op::CVT_I2_I4: r.i = A().i; break;
    case Op::CVT_I1_F4: case Op::CVT_I2_F4: case Op::CVT_I4_F4: r.f4 = static_cast<float>(i4(A())); break;
    case Op::CVT_I1_F8: case Op::CVT_I2_F8: case Op::CVT_I4_F8: r.f8 = static_cast<double>(i4(A())); break;
    case Op::CVT_I2_I1: case Op::CVT_I4_I1: e = rt::cvt_i4_i1(i4(A()), &t); r.i = t; break;
    case Op::CVT_I4_I2: e = rt::cvt_i4_i2(i4(A()), &t); r.i = t; break;
    // f4 -> f8 is exact, so the f8 rules decide f4 conversions too
    case Op::CVT_F4_I1: e = rt::cvt_f8_i1(A().f4, &t); r.i = t; break;
    case Op::CVT_F4_I2: e = rt::cvt_f8_i2(A().f4, &t); r.i = t; break;
    case Op::CVT_F4_I4: e = rt::cvt_f8_i4(A().f4, &t); r.i = t; break;
    case Op::CVT_F4_F8: r.f8 = static_cast<double>(A().f4); break;
    case Op::CVT_F8_I1: e = rt::cvt_f8_i1(A().f8, &t); r.i = t; break;
    case Op::CVT_F8_I2: e = rt::cvt_f8_i2(A().f8, &t); r.i = t; break;
    case Op::CVT_F8_I4: e = rt::cvt_f8_i4(A().f8, &t); r.i = t; break;
    case Op::CVT_F8_F4: e = rt::cvt_f8_f4(A().f8, &r.f4); break;

    case Op::NEG_I4: e = rt::neg_i4(i4(A()), &t); r.i = t; break;
    case Op::NEG_F4: r.f4 = -A().f4; break;
    case Op::NEG_F8: r.f8 = -A().f8; break;
    case Op::ADD_I4: e = rt::add_i4(i4(A()), i4(B()), &t); r.i = t; break;
    case Op::ADD_F4: e = rt::add_f4(A().f4, B().f4, &r.f4); break;
    case Op::ADD_F8: e = rt::add_f8(A().f8, B().f8, &r.f8); break;
    case Op::SUB_I4: e = rt::sub_i4(i4(A()), i4(B()), &t); r.i = t; break;
    case Op::SUB_F4: e = rt::sub_f4(A().f4, B().f4, &r.f4); break;
    case Op::SUB_F8: e = rt::sub_f8(A().f8, B().f8, &r.f8); break;
    case Op::MUL_I4: e = rt::mul_i4(i4(A()), i4(B()), &t); r.i = t; break;
    case Op::MUL_F4: e = rt::mul_f4(A().f4, B().f4, &r.f4); break;
    case Op::MUL_F8: e = rt::mul_f8(A().f8, B().f8, &r.f8); break;
    case Op::DIV_I4: e = rt::div_i4(i4(A()), i4(B()), &t); r.i = t; break;
    case Op::DIV_F4: e = rt::div_f4(A().f4, B().f4, &r.f4); break;
    case Op::DIV_F8: e = rt::div_f8(A().f8, B().f8, &r.f8); break;
    case Op::POW_F8: e = rt::pow_f8(A().f8, B().f8, &r.f8); break;
    case Op::MOD_I4: e = rt::mod_i4(i4(A()), i4(B()), &t); r.i = t; break;

    case Op::EQ_I4: r.i = i4(A()) == i4(B()); break;
    case Op::EQ_F4: r.i = A().f4 == B().f4; break;
    case Op::EQ_F8: r.i = A().f8 == B().f8; break;
    case Op::EQ_C: r.i = cmp_c(A(), B()) == 0; break;
    case Op::NE_I4: r.i = i4(A()) != i4(B()); break;
    case Op::NE_F4: r.i = A().f4 != B().f4; break;
    case Op::NE_F8: r.i = A().f8 != B().f8; break;
    case Op::NE_C: r.i = cmp_c(A(), B()) != 0; break;
    case Op::LT_I4: r.i = i4(A()) < i4(B()); break;
    case Op::LT_F4: r.i = A().f4 < B().f4; break;
    case Op::LT_F8: r.i = A().f8 < B().f8; break;
    case Op::LT_C: r.i = cmp_c(A(), B()) < 0; break;
    case Op::LE_I4: r.i = i4(A()) <= i4(B()); break;
    case Op::LE_F4: r.i = A().f4 <= B().f4; break;
    case Op::LE_F8: r.i = A().f8 <= B().f8; break;
    case Op::LE_C: r.i = cmp_c(A(), B()) <= 0; break;
    case Op::GT_I4: r.i = i4(A()) > i4(B()); break;
    case Op::GT_F4: r.i = A().f4 > B().f4; break;
    case Op::GT_F8: r.i = A().f8 > B().f8; break;
    case Op::GT_C: r.i = cmp_c(A(), B()) > 0; break;
    case Op::GE_I4: r.i = i4(A()) >= i4(B()); break;
    case Op::GE_F4: r.i = A().f4 >= B().f4; break;
    case Op::GE_F8: r.i = A().f8 >= B().f8; break;
    case Op::GE_C: r.i = cmp_c(A(), B()) >= 0; break;
    case Op::MATCH_C: r.i = qk_pattern_match(bytes(A()), len(A()), bytes(B()), len(B())); break;
    case Op::NOMATCH_C: r.i = !qk_pattern_match(bytes(A()), len(A()), bytes(B()), len(B())); break;

    // Both operands are already values here, so no short-circuit is needed.
    case Op::AND: r.i = A().i && B().i; break;
    case Op::OR: r.i = A().i || B().i; break;
    case Op::NOT: r.i = !A().i; break;

    case Op::ABS_I4: e = rt::abs_i4(i4(A()), &t); r.i = t; break;
    case Op::ABS_F4: r.f4 = std::fabs(A().f4); break;
    case Op::ABS_F8: r.f8 = std::fabs(A().f8); break;
    case Op::SQRT_F8: e = rt::sqrt_f8(A().f8, &r.f8); break;
    case Op::LOG_F8: e = rt::log_f8(A().f8, &r.f8); break;
    case Op::EXP_F8: e = rt::exp_f8(A().f8, &r.f8); break;
    case Op::SIN_F8: e = rt::sin_f8(A().f8, &r.f8); break;
    case Op::COS_F8: e = rt::cos_f8(A().f8, &r.f8); break;
    case Op::ATAN_F8: e = rt::atan_f8(A().f8, &r.f8); break;
    case Op::ASCII_I1: case Op::ASCII_I2: case Op::ASCII_I4:
      qk_ascii_i4(i4(A()), text_out(), result.len);
      break;
    case Op::ASCII_F4: qk_ascii_f4(A().f4, text_out(), result.len); break;
    case Op::ASCII_F8: qk_ascii_f8(A().f8, text_out(), result.len); break;
    case Op::CONCAT_C:
      r.s.resize(len(A()) + len(B()));
      qk_concat(bytes(A()), len(A()), bytes(B()), len(B()), reinterpret_cast<uint8_t*>(r.s.data()));
      break;
  }
  if (e != 0) {
    *err = e;
    return false;
  }
  *err = 0;
  *out = std::move(r);
  return true;
}

}  // namespace quelkit::frontend
