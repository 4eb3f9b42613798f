// The vectorized back end's routines as `quelkit profile` names them
// (runtime/routine_table.h): one function per primitive (vector::prim<K>,
// named after its kind), the page kernel that drives them batch by batch,
// and the lowering.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/routine_table.h"
#include "vector/program.h"

namespace quelkit::vector {

namespace hot {
using namespace harness::hot;

// "vector::prim<34>" -> "primitive: MUL_F8(attr_i2, scalar)".
inline std::string prim_what(std::string_view name) {
  size_t lt = name.find('<');
  int kind = lt == std::string_view::npos ? -1 : std::atoi(std::string(name.substr(lt + 1)).c_str());
  return "primitive: " + prim_name(kind);
}
// The primitives are internal to prims.cpp; prim_of hands them out.
inline const void* first_prim() { return reinterpret_cast<const void*>(prim_of(1)); }
}  // namespace hot

inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"vector::prim<*", hot::Evaluation, "primitive", "", &hot::first_prim, &hot::prim_what},
    {"vector::Runner::run_page", hot::Evaluation, "page kernel: a page's tuples in batches, selection then projection",
     "", hot::address_of<&Runner::run_page>},
    {"vector::lower", hot::Prepare, "building the primitive program from the folded IR", "", hot::address_of<&lower>},
    {"vector::Lowerer::*", hot::Prepare, "building the primitive program from the folded IR"},
    {"vector::*", hot::Evaluation, "vectorized evaluation: batch set-up, a batch of one, re-run of a failed batch"},
};

}  // namespace quelkit::vector
