// Naming routines (classify.h). Kit routines are looked up in the modules'
// tables of hot routines; what no module owns (generated code, the kernel, the
// compilers' libraries, libc, libm, libstdc++) is recognised by object file
// and symbol here.
#include "profile/classify.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "frontend/hot_routines.h"
#include "engine/hot_routines.h"
#include "runtime/hot_routines.h"
#include "interp/hot_routines.h"
#include "jit/hot_routines.h"
#include "threaded/hot_routines.h"
#include "vector/hot_routines.h"

namespace quelkit::profile {

const std::vector<PaperRoutine>& paper_table3() {
  static const std::vector<PaperRoutine> t = {
      {"GETSYMBOL", 17.1, "symbol fetch"},  {"INTERPRET", 14.8, "interpret loop"}, {"LOG", 4.4, "logarithm"},
      {"READ", 4.3, "read a page"},         {"BMOVE", 3.9, "block move"},         {"GET", 3.7, "fetch a tuple"},
      {"FWRITE", 3.1, "write output"},      {"SCAN", 3.0, "scan a relation"},
  };
  return t;
}

namespace {

// The profiler's own child process, repeating the script.
constexpr harness::HotRoutine kProfileRoutines[] = {
    {"profile::*", harness::Subsystem::Other, "profiler's repetition loop"},
};

// Back ends before the harness and the front end: each names its own
// namespace, and the harness's families must not take what is theirs.
constexpr ModuleTable kTables[] = {
    {"interp", interp::kHotRoutines},     {"threaded", threaded::kHotRoutines},   {"vector", vector::kHotRoutines},
    {"jit", jit::kHotRoutines},
    {"runtime", rt::kHotRoutines}, {"engine", harness::kHotRoutines},    {"frontend", frontend::kHotRoutines},
    {"profile", kProfileRoutines},
};

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

void erase_all(std::string& s, std::string_view what) {
  for (size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
}

// "q3_qual.17", "q3_s1_kernel.4": a generated function, named after its plan.
bool jit_name(std::string_view s, std::string* base, std::string* plan, std::string* fn) {
  if (s.size() < 2 || s[0] != 'q' || !std::isdigit(static_cast<unsigned char>(s[1]))) return false;
  std::string_view b = s;
  if (auto dot = b.rfind('.'); dot != std::string_view::npos && dot + 1 < b.size() &&
                               b.find_first_not_of("0123456789", dot + 1) == std::string_view::npos)
    b = b.substr(0, dot);
  for (std::string_view suf : {"_qual", "_project", "_kernel"}) {
    if (b.size() > suf.size() && b.ends_with(suf)) {
      *base = std::string(b);
      *plan = std::string(b.substr(0, b.size() - suf.size()));
      *fn = std::string(suf.substr(1));
      return true;
    }
  }
  return false;
}

// What the JIT made: "generated qualification of statement 3 (llvm)". A
// kernel that selects without a branch is named q3_nb_kernel (jit::kernel_base).
std::string jit_what(std::string plan, const std::string& fn, std::string_view backend) {
  std::string which = fn == "qual" ? "qualification" : fn == "project" ? "projection" : "page kernel (qualify + project)";
  if (plan.size() > 3 && plan.ends_with("_nb")) {
    plan.resize(plan.size() - 3);
    which += ", selecting without a branch,";
  }
  std::string jit = backend.empty() ? "JIT" : std::string(backend.substr(0, backend.find(':')));
  // q3, q3_d1, q3_s2, q3_a1 (an aggregate's inner query), q3_a1_s1: the
  // statement, then each part of it the plan belongs to.
  std::string of = "statement ";
  size_t at = 1;
  for (size_t u; (u = plan.find('_', at)) != std::string::npos; at = u + 1) {
    of += plan.substr(at, u - at) + ", ";
    const char part = u + 1 < plan.size() ? plan[u + 1] : ' ';
    of += part == 'd' ? "detachment " : part == 'a' ? "aggregate query " : "substituted query ";
    ++u;  // the part's letter; its number follows
  }
  of += plan.substr(at);
  return "generated " + which + " of " + of + " (" + jit + ")";
}

// The processes libgccjit runs to turn its assembly into a shared object.
bool gccjit_tool(std::string_view obj) {
  for (std::string_view t : {"as", "ld", "ld.bfd", "collect2", "x86_64-linux-gnu-as", "x86_64-linux-gnu-ld",
                             "x86_64-linux-gnu-ld.bfd", "gcc", "x86_64-linux-gnu-gcc-12"})
    if (obj == t) return true;
  return false;
}

}  // namespace

std::span<const ModuleTable> module_tables() { return kTables; }

std::string short_symbol(std::string_view symbol) {
  std::string s(symbol);
  // GCC's clones ("f [clone .isra.0]", "f [clone .cold]") are parts of f;
  // symbol versions ("log@@GLIBC_2.29") say nothing about the routine.
  if (auto c = s.find(" [clone "); c != std::string::npos) s.resize(c);
  if (auto v = s.find("@@"); v != std::string::npos) s.resize(v);
  // callgrind marks recursion levels: "f'2".
  if (auto q = s.rfind('\''); q != std::string::npos && q + 1 < s.size() &&
                              s.find_first_not_of("0123456789", q + 1) == std::string::npos)
    s.resize(q);
  // The parameter list: the last top-level "(...)" (a lambda's "{lambda(...)#1}"
  // and template arguments are not parameter lists).
  auto strip_params = [](std::string& t) {
    std::string_view v = t;
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    for (std::string_view q : {" const", " &&", " &"})
      if (v.size() > q.size() && v.ends_with(q)) v.remove_suffix(q.size());
    if (v.empty() || v.back() != ')') return;
    int depth = 0;
    for (size_t i = v.size(); i-- > 0;) {
      if (v[i] == ')') ++depth;
      else if (v[i] == '(' && --depth == 0) {
        if (i > 0) t.resize(i);
        return;
      }
    }
  };
  if (!s.empty() && s.back() != ']') strip_params(s);
  // A lambda inside a const member function (another lambda's call operator
  // included) is named with the function's qualifier: "f(int) const::{lambda
  // ()#1}". The space before it is no return type's: it goes first, or
  // "const::{lambda...}" was all that was left of such a name, a routine
  // outside the kit that calls back into it, its callers charged twice.
  for (size_t at; (at = s.find(") const::")) != std::string::npos;) s.erase(at + 1, 6);
  // Function templates carry their return type: "long ns::f<true>".
  {
    int depth = 0;
    size_t last = std::string::npos;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == '<' || c == '(') ++depth;
      else if (c == '>' || c == ')') --depth;
      else if (c == ' ' && depth == 0) last = i;
    }
    if (last != std::string::npos && last > 0 && !(last >= 8 && s.compare(last - 8, 8, "operator") == 0))
      s = s.substr(last + 1);
  }
  erase_all(s, "[abi:cxx11]");
  erase_all(s, "(anonymous namespace)::");
  erase_all(s, "quelkit::");
  // A lambda is part of the function that defines it (perf may cut the
  // name short, so do not rely on its closing parenthesis).
  if (!s.starts_with("std::") && has(s, "::{lambda")) {
    std::string owner = s.substr(0, s.find("::{lambda"));
    strip_params(owner);
    s = owner;
  }
  // Template arguments of the handler templates carry the interesting part.
  if (s.starts_with("std::_Function_handler<") && has(s, "::{lambda")) {
    // std::_Function_handler<bool (unsigned int), X::f(...)::{lambda(unsigned int)#2}>::_M_invoke
    size_t comma = s.find(", ");
    size_t lam = s.find("::{lambda", comma);
    if (comma != std::string::npos && lam != std::string::npos) {
      std::string owner = s.substr(comma + 2, lam - comma - 2);
      strip_params(owner);
      s = owner;
    }
  }
  // Inside template arguments the namespaces only lengthen the name:
  // interp::PreparedProgram<interp::SwitchDispatch> -> interp::PreparedProgram<SwitchDispatch>.
  if (!s.starts_with("std::")) {
    std::string t;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == '<') ++depth;
      if (c == '>') --depth;
      t += c;
      if (depth > 0 && c == ':' && i > 0 && s[i - 1] == ':') {
        // drop the qualifier just written: back to the last delimiter
        size_t k = t.size() - 2;
        while (k > 0 && (std::isalnum(static_cast<unsigned char>(t[k - 1])) || t[k - 1] == '_')) --k;
        t.resize(k);
      }
    }
    s = t;
  }
  return s;
}

RoutineInfo classify(std::string_view symbol, std::string_view dso, std::string_view backend) {
  std::string sym = short_symbol(symbol);
  std::string_view s = sym;
  std::string_view d = dso;
  auto info = [](std::string name, std::string what, harness::Subsystem sub, std::string_view role = "") {
    return RoutineInfo{std::move(name), std::move(what), std::string(harness::subsystem_name(sub)), std::string(role)};
  };
  using enum harness::Subsystem;

  // Generated code, the kernel, the compilers: known by where they live.
  if (std::string base, plan, fn; jit_name(s, &base, &plan, &fn)) return info(base, jit_what(plan, fn, backend), Evaluation);
  if (s == "[JIT] unnamed" || d.starts_with("[JIT]") || has(d, "perf-") || d == "//anon")
    return info(sym.empty() ? "[JIT] unnamed" : sym, "generated code outside the perf map", Evaluation);
  if (d.starts_with("[kernel")) return info("[kernel]", "kernel: system calls (output writes), page faults, timer", Other);
  if (d == "[vdso]") return info("[vdso]", "the kernel's clock read in user space (clock_gettime)", Other);
  std::string_view obj = d.substr(d.rfind('/') == std::string_view::npos ? 0 : d.rfind('/') + 1);
  // An address perf could not name says where it is, not what it might be.
  if (sym.empty() || s == "[unknown]")
    return info("[unknown]",
                obj.empty() || obj.front() == '[' ? "addresses perf could not name"
                                                  : "addresses perf could not name, in " + std::string(obj),
                Other);
  if (obj.starts_with("libLLVM") || s.starts_with("llvm::") || s.starts_with("LLVM"))
    return info("libLLVM (compiler)", "LLVM: optimisation passes, code generation, linking", Prepare);
  if (obj.starts_with("libgccjit"))
    return info("libgccjit (compiler)", "GCC: optimisation passes, code generation", Prepare);
  if (gccjit_tool(obj))
    return info("assembler and linker (gccjit)", "the processes libgccjit runs to make a shared object", Prepare);

  // The kit: each module's own table.
  for (const ModuleTable& t : kTables)
    for (const harness::HotRoutine& r : t.routines)
      if (r.matches(s)) return info(sym, r.describe ? r.describe(s) : std::string(r.what), r.subsystem, r.role);

  // The C library and the C++ runtime.
  for (std::string_view l : {"log", "__log", "__ieee754_log", "__log_fma", "__log_finite", "__log_avx2"})
    if (s == l || (s.starts_with(l) && has(d, "libm"))) return info(sym, "logarithm (libm)", Evaluation, "LOG");
  if (has(d, "libm.so") || has(d, "libm-")) return info(sym, "math library", Evaluation);
  if (has(s, "memmove") || has(s, "memcpy") || has(s, "mempcpy"))
    return info(sym, "block move (memcpy/memmove)", Other, "BMOVE");
  if (has(s, "memset") || has(s, "memcmp") || has(s, "strlen") || has(s, "memchr") || has(s, "strcmp"))
    return info(sym, "C string and memory routine", Other);
  if (has(s, "malloc") || has(s, "free") || s == "operator new" || s == "operator delete" || has(s, "_int_") ||
      s.starts_with("tcache") || has(s, "cfree") || has(s, "operator new(") || has(s, "operator delete("))
    return info(sym, "memory allocation", Other);
  if (has(s, "ostream") || has(s, "num_put") || has(s, "streambuf") || has(s, "locale") || has(s, "printf") ||
      s.starts_with("_IO_") || has(s, "fwrite") || s == "write" || s == "__GI___libc_write" ||
      has(s, "__libc_write") || has(s, "to_chars") || has(s, "__mpn_") || has(s, "ctype") ||
      has(s, "basic_filebuf") || has(s, "__write") || has(s, "std::__convert_from_v") || has(s, "std::fpos") ||
      has(s, "basic_ios") || has(s, "to_string"))
    return info(sym, "output: formatting and writing rows", Output, "FWRITE");
  if (has(d, "libstdc++") || s.starts_with("std::")) return info(sym, "C++ library: strings, containers", Other);
  if (has(d, "libc.so") || has(d, "ld-linux")) return info(sym, "C library", Other);
  return info(sym, "", Other);
}

}  // namespace quelkit::profile
