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
    // Virtual: no address to hold, but the names are checked when this compiles.
    {"jit::CompiledPlan::qualify", hot::Evaluation, "entry from the scan loop into the generated code", "",
     hot::address_of<&CompiledPlan::qualify>},
    {"jit::CompiledPlan::project", hot::Evaluation, "entry from the scan loop into the generated code", "",
     hot::address_of<&CompiledPlan::project>},
    {"jit::CompiledPlan::run_page", hot::Evaluation, "entry from the scan loop into the generated code", "",
     hot::address_of<&CompiledPlan::run_page>},
    // The stencil back end's plan (jit/stencil/backend.cpp, private there):
    // the same entries, overridden; run per tuple or per page, not prepare.
    {"jit::stencil::StencilPlan::qualify", hot::Evaluation, "entry from the scan loop into the stitched code"},
    {"jit::stencil::StencilPlan::project", hot::Evaluation, "entry from the scan loop into the stitched code"},
    {"jit::stencil::StencilPlan::run_page", hot::Evaluation, "entry from the scan loop into the stitched code"},
    // An operator's runtime rule behind a C signature, called from generated
    // code (jit/codegen.cpp): one per typed operator of the catalogue.
    {"qk_rule_*", hot::Evaluation, "runtime rule of an operator, called from generated code", "",
     hot::address_of<&qk_rule_SQRT_F8>},
    {"jit::*", hot::Prepare, "code generator: the walk over the folded IR"},
};

}  // namespace quelkit::jit
