// QUEL's aggregate names, the one list of them: the parser turns a call of
// one into an Aggregate (is_aggregate_name, frontend/aggregate_ast.cpp), and
// tools that enumerate the language's words (the fuzzing dictionary,
// test/fuzz/dict_main.cpp) read it here.
#pragma once

#include <array>
#include <string_view>

namespace quelkit::frontend {

inline constexpr std::array<std::string_view, 9> kAggregateNames = {"count", "countu", "sum", "sumu", "avg",
                                                                    "avgu",  "min",    "max", "any"};

}  // namespace quelkit::frontend
