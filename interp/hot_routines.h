// The 1976 interpreter's routines as `quelkit profile` names them
// (runtime/routine_table.h): getsymbol and interpret are the paper's GETSYMBOL
// and INTERPRET, kept out of line (interp/interp.h) so that a profile sees them.
#pragma once

#include "runtime/routine_table.h"
#include "interp/interp.h"
#include "interp/lower.h"

namespace quelkit::interp {

namespace hot {
using Interpret = int(SwitchDispatch, const Symbol*, const uint8_t*, uint8_t*, Cell*, qk_ctx*);
using namespace harness::hot;
}  // namespace hot

inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"interp::getsymbol", hot::Evaluation, "symbol fetch: type and length check, load a constant or attribute",
     "GETSYMBOL", hot::address_of<&getsymbol>},
    {"interp::interpret", hot::Evaluation, "interpret loop: generic operators, operand types checked and converted",
     "INTERPRET", hot::address_of<static_cast<hot::Interpret*>(&interpret)>},
    {"interp::lower", hot::Prepare, "postfix lowering of the plan (INGRES lowers every execution afresh)", "",
     hot::address_of<&lower>},
    {"interp::Lowerer::*", hot::Prepare, "postfix lowering of the plan (INGRES lowers every execution afresh)"},
    {"interp::PreparedProgram<*", hot::Evaluation, "entry from the scan loop into the interpreter"},
    {"interp::*", hot::Evaluation, "interpreter operator"},
};

}  // namespace quelkit::interp
