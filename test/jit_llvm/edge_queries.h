// The differential query list over the edge relation e of support.h (tuple
// ordinals 41..46 are the edge rows): every operator family, every run-time
// error at a known tuple, short-circuits, folding, parameters from tuple
// substitution. Both JIT back ends' differential tests run it against the
// interpreter (test/jit_llvm, test/jit_gccjit), as does the stencil back end's;
// EdgeQueries.ReachEveryTypedOperator names any typed operator of the
// catalogue that no query here binds to.
#pragma once

namespace quelkit::test {

inline const char* const kEdgeQueries[] = {
    "retrieve (t.a, t.b, t.c, t.f, t.d, t.s, t.u)",
    "retrieve (x = t.a + 1)",  // OVERFLOW at INT32_MAX
    "retrieve (x = t.a - 1)",  // OVERFLOW at INT32_MIN
    "retrieve (x = t.a * t.b)",
    "retrieve (x = t.a / t.c)",  // INT32_MIN / -1, then division by zero
    "retrieve (x = t.a / t.b) where t.a < 0",
    "retrieve (x = mod(t.a, t.c)) where t.c != 0",  // INT32_MIN mod -1 is 0
    "retrieve (x = mod(t.a, t.c))",                 // MOD_ZERO
    "retrieve (x = mod(t.a, 3), y = mod(-t.b, 4))",
    "retrieve (x = -t.a)",
    "retrieve (x = abs(t.a))",
    "retrieve (x = abs(t.f), y = abs(t.d), z = -t.f, w = -t.d)",  // -0.0 kept, NaN passed through
    "retrieve (x = t.f * t.f)",                                    // f4 overflow
    "retrieve (x = t.f + t.b, y = t.f * 3, z = t.c - t.f)",
    "retrieve (x = t.f / 3, y = t.b / 4.0) where t.a < 100",
    "retrieve (x = t.d / t.f)",  // divisor -0.0
    "retrieve (x = t.f / t.b) where t.b != 0",
    "retrieve (x = t.d * 2) where t.d < 1e300 or t.d > 1e300",
    "retrieve (x = t.a) where t.d = t.d",  // NaN
    "retrieve (x = t.a) where t.d != t.d",
    "retrieve (x = t.a) where t.f < t.d or t.f >= t.d",
    "retrieve (x = sqrt(t.d))",
    "retrieve (x = log(t.d))",
    "retrieve (x = exp(t.d / 1000))",
    "retrieve (x = sin(t.a), y = cos(t.f), z = atan(t.d))",
    "retrieve (x = t.b ** 2, y = 2 ** t.c)",
    "retrieve (x = int1(t.b))",  // CONVERT_RANGE
    "retrieve (x = int2(t.a)) where t.a > -40000 and t.a < 40000",
    "retrieve (x = int4(t.f)) where t.a < 1000",
    "retrieve (x = int4(t.d))",
    "retrieve (x = int2(t.f), y = int1(t.d)) where t.a > -100 and t.a < 50",
    "retrieve (x = float4(t.d))",  // 1e308 is infinite in f4
    "retrieve (x = float8(t.c), y = float4(t.a), z = float4(t.f))",
    "retrieve (t.s) where t.s = \"abc\"",
    "retrieve (t.s) where t.s != \"abc\" and t.s < \"b\"",
    "retrieve (t.s, t.u) where t.s > t.u or t.u = \"zz\"",
    "retrieve (t.s) where t.s = \"*c*\"",
    "retrieve (t.s) where t.s = \"?bc\" or t.u = \"[a-c]*\"",
    "retrieve (t.s) where t.s != \"p*\" and t.s = \"[^x]*\"",
    "retrieve (t.u) where t.u = \"\\[a\"",
    "retrieve (t.s) where \"a*\" = t.u",
    "retrieve (x = concat(t.s, t.u), y = concat(t.u, \"!\"))",
    "retrieve (x = ascii(t.a), y = ascii(t.b), z = ascii(t.c))",
    "retrieve (x = ascii(t.f), y = ascii(t.d))",
    "retrieve (x = concat(ascii(t.b), t.s)) where concat(t.u, t.s) != \"ab*\"",
    "retrieve (t.a) where t.b = 0 or t.a / t.b > 1",  // the division only where b != 0
    "retrieve (t.a) where t.a > 0 and t.a + 1 > 0",
    "retrieve (t.a) where not (t.a > 0) and not t.b = 0",
    "retrieve (t.a) where t.a > 2 * 3 and t.d < log(9.5) * t.b",
    "retrieve (t.a) where 1 = 1",
    "retrieve (t.a) where 1 = 2",
    "retrieve (t.a) where t.a > 0 or 1 = 1",
    "retrieve (x = 100 / t.b) where t.a > 0",  // the error in the projection
    "retrieve (a = 1)",
    "retrieve (a = 1 / 0)",
    "retrieve (a = 2.5 * 4, b = \"x\")",
    "retrieve (t.a, v.b) where t.a = v.a",  // tuple substitution: parameters
    "retrieve (t.s, v.u) where t.s = v.s and t.a < v.a + 5",
    "retrieve (x = t.f + v.d) where t.a = v.b",
    "retrieve (x = concat(t.s, v.u)) where t.c = v.c and v.a > 0",
    "retrieve (t.a, v.a) where t.a / v.b > 1000",  // DIV_ZERO through a parameter
    "retrieve (t.a) where t.s = v.s and v.d < log(9.5) * t.b",
    "retrieve unique (t.u)",
    "retrieve (x = int2(t.c), y = int1(t.a))",  // CONVERT_RANGE where a leaves i1
    "retrieve (x = int1(t.f)) where t.a < 200",  // CONVERT_RANGE at 3e38
    "retrieve (x = int2(t.d))",                  // CONVERT_RANGE at 1e308
    "retrieve (x = t.d - 1.5, y = t.d - t.d)",   // inf - inf
    "retrieve (x = t.a) where t.f = float4(t.c) or t.f <= float4(t.b)",
    "retrieve (x = t.a) where t.f != float4(t.a) and t.f > float4(t.c) or t.f < float4(t.b) and t.f >= float4(t.c)",
    "retrieve (x = t.a) where t.a <= t.b or t.a >= 46341 or t.d <= 2.5",
    "retrieve (t.s) where t.s <= t.u or t.s >= \"p\"",
#ifdef QUELKIT_TEST_OPERATOR
    "retrieve (x = twice(t.a))",  // the test-only operator (ops.def): OVERFLOW at INT32_MIN
#endif
};

}  // namespace quelkit::test
