// The threaded tree's routines as `quelkit profile` names them
// (runtime/routine_table.h): in call mode one handler per node kind
// (threaded::handler<K>, named after its kind), in goto mode one dispatch
// function with every handler inlined.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/routine_table.h"
#include "threaded/program.h"

namespace quelkit::threaded {

namespace hot {
using namespace harness::hot;

// "threaded::handler<34>" -> "node handler: MUL_F8".
inline std::string handler_what(std::string_view name) {
  size_t lt = name.find('<');
  int kind = lt == std::string_view::npos ? -1 : std::atoi(std::string(name.substr(lt + 1)).c_str());
  return "node handler: " + kind_name(kind);
}
// The handlers are internal to run.cpp; handler_of hands them out.
inline const void* first_handler() { return reinterpret_cast<const void*>(handler_of(0)); }
}  // namespace hot

inline constexpr harness::HotRoutine kHotRoutines[] = {
    {"threaded::handler<*", hot::Evaluation, "node handler", "", &hot::first_handler, &hot::handler_what},
    {"threaded::goto_run<*", hot::Evaluation,
     "direct threading: node handlers inlined behind one jump table (threaded:call names each)"},
    {"threaded::lower", hot::Prepare, "building the threaded tree from the folded IR", "", hot::address_of<&lower>},
    {"threaded::Lowerer::*", hot::Prepare, "building the threaded tree from the folded IR"},
    {"threaded::*", hot::Evaluation, "threaded dispatch loop"},
};

}  // namespace quelkit::threaded
