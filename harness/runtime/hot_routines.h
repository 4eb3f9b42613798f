// The runtime helpers as `quelkit profile` names them
// (harness/routine_table.h). Every back end calls them, generated code
// included, so a profile charges them to evaluation, except the result
// checksum's, which are output. A header of its own: the runtime itself
// depends on nothing of the kit.
#pragma once

#include "harness/routine_table.h"
#include "harness/runtime/runtime.h"

namespace quelkit::rt {

namespace hot = harness::hot;

// Every helper has its row (test/profile checks): generated code calls them by
// name, so a new one shows up in profiles at once. Families hold the address of
// one member: renaming them breaks the build too.
inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"qk_char_cmp", hot::Evaluation, "runtime helper: string comparison (trailing blanks stripped)", "",
     hot::address_of<&qk_char_cmp>},
    {"qk_pattern_match", hot::Evaluation, "runtime helper: pattern match", "", hot::address_of<&qk_pattern_match>},
    {"qk_pattern_check", hot::Evaluation, "runtime helper: pattern check", "", hot::address_of<&qk_pattern_check>},
    {"qk_concat", hot::Evaluation, "runtime helper: concat", "", hot::address_of<&qk_concat>},
    {"qk_ascii_*", hot::Evaluation, "runtime helper: number to characters (ascii)", "", hot::address_of<&qk_ascii_f8>},
    {"qk_cvt_*", hot::Evaluation, "runtime helper: checked conversion", "", hot::address_of<&qk_cvt_f8_i4>},
    {"qk_log_f8", hot::Evaluation, "runtime helper: logarithm", "LOG", hot::address_of<&qk_log_f8>},
    {"qk_exp_f8", hot::Evaluation, "runtime helper: exponential", "", hot::address_of<&qk_exp_f8>},
    {"qk_sqrt_f8", hot::Evaluation, "runtime helper: square root", "", hot::address_of<&qk_sqrt_f8>},
    {"qk_pow_f8", hot::Evaluation, "runtime helper: power (**)", "", hot::address_of<&qk_pow_f8>},
    {"qk_sin_f8", hot::Evaluation, "runtime helper: sine", "", hot::address_of<&qk_sin_f8>},
    {"qk_cos_f8", hot::Evaluation, "runtime helper: cosine", "", hot::address_of<&qk_cos_f8>},
    {"qk_atan_f8", hot::Evaluation, "runtime helper: arc tangent", "", hot::address_of<&qk_atan_f8>},
    {"qk_raise", hot::Evaluation, "runtime helper: raising a runtime error", "", hot::address_of<&qk_raise>},
    {"qk_err_message", hot::Evaluation, "runtime helper: error message", "", hot::address_of<&qk_err_message>},
    {"qk_fnv1a64", hot::Output, "runtime helper: result checksum: row hash", "", hot::address_of<&qk_fnv1a64>},
    {"qk_mix64", hot::Output, "runtime helper: result checksum: mixing", "", hot::address_of<&qk_mix64>},
    {"qk_mod_i4", hot::Evaluation, "runtime helper: checked mod", "", hot::address_of<&qk_mod_i4>},
    {"qk_div_*", hot::Evaluation, "runtime helper: checked division", "", hot::address_of<&qk_div_i4>},
    {"qk_add_*", hot::Evaluation, "runtime helper: checked arithmetic", "", hot::address_of<&qk_add_i4>},
    {"qk_sub_*", hot::Evaluation, "runtime helper: checked arithmetic", "", hot::address_of<&qk_sub_i4>},
    {"qk_mul_*", hot::Evaluation, "runtime helper: checked arithmetic", "", hot::address_of<&qk_mul_i4>},
    {"qk_neg_i4", hot::Evaluation, "runtime helper: checked arithmetic", "", hot::address_of<&qk_neg_i4>},
    {"qk_abs_i4", hot::Evaluation, "runtime helper: checked arithmetic", "", hot::address_of<&qk_abs_i4>},
};

}  // namespace quelkit::rt
