// The front end's routines as `quelkit profile` names them
// (runtime/routine_table.h): lexer, parser, binder and fold pass, and the IR
// pieces the harness uses at run time (plan-cache keys, value formatting).
#pragma once

#include "frontend/frontend.h"
#include "frontend/ir.h"
#include "frontend/lexer.h"
#include "frontend/shown_text.h"
#include "runtime/routine_table.h"

namespace quelkit::frontend {

namespace hot {
using namespace harness::hot;
inline constexpr std::string_view kPlanKey = "plans: plan-cache key, IR copied into a plan";
}  // namespace hot

// The parser and the binder are classes internal to their .cpp files: their
// rows are checked by name only.
inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"ir::shape", hot::Prepare, hot::kPlanKey, "", hot::address_of<&ir::shape>},
    {"ir::copy_with_kids", hot::Prepare, hot::kPlanKey, "", hot::address_of<static_cast<ir::NodePtr (*)(const ir::Node&, std::vector<ir::NodePtr>)>(&ir::copy_with_kids)>},
    {"ir::format_value", hot::Output, "output: formatting and writing rows", "FWRITE",
     hot::address_of<&ir::format_value>},
    {"shown_text", hot::Output, "output: text as a terminal shows it (widths, escapes)", "FWRITE",
     hot::address_of<&shown_text>},
    {"shown_chars", hot::Output, "output: text as a terminal shows it (widths, escapes)", "FWRITE",
     hot::address_of<&shown_chars>},
    {"frontend::Lexer::*", hot::FrontEnd, "front end: lexer", "", hot::address_of<&Lexer::next>},
    {"frontend::parse", hot::FrontEnd, "front end: parser", "", hot::address_of<&parse>},
    {"frontend::Parser::*", hot::FrontEnd, "front end: parser"},
    {"frontend::bind", hot::FrontEnd, "front end: binder (names, types)", "", hot::address_of<&bind>},
    {"frontend::Binder::*", hot::FrontEnd, "front end: binder (names, types)"},
    {"frontend::fold", hot::FrontEnd, "front end: constant folding", "", hot::address_of<&fold>},
    {"frontend::*", hot::FrontEnd, "front end: IR"},
    {"ir::*", hot::FrontEnd, "front end: IR"},
};

}  // namespace quelkit::frontend
