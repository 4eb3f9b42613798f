// The shape of a module's table of hot routines. Each module names its own
// (interp/hot_routines.h and the like) and `quelkit profile` classifies by them
// (profile/classify.cpp), so a rename is caught where it happens: the build
// fails where a row holds the function's address, test/profile where a row's
// name is no routine of bin/quelkit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

namespace quelkit::harness {

// The subsystems of a profile's breakdown, in print order.
enum class Subsystem : uint8_t { FrontEnd, Prepare, Scan, Evaluation, Output, Other };
inline constexpr std::string_view kSubsystemNames[] = {"front end",  "prepare/compile", "scan and storage",
                                                       "evaluation", "output",          "other"};
static_assert(std::size(kSubsystemNames) == size_t(Subsystem::Other) + 1, "one name per subsystem");
constexpr std::string_view subsystem_name(Subsystem s) { return kSubsystemNames[size_t(s)]; }

// One row. `name` is the routine as the profile shortens symbols (no
// parameters, return type, "quelkit::" or anonymous namespace):
// "interp::getsymbol" names that function, every overload; a name ending in
// '*' names a family, every routine whose name starts with the rest: a
// template's instances ("interp::PreparedProgram<*"), a class's members
// ("harness::Relation::*"), a namespace ("interp::*"). First match wins, so a
// module lists its routines before its families.
struct HotRoutine {
  std::string_view name;
  Subsystem subsystem;
  std::string_view what;       // one line: what it does (a family: what its members do)
  std::string_view role = {};  // the paper's Table 3 routine it corresponds to ("GETSYMBOL"), or empty
  // Where the module's headers declare the function: its address (hot::address_of
  // below), so renaming it breaks the build here, and test/profile checks that
  // the symbol at that address has this name. Null for internal routines.
  const void* (*address)() = nullptr;
  // Where `what` depends on the routine (threaded::handler<K> says which node
  // kind K is): computes it from the shortened name.
  std::string (*describe)(std::string_view name) = nullptr;

  bool family() const { return !name.empty() && name.back() == '*'; }
  bool matches(std::string_view routine) const {
    if (!family()) return routine == name;
    std::string_view stem = name.substr(0, name.size() - 1);
    return routine.substr(0, stem.size()) == stem;
  }
};

// What the tables' rows write: hot::Evaluation, hot::address_of<&f>. A
// module's own `namespace hot` takes these in with `using namespace harness::hot`.
namespace hot {

using enum Subsystem;

// The code address of F, a function or a non-virtual member function.
// Virtual members have no one address: null (naming them still checks the
// name at compile time).
template <auto F>
const void* address_of() {
  if constexpr (std::is_member_function_pointer_v<decltype(F)>) {
#if defined(__x86_64__) || defined(__i386__)
    // Itanium C++ ABI: {ptr, adj}; ptr is the function, or 1 + a vtable offset
    // for a virtual one.
    auto pmf = F;
    uintptr_t ptr;
    std::memcpy(&ptr, &pmf, sizeof ptr);
    return ptr & 1 ? nullptr : reinterpret_cast<const void*>(ptr);
#else
    return nullptr;
#endif
  } else {
    return reinterpret_cast<const void*>(F);
  }
}

}  // namespace hot

}  // namespace quelkit::harness
