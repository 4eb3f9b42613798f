// The JITs' own routines as `quelkit profile` names them
// (runtime/routine_table.h). The code they generate has no symbols: the
// profile names it from the perf map (q3_qual, q3_kernel, ...), and the
// compilers' libraries are named by their object files.
#pragma once

#include "runtime/routine_table.h"
#include "jit/codegen.h"
#include "jit/prepared.h"

namespace quelkit::jit {

namespace hot = harness::hot;

inline constexpr harness::HotRoutine kHotRoutines[] = {
    // The scan calls the generated code straight (Entries); what runs here is
    // code generated on first use. Virtual: no address to hold, but the name
    // is checked when this compiles.
    {"jit::CompiledPlan::entries", hot::Prepare, "code generated on first use (tuple functions, a kernel variant)",
     "", hot::address_of<&CompiledPlan::entries>},
    // An operator's runtime rule behind a C signature, called from generated
    // code (jit/codegen.cpp): one per typed operator of the catalogue.
    {"qk_rule_*", hot::Evaluation, "runtime rule of an operator, called from generated code", "",
     hot::address_of<&qk_rule_SQRT_F8>},
    {"jit::*", hot::Prepare, "code generator: the walk over the folded IR"},
};

}  // namespace quelkit::jit
