// The runtime helpers as `quelkit profile` names them
// (runtime/routine_table.h). Every back end calls them, generated code
// included, so a profile charges them to evaluation. (The checksum's hashing
// is inline, rt::fnv1a64 in its caller's routine.) A header of its own: the
// runtime itself depends on nothing of the kit.
#pragma once

#include "runtime/accumulate.h"
#include "runtime/routine_table.h"
#include "runtime/runtime.h"

namespace quelkit::rt {

namespace hot = harness::hot;

// Every helper has its row (test/profile checks): generated code calls them by
// name, so a new one shows up in profiles at once. Families hold the address of
// one member: renaming them breaks the build too.
inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"qk_char_cmp", hot::Evaluation, "runtime helper: string comparison (every blank ignored)", "",
     hot::address_of<&qk_char_cmp>},
    {"qk_pattern_match", hot::Evaluation, "runtime helper: pattern match", "", hot::address_of<&qk_pattern_match>},
    {"qk_pattern_check", hot::Evaluation, "runtime helper: pattern check", "", hot::address_of<&qk_pattern_check>},
    {"qk_concat", hot::Evaluation, "runtime helper: concat", "", hot::address_of<&qk_concat>},
    {"qk_ascii_*", hot::Evaluation, "runtime helper: number to characters (ascii)", "", hot::address_of<&qk_ascii_f8>},
    {"qk_raise", hot::Evaluation, "runtime helper: raising a runtime error", "", hot::address_of<&qk_raise>},
    {"qk_err_message", hot::Evaluation, "runtime helper: error message", "", hot::address_of<&qk_err_message>},
    {"qk_accum_*", hot::Evaluation, "runtime helper: accumulating an aggregate's row", "",
     hot::address_of<&qk_accum_row>},
    {"qk_agg_*", hot::Evaluation, "runtime helper: adding a value to an aggregate", "",
     hot::address_of<&qk_agg_add_row>},
    {"qk_group_*", hot::Evaluation, "runtime helper: an aggregate function's group table", "",
     hot::address_of<&qk_group_probe>},
};

}  // namespace quelkit::rt
