// `quelkit profile` (profile.h). Two processes: this one parses the options,
// starts the tool, and reads and prints what it wrote; the child (the same
// binary, `profile --child=perf|callgrind`, one per back end) sets the data
// up, runs the script once (plan cache warm, JIT code compiled and entered in
// the perf map), and then repeats the script's expression statements:
//   perf       for --seconds, perf's events enabled through its control fifo
//              only around the repetitions; each repetition is the statement
//              as a session runs it again: parse, bind, evaluate, format the
//              rows (to /dev/null). Call chains (DWARF) charge library time
//              to the kit routine that called it.
//   callgrind  per statement, a fixed number of evaluations with collection
//              on (CALLGRIND_TOGGLE_COLLECT) and every prepare() call toggled
//              off, so compiling is excluded and the counts depend on nothing
//              but the binary and the command; a cold preparation is counted
//              apart. One dump per measurement.
// Generated code has no symbols: perf names it from /tmp/perf-PID.map by
// itself; for callgrind we dump per-instruction costs and name the addresses
// here from the same map, as it was when each dump was taken.
#include "cli/profile.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // without valgrind's headers the client requests do nothing (and --instructions says why)
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "cli/backends.h"
#include "cli/report.h"
#include "frontend/frontend.h"
#include "harness/engine.h"
#include "harness/measure.h"
#include "harness/parts.h"
#include "harness/perfmap.h"
#include "harness/rows.h"
#include "harness/session.h"
#include "threaded/program.h"

extern char** environ;

namespace quelkit::profile {

using namespace harness;

// ===================================================================== naming

const std::vector<PaperRoutine>& paper_table3() {
  static const std::vector<PaperRoutine> t = {
      {"GETSYMBOL", 17.1, "symbol fetch"},  {"INTERPRET", 14.8, "interpret loop"}, {"LOG", 4.4, "logarithm"},
      {"READ", 4.3, "read a page"},         {"BMOVE", 3.9, "block move"},         {"GET", 3.7, "fetch a tuple"},
      {"FWRITE", 3.1, "write output"},      {"SCAN", 3.0, "scan a relation"},
  };
  return t;
}

namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
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
  for (const char* f : {"_qual", "_project", "_kernel"}) {
    std::string_view suf(f);
    if (b.size() > suf.size() && b.substr(b.size() - suf.size()) == suf) {
      if (base) *base = std::string(b);
      if (plan) *plan = std::string(b.substr(0, b.size() - suf.size()));
      if (fn) *fn = std::string(suf.substr(1));
      return true;
    }
  }
  return false;
}

std::string helper_what(std::string_view h) {
  struct Row {
    const char* prefix;
    const char* what;
  };
  static const Row rows[] = {
      {"qk_char_cmp", "string comparison (trailing blanks stripped)"},
      {"qk_pattern_match", "pattern match"},
      {"qk_pattern_check", "pattern check"},
      {"qk_concat", "concat"},
      {"qk_ascii", "number to characters (ascii)"},
      {"qk_cvt", "checked conversion"},
      {"qk_log", "logarithm"},
      {"qk_exp", "exponential"},
      {"qk_sqrt", "square root"},
      {"qk_pow", "power (**)"},
      {"qk_sin", "sine"},
      {"qk_cos", "cosine"},
      {"qk_atan", "arc tangent"},
      {"qk_raise", "raising a runtime error"},
      {"qk_err_message", "error message"},
      {"qk_fnv1a64", "result checksum: row hash"},
      {"qk_mix64", "result checksum: mixing"},
      {"qk_mod", "checked mod"},
      {"qk_div", "checked division"},
      {"qk_", "checked arithmetic"},
  };
  for (const Row& r : rows)
    if (starts(h, r.prefix)) return std::string("runtime helper: ") + r.what;
  return "runtime helper";
}

}  // namespace

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
    for (const char* q : {" const", " &&", " &"})
      if (v.size() > std::strlen(q) && v.substr(v.size() - std::strlen(q)) == q) v.remove_suffix(std::strlen(q));
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
  if (!starts(s, "std::") && has(s, "::{lambda")) {
    std::string owner = s.substr(0, s.find("::{lambda"));
    strip_params(owner);
    s = owner;
  }
  // Template arguments of the handler templates carry the interesting part.
  if (starts(s, "std::_Function_handler<") && has(s, "::{lambda")) {
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
  if (!starts(s, "std::")) {
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
  RoutineInfo r;
  std::string sym = short_symbol(symbol);
  std::string_view s = sym;
  std::string_view d = dso;
  auto set = [&](std::string name, std::string what, const char* sub, const char* role = "") {
    r.name = std::move(name);
    r.what = std::move(what);
    r.subsystem = sub;
    r.role = role;
    return r;
  };
  std::string base, plan, fn;
  if (jit_name(s, &base, &plan, &fn)) {
    std::string which = fn == "qual" ? "qualification" : fn == "project" ? "projection" : "page kernel (qualify + project)";
    std::string jit = backend.empty() ? "JIT" : std::string(backend.substr(0, backend.find(':')));
    std::string of = "statement " + plan.substr(1);
    if (auto u = plan.find('_'); u != std::string::npos) {
      std::string part = plan.substr(u + 1);
      of = "statement " + plan.substr(1, u - 1) + (part[0] == 'd' ? ", detachment " : ", substituted query ") +
           part.substr(1);
    }
    return set(base, "generated " + which + " of " + of + " (" + jit + ")", "evaluation", "");
  }
  if (s == "[JIT] unnamed" || starts(d, "[JIT]") || has(d, "perf-") || d == "//anon") {
    return set(sym.empty() ? "[JIT] unnamed" : sym, "generated code outside the perf map", "evaluation");
  }
  if (d == "[kernel]" || d == "[kernel.kallsyms]" || starts(d, "[kernel")) {
    return set("[kernel]", "kernel: system calls (output writes), page faults, timer", "other");
  }
  std::string_view obj = d.substr(d.rfind('/') == std::string_view::npos ? 0 : d.rfind('/') + 1);
  if (starts(obj, "libLLVM"))
    return set("libLLVM (compiler)", "LLVM: optimisation passes, code generation, linking", "prepare/compile");
  if (starts(obj, "libgccjit"))
    return set("libgccjit (compiler)", "GCC: optimisation passes, code generation", "prepare/compile");
  if (obj == "as" || obj == "ld" || obj == "ld.bfd" || obj == "collect2" || obj == "x86_64-linux-gnu-as" ||
      obj == "x86_64-linux-gnu-ld" || obj == "x86_64-linux-gnu-ld.bfd" || obj == "gcc" || obj == "x86_64-linux-gnu-gcc-12")
    return set("assembler and linker (gccjit)", "the processes libgccjit runs to make a shared object", "prepare/compile");

  // The 1976 interpreter.
  if (s == "interp::getsymbol")
    return set("interp::getsymbol", "symbol fetch: type and length check, load a constant or attribute", "evaluation",
               "GETSYMBOL");
  if (s == "interp::interpret")
    return set("interp::interpret", "interpret loop: generic operators, operand types checked and converted", "evaluation",
               "INTERPRET");
  if (starts(s, "interp::")) {
    if (has(s, "lower") || has(s, "Lower"))
      return set(sym, "postfix lowering of the plan (INGRES lowers every execution afresh)", "prepare/compile");
    if (has(s, "Prepared"))
      return set(sym, "entry from the scan loop into the interpreter", "evaluation");
    return set(sym, "interpreter operator", "evaluation");
  }
  // The threaded tree.
  if (starts(s, "threaded::")) {
    if (auto h = s.find("handler<"); h != std::string_view::npos) {
      int k = std::atoi(std::string(s.substr(h + 8)).c_str());
      return set("threaded::handler<" + std::to_string(k) + ">", "node handler: " + threaded::kind_name(k),
                 "evaluation");
    }
    if (has(s, "lower") || has(s, "Lower") || has(s, "Builder") || has(s, "build"))
      return set(sym, "building the threaded tree from the folded IR", "prepare/compile");
    if (has(s, "goto"))
      return set(sym, "direct threading: node handlers inlined behind one jump table (threaded:call names each)",
                 "evaluation");
    return set(sym, "threaded dispatch loop", "evaluation");
  }
  if (starts(s, "jit::")) {
    if (has(s, "::qualify") || has(s, "::project") || has(s, "::run_page"))
      return set(sym, "entry from the scan loop into the generated code", "evaluation");
    return set(sym, "code generator: the walk over the folded IR", "prepare/compile");
  }
  if (starts(s, "llvm::") || starts(s, "LLVM")) return set("libLLVM (compiler)", "LLVM: optimisation passes, code generation, linking", "prepare/compile");

  // Runtime helpers (called by every back end, generated code included).
  if (starts(s, "qk_")) {
    bool sum = starts(s, "qk_fnv1a64") || starts(s, "qk_mix64");
    return set(std::string(s), helper_what(s), sum ? "output" : "evaluation", starts(s, "qk_log") ? "LOG" : "");
  }
  // The C library and the C++ runtime.
  static const char* kLog[] = {"log", "__log", "__ieee754_log", "__log_fma", "__log_finite", "__log_avx2"};
  for (const char* l : kLog)
    if (s == l || (starts(s, l) && has(d, "libm"))) return set(std::string(s), "logarithm (libm)", "evaluation", "LOG");
  if (has(d, "libm.so") || has(d, "libm-"))
    return set(std::string(s), "math library", "evaluation");
  if (has(s, "memmove") || has(s, "memcpy") || has(s, "mempcpy"))
    return set(std::string(s), "block move (memcpy/memmove)", "other", "BMOVE");
  if (has(s, "memset") || has(s, "memcmp") || has(s, "strlen") || has(s, "memchr") || has(s, "strcmp"))
    return set(std::string(s), "C string and memory routine", "other");
  if (has(s, "malloc") || has(s, "free") || s == "operator new" || s == "operator delete" || has(s, "_int_") ||
      starts(s, "tcache") || has(s, "cfree") || has(s, "operator new(") || has(s, "operator delete("))
    return set(std::string(s), "memory allocation", "other");
  if (has(s, "ostream") || has(s, "num_put") || has(s, "streambuf") || has(s, "locale") || has(s, "printf") ||
      starts(s, "_IO_") || has(s, "fwrite") || s == "write" || s == "__GI___libc_write" || has(s, "__libc_write") ||
      has(s, "to_chars") || has(s, "__mpn_") || has(s, "ctype") || has(s, "basic_filebuf") || has(s, "__write") ||
      has(s, "std::__convert_from_v") || has(s, "std::fpos") || has(s, "basic_ios") || has(s, "to_string") ||
      has(s, "format_value") || s == "harness::get_value" || s == "harness::value_text")
    return set(std::string(s), "output: formatting and writing rows", "output", "FWRITE");

  // The harness.
  if (starts(s, "harness::")) {
    if (has(s, "Exec::execute"))
      return set("harness::Exec::execute", "scan loop: page walk, line table, tuple fetch, qualify/project calls",
                 "scan and storage", "SCAN");
    if (has(s, "scan_pages") || has(s, "Relation::page"))
      return set(sym, "access path: the relation's pages in scan order", "scan and storage", "SCAN");
    if (has(s, "Relation::"))
      return set(sym, "storage: pages, inserts, key lookups", "scan and storage");
    if (has(s, "print_table") || has(s, "print_csv") || has(s, "value_text") || has(s, "format"))
      return set(sym, "output: formatting rows as a table", "output", "FWRITE");
    if (has(s, "Checksum") || has(s, "checksum") || has(s, "Sink") || has(s, "sink") || has(s, "row_hash"))
      return set(sym, "result rows: sink and checksum", "output");
    if (has(s, "make_plan") || has(s, "choose_access") || has(s, "rewrite") || has(s, "Runner::get") ||
        has(s, "PlanCache") || has(s, "Plan") || has(s, "layout") || has(s, "resolve") || has(s, "refs"))
      return set(sym, "plans: building, access-path choice, plan cache", "prepare/compile");
    if (has(s, "run_level") || has(s, "run_statement") || has(s, "Engine::evaluate") || has(s, "Exec::"))
      return set(sym, "statement driver: decomposition, substitution", "scan and storage");
    return set(sym, "harness", "scan and storage");
  }
  if (starts(s, "ir::shape") || starts(s, "ir::key") || starts(s, "ir::copy"))
    return set(sym, "plans: plan-cache key, IR copied into a plan", "prepare/compile");
  if (starts(s, "frontend::") || starts(s, "ir::")) {
    if (has(s, "lex") || has(s, "Lex")) return set(sym, "front end: lexer", "front end");
    if (has(s, "parse") || has(s, "Parse")) return set(sym, "front end: parser", "front end");
    if (has(s, "bind") || has(s, "Bind")) return set(sym, "front end: binder (names, types)", "front end");
    if (has(s, "fold") || has(s, "Fold")) return set(sym, "front end: constant folding", "front end");
    return set(sym, "front end: IR", "front end");
  }
  if (starts(s, "profile::")) return set(sym, "profiler's repetition loop", "other");
  if (has(d, "libstdc++") || starts(s, "std::"))
    return set(sym, "C++ library: strings, containers", "other");
  if (has(d, "libc.so") || has(d, "ld-linux")) return set(sym, "C library", "other");
  return set(sym.empty() ? std::string("[unknown]") : sym, "", "other");
}

// ============================================================ perf map, callgrind

std::vector<MapEntry> read_perf_map(const std::string& path, size_t lines) {
  std::vector<MapEntry> m;
  std::ifstream f(path);
  std::string line;
  for (size_t n = 0; n < lines && std::getline(f, line); ++n) {
    std::istringstream ls(line);
    MapEntry e;
    std::string a, z;
    if (!(ls >> a >> z)) continue;
    std::getline(ls >> std::ws, e.name);
    e.start = std::strtoull(a.c_str(), nullptr, 16);
    e.size = std::strtoull(z.c_str(), nullptr, 16);
    if (e.size) m.push_back(std::move(e));
  }
  // A later entry at the same address (code freed and the memory reused) wins.
  std::stable_sort(m.begin(), m.end(), [](const MapEntry& x, const MapEntry& y) { return x.start < y.start; });
  std::vector<MapEntry> out;
  for (auto& e : m) {
    if (!out.empty() && out.back().start == e.start) out.back() = std::move(e);
    else out.push_back(std::move(e));
  }
  return out;
}

const MapEntry* find_in_map(const std::vector<MapEntry>& map, uint64_t addr) {
  auto it = std::upper_bound(map.begin(), map.end(), addr, [](uint64_t a, const MapEntry& e) { return a < e.start; });
  if (it == map.begin()) return nullptr;
  --it;
  return addr < it->start + it->size ? &*it : nullptr;
}

bool read_callgrind(const std::string& path, const std::vector<MapEntry>& jit_map, CallgrindPart& out) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line, ob, fn, cob, cfn;
  bool unknown = false;  // the current function is code callgrind could not name
  bool call = false;     // the cost line after calls= is the call's inclusive cost
  uint64_t call_target = 0;
  auto jit_key = [&](uint64_t addr) -> CostKey {
    const MapEntry* e = find_in_map(jit_map, addr);
    return {"[JIT]", e ? e->name : "[JIT] unnamed"};
  };
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    char c = line[0];
    if (c == '#') continue;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
      std::istringstream ls(line);
      std::string pos;
      uint64_t cost = 0;
      ls >> pos >> cost;
      uint64_t addr = std::strtoull(pos.c_str(), nullptr, 16);
      CostKey here = unknown ? jit_key(addr) : CostKey{ob, fn};
      if (call) {
        call = false;
        std::string callee_ob = cob.empty() ? ob : cob;
        CostKey callee = callee_ob == "???" && starts(cfn, "0x") ? jit_key(call_target) : CostKey{callee_ob, cfn};
        cob.clear();
        if (cost) out.calls[{here, callee}] += cost;
        continue;
      }
      if (!cost) continue;
      out.total += cost;
      out.self[here] += cost;
      continue;
    }
    if (starts(line, "calls=")) {
      call = true;
      std::istringstream ls(line.substr(6));
      std::string count, target;
      ls >> count >> target;
      call_target = std::strtoull(target.c_str(), nullptr, 16);
      continue;
    }
    if (starts(line, "ob=")) {
      ob = line.substr(3);
    } else if (starts(line, "fn=")) {
      fn = line.substr(3);
      unknown = ob == "???" && starts(fn, "0x");
    } else if (starts(line, "cob=")) {
      cob = line.substr(4);
    } else if (starts(line, "cfn=")) {
      cfn = line.substr(4);
    } else if (starts(line, "desc: Trigger: Client Request: ")) {
      out.trigger = line.substr(std::strlen("desc: Trigger: Client Request: "));
    }
  }
  return true;
}

std::map<std::string, double> charge_subsystems(const std::map<CostKey, double>& self,
                                                const std::map<std::pair<CostKey, CostKey>, double>& calls,
                                                std::string_view backend) {
  std::map<CostKey, std::string> sub;
  auto of = [&](const CostKey& k) -> const std::string& {
    auto it = sub.find(k);
    if (it == sub.end()) it = sub.emplace(k, classify(k.symbol, k.dso, backend).subsystem).first;
    return it->second;
  };
  std::map<std::string, double> ch;
  double total = 0, charged = 0;
  for (const auto& [k, v] : self) {
    total += v;
    if (of(k) != "other") ch[of(k)] += v, charged += v;
  }
  // A call from the kit into a library routine brings everything under it
  // (library routines calling each other are inside that inclusive cost).
  for (const auto& [e, v] : calls) {
    if (of(e.first) == "other" || of(e.second) != "other") continue;
    ch[of(e.first)] += v;
    charged += v;
  }
  ch["other"] = std::max(0.0, total - charged);
  return ch;
}

namespace {

// ===================================================================== options

struct Options {
  std::vector<std::pair<std::string, std::string>> scripts;  // (name, text); name "" = file path in text
  std::vector<PartsSpec> parts;
  std::string backends;  // "" = every back end in its default mode
  std::string queries;   // paper query letters
  bool instructions = false, json = false, cold = false, no_prepare = false;
  double seconds = 2.0;
  int freq = 4000;
  int reps = 3;
  int top = 15;
  OutFormat format = OutFormat::Table;
  uint32_t page_size = kDefaultPageSize;
  int jit_opt = 1;
  std::string keep;
  std::string perf = "perf";  // the perf program (--perf PATH)
  // The child's side.
  std::string child, child_dir, child_backend, ctl, ack;
};

const char* kHelp = R"(usage: quelkit profile [options] FILE.quel ... | -e TEXT | --query LETTERS
Table-3-style profiles of each back end: % time (or instructions) per routine, what it does,
and the split by subsystem; the 1976 interpreter's beside the paper's Table 3.
  -b, --backend LIST      back ends (name[:mode], comma separated, or all);
                          default: every built back end in its default mode
  --parts N[:heap|:isam|:hash][:wide]
                          create relation parts with N generated tuples first
  --query LETTERS         profile the paper's queries (a-i) instead of a script
                          (default relation: 3360 tuples, heap or the keyed setup)
  -e TEXT                 the script as text (may be repeated)
  --seconds S             sampling time per back end (default 2)
  --freq HZ               cpu-clock sampling frequency (default 4000)
  --cold                  clear the plan cache before every repetition (profile compiling too)
  --format table|csv|none how the sampled repetitions format their rows (default table)
  --instructions          count instructions with callgrind instead of sampling: run phase
                          only (preparation excluded, counted apart), --reps evaluations
                          per statement; the same counts on every run of the same binary
  --reps K                evaluations per statement for --instructions (default 3)
  --no-prepare            --instructions without counting a cold preparation (faster with JITs)
  --top N                 routines listed per back end (default 15)
  --json                  one JSON document instead of tables
  --page-size BYTES, --jit-opt 0-3
  --keep DIR              keep the raw perf.data / callgrind files in DIR
  --perf PROGRAM          the perf to sample with (default: perf on PATH)
Sampling needs perf (Debian linux-perf; ./kit profile installs it); when perf cannot sample
here, the profile says so and counts instructions with callgrind (valgrind) instead.
)";

[[noreturn]] void usage_error(const std::string& m) {
  std::cerr << "quelkit profile: error: " << m << "\n(quelkit profile --help shows the options)\n";
  std::exit(2);
}

uint64_t number(const std::string& s, const char* what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    usage_error(std::string(what) + " needs a number, not '" + s + "'");
  return std::stoull(s);
}

PartsSpec parse_parts(const std::string& spec) {
  PartsSpec p;
  std::string err;
  if (!parse_parts_spec(spec, &p, &err)) usage_error(err);
  return p;
}

Options parse_options(const std::vector<std::string>& args, size_t i) {
  Options o;
  auto value = [&](const std::string& a) -> std::string {
    auto eq = a.find('=');
    if (eq != std::string::npos && starts(a, "--")) return a.substr(eq + 1);
    if (i >= args.size()) usage_error(a + " needs a value");
    return args[i++];
  };
  while (i < args.size()) {
    std::string a = args[i++];
    std::string name = starts(a, "--") ? a.substr(0, a.find('=')) : a;
    if (a == "-h" || a == "--help") {
      std::cout << kHelp;
      std::exit(0);
    } else if (name == "-b" || name == "--backend") {
      o.backends = value(a);
    } else if (name == "--parts") {
      o.parts.push_back(parse_parts(value(a)));
    } else if (name == "--query" || name == "--queries") {
      o.queries = value(a);
    } else if (name == "-e") {
      o.scripts.emplace_back("<-e " + std::to_string(o.scripts.size() + 1) + ">", value(a));
    } else if (name == "--seconds") {
      o.seconds = std::atof(value(a).c_str());
      if (!(o.seconds > 0)) usage_error("--seconds must be positive");
    } else if (name == "--freq") {
      o.freq = int(number(value(a), "--freq"));
      if (o.freq < 1) usage_error("--freq must be positive");
    } else if (name == "--reps") {
      o.reps = int(number(value(a), "--reps"));
      if (o.reps < 1) usage_error("--reps must be at least 1");
    } else if (name == "--top") {
      o.top = int(number(value(a), "--top"));
    } else if (a == "--cold") {
      o.cold = true;
    } else if (a == "--no-prepare") {
      o.no_prepare = true;
    } else if (a == "--instructions") {
      o.instructions = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (name == "--format") {
      std::string f = value(a);
      if (f == "table") o.format = OutFormat::Table;
      else if (f == "csv") o.format = OutFormat::Csv;
      else if (f == "none") o.format = OutFormat::None;
      else usage_error("--format must be table, csv or none");
    } else if (name == "--page-size") {
      uint64_t ps = number(value(a), "--page-size");
      if (ps < 64 || ps > 65536) usage_error("--page-size must be between 64 and 65536");
      o.page_size = uint32_t(ps);
    } else if (name == "--jit-opt") {
      o.jit_opt = int(number(value(a), "--jit-opt"));
      if (o.jit_opt > 3) usage_error("--jit-opt must be 0, 1, 2 or 3");
    } else if (name == "--perf") {
      o.perf = value(a);
    } else if (name == "--keep") {
      o.keep = value(a);
    } else if (name == "--child") {
      o.child = value(a);
    } else if (name == "--child-dir") {
      o.child_dir = value(a);
    } else if (name == "--child-backend") {
      o.child_backend = value(a);
    } else if (name == "--ctl") {
      o.ctl = value(a);
    } else if (name == "--ack") {
      o.ack = value(a);
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option " + a);
    } else {
      o.scripts.emplace_back("", a);
    }
  }
  if (!o.queries.empty()) {
    if (!o.scripts.empty()) usage_error("give a script or --query, not both");
    std::string text = "range of p is parts range of q is parts\n";
    int keyed = -1;
    for (char c : o.queries) {
      const PaperQuerySpec* q = nullptr;
      for (const auto& pq : paper_queries())
        if (pq.id[0] == c) q = &pq;
      if (!q) usage_error(std::string("--query: no paper query '") + c + "' (a-i)");
      if (keyed >= 0 && keyed != int(q->keyed))
        usage_error("--query: (a)-(d) run on a heap, (e)-(i) on the keyed relation: profile them separately");
      keyed = int(q->keyed);
      text += std::string(q->text) + "\n";
    }
    o.scripts.emplace_back("<paper " + o.queries + ">", text);
    if (o.parts.empty()) o.parts.push_back(PartsSpec{3360, keyed ? Structure::Isam : Structure::Heap, keyed == 1});
  }
  if (o.scripts.empty() && o.child.empty()) usage_error("nothing to profile: give FILE.quel, -e TEXT or --query");
  return o;
}

std::vector<std::pair<std::string, std::string>> backend_list(const Options& o) {
  if (!o.child_backend.empty()) return parse_backend_list(o.child_backend);
  if (!o.backends.empty()) return parse_backend_list(o.backends);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& b : registered_backends()) all.emplace_back(b.name, b.modes.front());
  return all;
}

// ===================================================================== child

// prepare() with callgrind's collection switched off (the run phase) or on
// (the cold preparation, counted apart), so compile cost never mixes with
// run cost.
enum class Collect { Off, Run, Prepare };
Collect g_collect = Collect::Off;

class ExcludePrepare final : public Backend {
 public:
  explicit ExcludePrepare(std::unique_ptr<Backend> b) : b_(std::move(b)) {}
  bool reuses_plans() const override { return b_->reuses_plans(); }
  std::unique_ptr<Prepared> prepare(const Plan& plan, const uint8_t* params) override {
    if (g_collect == Collect::Off) return b_->prepare(plan, params);
    CALLGRIND_TOGGLE_COLLECT;
    std::unique_ptr<Prepared> p = b_->prepare(plan, params);
    CALLGRIND_TOGGLE_COLLECT;
    return p;
  }
  bool dump(const Plan& plan, std::string_view form, const uint8_t* params, std::ostream& os) override {
    return b_->dump(plan, form, params, os);
  }

 private:
  std::unique_ptr<Backend> b_;
};

// One expression statement of the script, as the setup run met it.
struct Stmt {
  int k = 0;  // statement number in the session (names the plans: q<k>)
  size_t src = 0, index = 0;
  frontend::RangeTable ranges;  // in force when it ran
  bool print = false;           // a plain retrieve: its rows are formatted
  uint32_t line = 0;
  std::string text;
};

struct Workload {
  std::unique_ptr<Session> session;
  std::vector<SourceRef> sources;
  std::vector<std::vector<frontend::ast::StmtPtr>> parsed;
  std::vector<Stmt> stmts;
  std::ofstream devnull{"/dev/null"};
};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

[[noreturn]] void child_fail(const std::string& m) {
  std::cerr << "quelkit profile: " << m << "\n";
  std::exit(1);
}

// The data, and the script run once (errors end the profile: a profile of a
// failing statement would be a profile of the error path).
void setup(Workload& w, const Options& o, bool wrap) {
  SessionOptions so;
  so.backends = backend_list(o);
  so.format = OutFormat::None;
  so.page_size = o.page_size;
  so.prepare.jit_opt = o.jit_opt;
  w.session = std::make_unique<Session>(so, w.devnull, std::cerr);
  Session& s = *w.session;
  if (wrap) {
    for (auto& r : s.runners()) {
      const BackendSpec* spec = find_backend(r->name());
      auto nr = std::make_unique<Runner>(r->name(), r->mode(),
                                         std::make_unique<ExcludePrepare>(spec->make(r->mode(), r->prepare_options())),
                                         r->options(), r->prepare_options());
      nr->cache().set_capacity(so.plan_cache_capacity);
      r = std::move(nr);
    }
  }
  for (const auto& p : o.parts) {
    if (s.catalog().find("parts")) s.catalog().remove("parts");
    s.catalog().add(make_parts(p.rows, p.wide, p.s, o.page_size));
  }
  int k = 0;
  for (const auto& [name, what] : o.scripts) {
    std::string text = what, srcname = name;
    if (name.empty()) {
      std::ifstream f(what, std::ios::binary);
      if (!f) child_fail("cannot open " + what + ": " + std::strerror(errno));
      std::stringstream ss;
      ss << f.rdbuf();
      text = ss.str();
      srcname = what;
    }
    auto src = std::make_shared<Source>(srcname, text);
    std::vector<frontend::ast::StmtPtr> stmts;
    try {
      stmts = frontend::parse(src);
    } catch (QuelError& e) {
      s.print_error(e.err);
      child_fail("the script does not parse");
    }
    for (size_t i = 0; i < stmts.size(); ++i) {
      const auto& st = *stmts[i];
      Stmt e;
      e.k = ++k;
      e.src = w.sources.size();
      e.index = i;
      e.ranges = s.ranges();
      e.line = st.pos.line;
      e.text = one_line(text.substr(st.begin, st.end - st.begin));
      using K = frontend::ast::Stmt;
      bool expr = st.kind == K::Retrieve || st.kind == K::Append || st.kind == K::Delete || st.kind == K::Replace;
      e.print = st.kind == K::Retrieve && st.relation.empty();
      if (!s.run_statement(st, src)) child_fail("statement " + std::to_string(e.k) + " failed; nothing profiled");
      if (expr) w.stmts.push_back(std::move(e));
    }
    w.sources.push_back(src);
    w.parsed.push_back(std::move(stmts));
  }
  if (w.stmts.empty()) child_fail("nothing to profile: the script has no retrieve, append, replace or delete");
}

// Binding again against the database as the script left it can fail (the
// script destroyed a relation it queried earlier): that ends the profile.
frontend::BoundQuery bind_stmt(Workload& w, const Stmt& e, const frontend::ast::Stmt& st) {
  try {
    return frontend::bind(st, e.ranges, w.session->catalog(), w.sources[e.src]);
  } catch (QuelError& err) {
    if (!err.err.src) err.err.src = w.sources[e.src];
    child_fail("statement " + std::to_string(e.k) + " cannot be repeated: " + err.err.format());
  }
}

Result evaluate(Workload& w, const Stmt& e, const frontend::BoundQuery& q, Runner& r, bool keep) {
  Engine eng(w.session->catalog(), w.sources[e.src], e.k);
  Result res;
  try {
    res = eng.evaluate(q, r, keep);
  } catch (QuelError& err) {
    child_fail("statement " + std::to_string(e.k) + " failed: " + err.err.format());
  }
  if (!res.ok) child_fail("statement " + std::to_string(e.k) + " failed: " + res.error.format());
  return res;
}

uint64_t tuples_of(Workload& w, const frontend::BoundQuery& q) {
  uint64_t n = 0;
  for (const auto& v : q.vars)
    if (const Relation* rel = w.session->catalog().find(v.relation)) n = std::max(n, rel->ntuples());
  return n ? n : 1;
}

// Lines in this process's perf map so far: the map as it is now.
size_t map_lines() {
  std::ifstream f(perfmap_path());
  size_t n = 0;
  std::string line;
  while (std::getline(f, line)) ++n;
  return n;
}

// perf's control fifo: events are enabled only around the repetitions.
void perf_control(int ctl, int ack, const char* cmd) {
  if (ctl < 0) return;
  ssize_t n = write(ctl, cmd, std::strlen(cmd));
  (void)n;
  char buf[16];
  if (ack >= 0) n = read(ack, buf, sizeof buf);
}

int child_perf(const Options& o) {
  perfmap_enable(true);
  std::ofstream meta(o.child_dir + "/meta." + o.child_backend);
  meta << "pid\t" << getpid() << "\n" << std::flush;
  Workload w;
  setup(w, o, false);
  Runner& r = *w.session->runners().at(0);
  // One repetition: the script's statements as a session runs them again.
  std::vector<uint64_t> scanned(w.stmts.size()), out(w.stmts.size()), tuples(w.stmts.size());
  auto rep = [&](bool first) {
    std::vector<std::vector<frontend::ast::StmtPtr>> parsed;
    for (const auto& src : w.sources) parsed.push_back(frontend::parse(src));
    if (o.cold) r.cache().clear();
    for (size_t i = 0; i < w.stmts.size(); ++i) {
      const Stmt& e = w.stmts[i];
      frontend::BoundQuery q = bind_stmt(w, e, *parsed[e.src][e.index]);
      bool keep = e.print && o.format != OutFormat::None;
      Result res = evaluate(w, e, q, r, keep);
      if (keep) {
        size_t n = res.layout.tuple_len ? res.data.size() / res.layout.tuple_len : 0;
        if (o.format == OutFormat::Table) print_table(w.devnull, res.layout, res.data.data(), n);
        else print_csv(w.devnull, res.layout, res.data.data(), n);
      }
      if (first) {
        scanned[i] = res.stats.rows_scanned;
        out[i] = res.stats.rows_out;
        tuples[i] = tuples_of(w, q);
      }
    }
  };
  rep(true);
  int ctl = o.ctl.empty() ? -1 : open(o.ctl.c_str(), O_WRONLY | O_CLOEXEC);
  int ack = o.ack.empty() ? -1 : open(o.ack.c_str(), O_RDONLY | O_CLOEXEC);
  perf_control(ctl, ack, "enable\n");
  uint64_t t0 = now_ns(), reps = 0, limit = uint64_t(o.seconds * 1e9);
  do {
    rep(false);
    ++reps;
  } while (now_ns() - t0 < limit);
  uint64_t ns = now_ns() - t0;
  perf_control(ctl, ack, "disable\n");
  meta << "run\t" << r.label() << "\t" << reps << "\t" << ns << "\n";
  for (size_t i = 0; i < w.stmts.size(); ++i) {
    const Stmt& e = w.stmts[i];
    meta << "stmt\t" << r.label() << "\t" << e.k << "\t" << e.line << "\t" << tuples[i] << "\t" << scanned[i] << "\t"
         << out[i] << "\t" << reps << "\t0\t0\t0\t0\t" << e.text << "\n";
  }
  meta << "done\n";
  return 0;
}

int child_callgrind(const Options& o) {
  if (!RUNNING_ON_VALGRIND) child_fail("--child=callgrind runs only under valgrind --tool=callgrind");
  perfmap_enable(true);
  std::ofstream meta(o.child_dir + "/meta." + o.child_backend);
  meta << "pid\t" << getpid() << "\n" << std::flush;
  Workload w;
  setup(w, o, true);
  CALLGRIND_START_INSTRUMENTATION;
  int part = 0;
  for (auto& rp : w.session->runners()) {
    Runner& r = *rp;
    for (const Stmt& e : w.stmts) {
      frontend::BoundQuery q = bind_stmt(w, e, *w.parsed[e.src][e.index]);
      // A cold preparation: the plan cache cleared, only prepare() collected.
      int prep_part = 0;
      size_t prep_map = 0;
      if (!o.no_prepare) {
        r.cache().clear();
        g_collect = Collect::Prepare;
        evaluate(w, e, q, r, false);
        g_collect = Collect::Off;
        CALLGRIND_DUMP_STATS_AT(("quelkit-profile " + std::to_string(++part)).c_str());
        prep_part = part;
        prep_map = map_lines();
      }
      Result warm = evaluate(w, e, q, r, false);  // warm: caches, first touches
      g_collect = Collect::Run;
      CALLGRIND_TOGGLE_COLLECT;
      for (int i = 0; i < o.reps; ++i) evaluate(w, e, q, r, false);
      CALLGRIND_TOGGLE_COLLECT;
      g_collect = Collect::Off;
      CALLGRIND_DUMP_STATS_AT(("quelkit-profile " + std::to_string(++part)).c_str());
      meta << "stmt\t" << r.label() << "\t" << e.k << "\t" << e.line << "\t" << tuples_of(w, q) << "\t"
           << warm.stats.rows_scanned << "\t" << warm.stats.rows_out << "\t" << o.reps << "\t" << part << "\t"
           << prep_part << "\t" << map_lines() << "\t" << prep_map << "\t" << e.text << "\n";
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  meta << "done\n";
  return 0;
}

// ===================================================================== parent

std::string exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "quelkit";
  buf[n] = 0;
  return buf;
}

bool on_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return access(prog.c_str(), X_OK) == 0;
  const char* p = std::getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
  return false;
}

// Runs argv with stdout and stderr to files; returns the exit status (-1: not started).
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> av;
  for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, av[0], &fa, nullptr, av.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

// Output of a command (stdout), run through run().
std::string capture(const std::vector<std::string>& argv, const std::string& dir, int* status) {
  std::string out = dir + "/capture.out", err = dir + "/capture.err";
  *status = run(argv, out, err);
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The child's own messages, without perf's chatter.
std::string child_messages(const std::string& path) {
  std::stringstream in(slurp(path));
  std::string line, out;
  while (std::getline(in, line)) {
    if (starts(line, "Events ") || starts(line, "[ perf record") || starts(line, "==") || line.empty()) continue;
    out += line + "\n";
  }
  return out;
}

std::string last_line(const std::string& text) {
  std::stringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && !starts(line, "Events ")) last = line;
  return last;
}

std::string num(double v, int prec = 0) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  std::string s = os.str();
  if (prec == 0) {  // thousands separators for counts
    std::string out;
    int n = 0;
    for (size_t i = s.size(); i-- > 0;) {
      out.insert(out.begin(), s[i]);
      if (++n % 3 == 0 && i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) out.insert(out.begin(), ',');
    }
    return out;
  }
  return s;
}

struct StmtMeta {
  std::string label;
  int k = 0;
  uint32_t line = 0;
  uint64_t tuples = 0, scanned = 0, rows = 0, reps = 0;
  int run_part = 0, prep_part = 0;
  size_t run_map = 0, prep_map = 0;  // perf map lines at each dump
  std::string text;
  uint64_t run_cost = 0, prep_cost = 0;  // callgrind: instructions
};

struct Meta {
  long pid = 0;
  bool done = false;
  std::map<std::string, std::pair<uint64_t, uint64_t>> runs;  // label -> (repetitions, ns)
  std::vector<StmtMeta> stmts;
};

Meta read_meta(const std::string& path) {
  Meta m;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> v;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, '\t')) v.push_back(x);
    if (v.empty()) continue;
    if (v[0] == "pid" && v.size() > 1) m.pid = std::atol(v[1].c_str());
    else if (v[0] == "done") m.done = true;
    else if (v[0] == "run" && v.size() >= 4) m.runs[v[1]] = {std::stoull(v[2]), std::stoull(v[3])};
    else if (v[0] == "stmt" && v.size() >= 13) {
      StmtMeta s;
      s.label = v[1];
      s.k = std::atoi(v[2].c_str());
      s.line = uint32_t(std::atoi(v[3].c_str()));
      s.tuples = std::stoull(v[4]);
      s.scanned = std::stoull(v[5]);
      s.rows = std::stoull(v[6]);
      s.reps = std::stoull(v[7]);
      s.run_part = std::atoi(v[8].c_str());
      s.prep_part = std::atoi(v[9].c_str());
      s.run_map = size_t(std::stoull(v[10]));
      s.prep_map = size_t(std::stoull(v[11]));
      s.text = v[12];
      m.stmts.push_back(std::move(s));
    }
  }
  return m;
}

// One back end's profile, whatever measured it.
struct Line {
  RoutineInfo info;
  double count = 0;  // samples or instructions
  double share = 0;  // percent of the back end's total
  std::map<std::string, double> via;  // library routines: the kit routines that called them
};

// Library routine -> kit routine that called it -> cost.
using Via = std::map<CostKey, std::map<CostKey, double>>;

struct BackendProfile {
  std::string label;
  std::string method;  // "perf" or "callgrind"
  double total = 0;    // samples or instructions
  uint64_t executions = 0;
  uint64_t ns = 0;     // perf: wall time of the repetitions
  std::vector<StmtMeta> stmts;
  std::vector<Line> lines;  // by share, descending
  std::map<std::string, double> subsystems;  // percent, library routines charged to their callers
  std::map<std::string, double> self_subsystems;  // percent, each routine where it is
};

// `charged`: cost per subsystem with library routines charged to their callers.
void finish(BackendProfile& p, const std::map<CostKey, double>& raw, const std::map<std::string, double>& charged,
            const Via& via) {
  std::map<std::string, Line> by_name;
  for (const auto& [key, count] : raw) {
    RoutineInfo info = classify(key.symbol, key.dso, p.label);
    Line& l = by_name[info.name];
    if (l.info.name.empty()) l.info = info;
    l.count += count;
    if (auto it = via.find(key); it != via.end())
      for (const auto& [caller, v] : it->second) l.via[classify(caller.symbol, caller.dso, p.label).name] += v;
  }
  // Say where the biggest share of a library routine came from.
  for (auto& [n, l] : by_name) {
    double all = 0, best = 0;
    std::string from;
    for (const auto& [c, v] : l.via) {
      all += v;
      if (v > best) best = v, from = c;
    }
    if (!from.empty() && all > 0)
      l.info.what += "; " + (best >= 0.995 * all ? std::string("from ") : num(100.0 * best / all) + "% from ") + from;
  }
  p.total = 0;
  for (const auto& [n, l] : by_name) p.total += l.count;
  for (auto& [n, l] : by_name) {
    l.share = p.total > 0 ? 100.0 * l.count / p.total : 0;
    p.self_subsystems[l.info.subsystem] += l.share;
    p.lines.push_back(l);
  }
  for (const auto& [sub, v] : charged) p.subsystems[sub] = p.total > 0 ? 100.0 * v / p.total : 0;
  std::sort(p.lines.begin(), p.lines.end(), [](const Line& a, const Line& b) {
    return a.count != b.count ? a.count > b.count : a.info.name < b.info.name;
  });
}

// perf script's samples with their call chains (unwound from DWARF): each
// sample counts for the routine it hit and for the subsystem of the nearest
// kit routine on its chain (a memmove called by the output code is output).
bool perf_samples(const std::string& perf, const std::string& data, const std::string& dir,
                  const std::string& label, std::map<CostKey, double>& raw, std::map<std::string, double>& charged,
                  Via& via, std::string* err) {
  int status = 0;
  std::string out =
      capture({perf, "script", "-i", data, "-F", "ip,sym,dso", "--no-inline"}, dir, &status);
  if (status != 0) {
    *err = "perf script failed: " + last_line(slurp(dir + "/capture.err"));
    return false;
  }
  std::map<CostKey, std::string> sub;
  auto sub_of = [&](const CostKey& k) -> const std::string& {
    auto it = sub.find(k);
    if (it == sub.end()) it = sub.emplace(k, classify(k.symbol, k.dso, label).subsystem).first;
    return it->second;
  };
  // "\t    7f01ab12 symbol name (dso)"
  auto frame = [](const std::string& line, CostKey* k) {
    size_t a = line.find_first_not_of(" \t");
    if (a == std::string::npos) return false;
    size_t sp = line.find(' ', a);
    if (sp == std::string::npos) return false;
    std::string rest = line.substr(sp + 1);
    std::string dso;
    if (!rest.empty() && rest.back() == ')') {
      size_t open = rest.rfind(" (");
      if (open != std::string::npos) {
        dso = rest.substr(open + 2, rest.size() - open - 3);
        rest.resize(open);
      }
    }
    if (starts(dso, "[kernel")) dso = "[kernel]";
    if (has(dso, "/perf-") || starts(dso, "[JIT]") || dso == "//anon" || starts(dso, "[anon")) dso = "[JIT]";
    if (rest == "[unknown]" && dso == "[JIT]") rest = "[JIT] unnamed";
    *k = {dso, rest};
    return true;
  };
  std::stringstream in(out);
  std::string line;
  std::vector<CostKey> chain;
  auto flush = [&] {
    if (chain.empty()) return;
    raw[chain[0]] += 1;
    std::string s = "other";
    for (const auto& k : chain)
      if (sub_of(k) != "other") {
        s = sub_of(k);
        if (sub_of(chain[0]) == "other") via[chain[0]][k] += 1;
        break;
      }
    charged[s] += 1;
    chain.clear();
  };
  while (std::getline(in, line)) {
    CostKey k;
    if (line.find_first_not_of(" \t") == std::string::npos) flush();
    else if (frame(line, &k)) chain.push_back(std::move(k));
  }
  flush();
  return true;
}

// ===================================================================== printing

std::string pct(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << v << "%";
  return os.str();
}


std::string fit(std::string s, size_t w) {
  if (s.size() > w) s = s.substr(0, w - 1) + "~";
  return s;
}

double tuples_total(const BackendProfile& p) {
  double t = 0;
  for (const auto& s : p.stmts) t += double(s.tuples) * double(s.reps);
  return t;
}

// The counterpart of each Table 3 routine in one profile: sum of the lines of that role.
struct Counterpart {
  double share = 0;
  std::string names;
};
std::map<std::string, Counterpart> counterparts(const BackendProfile& p) {
  std::map<std::string, Counterpart> m;
  for (const auto& l : p.lines) {
    if (l.info.role.empty()) continue;
    Counterpart& c = m[l.info.role];
    c.share += l.share;
    if (c.names.empty() || (std::count(c.names.begin(), c.names.end(), '+') < 1 && l.share >= 0.05))
      c.names += (c.names.empty() ? "" : " + ") + l.info.name;
  }
  return m;
}

const char* kNoCounterpart[][2] = {
    {"READ", "none: pages are in memory"},
    {"GET", "inside the scan loop (inlined)"},
};

void print_table3(std::ostream& os, const BackendProfile& p, const char* unit) {
  auto cp = counterparts(p);
  os << "\n  beside the paper's Table 3 (1976 INGRES on a VAX 11/780, % of CPU time):\n";
  os << "    " << std::left << std::setw(11) << "INGRES" << std::right << std::setw(7) << "%" << "  " << std::left
     << std::setw(17) << "what" << "| quelkit " << p.label << std::right << "\n";
  for (const auto& r : paper_table3()) {
    os << "    " << std::left << std::setw(11) << r.name << std::right << std::setw(7) << pct(r.percent) << "  "
       << std::left << std::setw(17) << r.what << "| " << std::right;
    auto it = cp.find(r.name);
    if (it != cp.end() && it->second.share >= 0.05) {
      os << std::setw(6) << pct(it->second.share) << "  " << it->second.names << "\n";
    } else {
      const char* why = "not seen";
      for (const auto& n : kNoCounterpart)
        if (std::strcmp(n[0], r.name) == 0) why = n[1];
      os << std::setw(6) << "-" << "  " << why << "\n";
    }
  }
  double rest = 0;
  for (const auto& r : paper_table3()) rest += r.percent;
  os << "    (the paper's eight routines: " << pct(rest) << " of INGRES's time; here "
     << (std::strcmp(unit, "time") == 0 ? "% of sampled time" : "% of instructions") << ")\n";
}

void print_profile(std::ostream& os, const BackendProfile& p, const Options& o) {
  bool ins = p.method == "callgrind";
  os << "\n== " << p.label << " ";
  if (ins) {
    os << "-- " << num(p.total) << " instructions (callgrind; run phase only, " << o.reps
       << " evaluations per statement, preparation excluded)\n";
  } else {
    os << "-- " << num(p.total) << " cpu-clock samples (perf, " << o.freq << " Hz) over "
       << num(double(p.ns) / 1e9, 2) << " s: " << p.executions << " executions of the script"
       << (o.cold ? " (plan cache cleared each time)" : " (plan cache warm)");
    if (p.executions) os << ", " << num(double(p.ns) / double(p.executions) / 1e3, 1) << " us each";
    os << "\n";
  }
  for (const auto& s : p.stmts) {
    os << "   q" << s.k << " (line " << s.line << ") " << fit(s.text, 70) << "\n      " << s.tuples
       << (s.tuples == 1 ? " tuple" : " tuples") << ", " << s.scanned << " scanned, " << s.rows << " rows";
    if (ins) {
      double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
      os << "; " << num(per) << " instructions per execution, " << num(per / double(s.tuples), 1) << " per tuple";
      if (s.prep_part) os << "; cold preparation " << num(double(s.prep_cost)) << " instructions";
    }
    os << "\n";
  }
  double tt = tuples_total(p);
  os << "\n  " << std::setw(7) << (ins ? "% instr" : "% time");
  if (ins) os << std::setw(11) << "per tuple";
  os << "  " << std::left << std::setw(44) << "routine" << std::setw(17) << "subsystem" << "what it does" << std::right
     << "\n";
  int shown = 0;
  double rest = 0;
  int rest_n = 0;
  for (const auto& l : p.lines) {
    if (shown >= o.top || l.share < 0.05) {
      rest += l.share;
      ++rest_n;
      continue;
    }
    ++shown;
    os << "  " << std::setw(7) << pct(l.share);
    if (ins) os << std::setw(11) << num(tt > 0 ? l.count / tt : 0, 1);
    os << "  " << std::left << std::setw(44) << fit(l.info.name, 43) << std::setw(17) << l.info.subsystem << l.info.what
       << std::right << "\n";
  }
  if (rest_n) os << "  " << std::setw(7) << pct(rest) << "  (" << rest_n << " more routines)\n";
  os << "  by subsystem (library routines and the kernel charged to the kit routine calling them):\n   ";
  bool first = true;
  for (const char* sub : kSubsystems) {
    auto it = p.subsystems.find(sub);
    double v = it == p.subsystems.end() ? 0 : it->second;
    os << (first ? " " : ", ") << sub << " " << pct(v);
    first = false;
  }
  os << "\n";
  if (starts(p.label, "interp")) print_table3(os, p, ins ? "instructions" : "time");
}

std::string jstr(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o + "\"";
}

std::string jnum(double v, int prec = 3) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  std::string s = os.str();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

void print_json(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                const std::string& note) {
  os << "{\"tool\":\"quelkit profile\",\"method\":" << jstr(method)
     << ",\"unit\":" << jstr(method == "callgrind" ? "instructions" : "cpu-clock samples")
     << ",\"note\":" << (note.empty() ? "null" : jstr(note));
  if (method == "callgrind") os << ",\"reps\":" << o.reps;
  else os << ",\"freq\":" << o.freq << ",\"seconds\":" << jnum(o.seconds) << ",\"cold\":" << (o.cold ? "true" : "false");
  os << ",\"paper_table3\":[";
  for (size_t i = 0; i < paper_table3().size(); ++i) {
    const auto& r = paper_table3()[i];
    os << (i ? "," : "") << "{\"routine\":" << jstr(r.name) << ",\"percent\":" << jnum(r.percent)
       << ",\"what\":" << jstr(r.what) << "}";
  }
  os << "],\"backends\":[";
  for (size_t b = 0; b < ps.size(); ++b) {
    const BackendProfile& p = ps[b];
    auto c = p.label.find(':');
    double tt = tuples_total(p);
    os << (b ? "," : "") << "\n{\"backend\":" << jstr(p.label.substr(0, c))
       << ",\"mode\":" << jstr(c == std::string::npos ? "" : p.label.substr(c + 1)) << ",\"label\":" << jstr(p.label)
       << ",\"total\":" << jnum(p.total, 0);
    if (p.method == "callgrind") os << ",\"instructions_per_tuple\":" << jnum(tt > 0 ? p.total / tt : 0, 3);
    else os << ",\"executions\":" << p.executions << ",\"ns\":" << p.ns;
    os << ",\"statements\":[";
    for (size_t i = 0; i < p.stmts.size(); ++i) {
      const auto& s = p.stmts[i];
      os << (i ? "," : "") << "{\"stmt\":" << s.k << ",\"line\":" << s.line << ",\"text\":" << jstr(s.text)
         << ",\"tuples\":" << s.tuples << ",\"rows_scanned\":" << s.scanned << ",\"rows_out\":" << s.rows;
      if (p.method == "callgrind") {
        double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
        os << ",\"reps\":" << s.reps << ",\"instructions\":" << s.run_cost
           << ",\"instructions_per_execution\":" << jnum(per, 3)
           << ",\"instructions_per_tuple\":" << jnum(per / double(s.tuples), 3)
           << ",\"prepare_instructions\":" << (s.prep_part ? std::to_string(s.prep_cost) : "null");
      }
      os << "}";
    }
    os << "],\"routines\":[";
    for (size_t i = 0; i < p.lines.size(); ++i) {
      const Line& l = p.lines[i];
      os << (i ? "," : "") << "\n {\"routine\":" << jstr(l.info.name) << ",\"percent\":" << jnum(l.share, 4)
         << ",\"count\":" << jnum(l.count, 0);
      if (p.method == "callgrind") os << ",\"per_tuple\":" << jnum(tt > 0 ? l.count / tt : 0, 4);
      os << ",\"subsystem\":" << jstr(l.info.subsystem) << ",\"role\":" << jstr(l.info.role)
         << ",\"what\":" << jstr(l.info.what) << "}";
    }
    os << "],\"subsystems\":{";
    bool first = true;
    for (const char* sub : kSubsystems) {
      auto it = p.subsystems.find(sub);
      os << (first ? "" : ",") << jstr(sub) << ":" << jnum(it == p.subsystems.end() ? 0 : it->second, 4);
      first = false;
    }
    os << "},\"subsystems_self\":{";
    first = true;
    for (const char* sub : kSubsystems) {
      auto it = p.self_subsystems.find(sub);
      os << (first ? "" : ",") << jstr(sub) << ":" << jnum(it == p.self_subsystems.end() ? 0 : it->second, 4);
      first = false;
    }
    os << "}";
    if (starts(p.label, "interp")) {
      auto cp = counterparts(p);
      os << ",\"table3\":[";
      for (size_t i = 0; i < paper_table3().size(); ++i) {
        const auto& r = paper_table3()[i];
        auto it = cp.find(r.name);
        os << (i ? "," : "") << "{\"routine\":" << jstr(r.name) << ",\"paper_percent\":" << jnum(r.percent)
           << ",\"percent\":" << jnum(it == cp.end() ? 0 : it->second.share, 4)
           << ",\"counterpart\":" << jstr(it == cp.end() ? "" : it->second.names) << "}";
      }
      os << "]";
    }
    os << "}";
  }
  os << "]}\n";
}

// ===================================================================== drivers

// The children's files; --keep copies them out before they go.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/quelkit-profile-XXXXXX";
    if (mkdtemp(t)) path = t;
  }
  ~TempDir() {
    if (path.empty()) return;
    // Every file in it is ours (the tools wrote them at our request).
    if (DIR* d = opendir(path.c_str())) {
      std::vector<std::string> names;
      while (dirent* e = readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
      closedir(d);
      for (const auto& n : names) std::remove((path + "/" + n).c_str());
    }
    rmdir(path.c_str());
  }
};

std::vector<std::string> child_args(const std::vector<std::string>& args, size_t i, const std::string& kind,
                                    const std::string& dir) {
  std::vector<std::string> v = {exe_path(), "profile", "--child=" + kind, "--child-dir=" + dir};
  // The child gets its back end from --child-backend; leaving the list out
  // keeps its heap, and so its instruction counts, independent of the others.
  for (size_t j = i; j < args.size(); ++j) {
    if (args[j] == "-b" || args[j] == "--backend") {
      ++j;
      continue;
    }
    if (starts(args[j], "--backend=")) continue;
    v.push_back(args[j]);
  }
  return v;
}

// Counts instructions under callgrind for every back end. Returns false (with
// *err) if valgrind could not run the child.
std::string file_tag(const std::string& label) {
  std::string tag;
  for (char c : label) tag += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return tag;
}

// Counts instructions under callgrind, one valgrind child per back end (so a
// back end's counts do not depend on which others were asked for). Returns
// false (with *err) if valgrind could not run a child.
bool run_callgrind(const std::vector<std::string>& args, size_t i, const std::string& dir,
                   const std::vector<std::string>& labels, std::vector<BackendProfile>& out, std::string* err) {
  if (!on_path("valgrind")) {
    *err = "valgrind is not installed (Debian package valgrind; ./kit profile installs it)";
    return false;
  }
  for (const auto& label : labels) {
    std::string tag = file_tag(label), cg = dir + "/callgrind." + tag + ".out", log = dir + "/valgrind." + tag + ".log";
    std::vector<std::string> argv = {"valgrind",
                                     "--tool=callgrind",
                                     "--instr-atstart=no",
                                     "--collect-atstart=no",
                                     "--dump-instr=yes",
                                     "--dump-line=no",
                                     "--compress-strings=no",
                                     "--compress-pos=no",
                                     "--smc-check=all-non-file",
                                     "--callgrind-out-file=" + cg,
                                     "--log-file=" + log};
    for (auto& a : child_args(args, i, "callgrind", dir)) argv.push_back(a);
    argv.push_back("--child-backend=" + label);
    std::string errf = dir + "/child." + tag + ".err";
    int rc = run(argv, dir + "/child." + tag + ".out", errf);
    Meta m = read_meta(dir + "/meta." + label);
    std::string map_file = m.pid ? perfmap_path(m.pid) : "";
    if (rc != 0 || !m.done) {
      std::string msgs = child_messages(errf);
      if (m.pid == 0) msgs += last_line(slurp(log));
      *err = msgs.empty() ? "valgrind failed (exit " + std::to_string(rc) + ")" : msgs;
      if (m.pid) std::remove(map_file.c_str());
      return false;
    }
    std::map<CostKey, double> raw;
    std::map<std::pair<CostKey, CostKey>, double> calls;
    BackendProfile p;
    p.label = label;
    p.method = "callgrind";
    for (StmtMeta& s : m.stmts) {
      CallgrindPart run, prep;
      if (!read_callgrind(cg + "." + std::to_string(s.run_part), read_perf_map(map_file, s.run_map), run) ||
          (s.prep_part && !read_callgrind(cg + "." + std::to_string(s.prep_part), read_perf_map(map_file, s.prep_map),
                                          prep))) {
        std::remove(map_file.c_str());
        *err = "callgrind wrote no profile for " + s.label + " q" + std::to_string(s.k);
        return false;
      }
      s.run_cost = run.total;
      s.prep_cost = prep.total;
      for (const auto& [k, v] : run.self) raw[k] += double(v);
      for (const auto& [e, v] : run.calls) calls[e] += double(v);
      p.stmts.push_back(s);
    }
    std::remove(map_file.c_str());
    // Library routines called straight from kit code: who called them.
    Via via;
    std::map<CostKey, bool> kit;
    auto is_kit = [&](const CostKey& k) {
      auto it = kit.find(k);
      if (it == kit.end()) it = kit.emplace(k, classify(k.symbol, k.dso, label).subsystem != "other").first;
      return it->second;
    };
    for (const auto& [e, v] : calls)
      if (is_kit(e.first) && !is_kit(e.second)) via[e.second][e.first] += v;
    finish(p, raw, charge_subsystems(raw, calls, label), via);
    out.push_back(std::move(p));
  }
  return true;
}

// Samples one back end under perf record. Returns 1 ok, 0 sampling
// unavailable (*err says why), -1 the script failed (*err has its messages).
int run_perf(const std::vector<std::string>& args, size_t i, const std::string& dir, const std::string& label,
             const Options& o, BackendProfile& out, std::string* err) {
  std::string tag = file_tag(label);
  std::string data = dir + "/perf." + tag + ".data", ctl = dir + "/ctl." + tag, ack = dir + "/ack." + tag;
  if (mkfifo(ctl.c_str(), 0600) != 0 || mkfifo(ack.c_str(), 0600) != 0) {
    *err = std::string("cannot make perf's control fifos: ") + std::strerror(errno);
    return 0;
  }
  // Unprivileged with perf_event_paranoid 2 may sample only user space
  // (cpu-clock:u); 3 (Debian's default) forbids it: perf record then fails.
  std::string event = "cpu-clock";
  if (geteuid() != 0) {
    std::ifstream pf("/proc/sys/kernel/perf_event_paranoid");
    int paranoid = 2;
    pf >> paranoid;
    if (paranoid >= 2) event += ":u";
  }
  std::vector<std::string> argv = {o.perf, "record", "-e", event, "-F", std::to_string(o.freq),
                                   "--call-graph", "dwarf,4096", "-D", "-1", "--control", "fifo:" + ctl + "," + ack,
                                   "-o", data, "--"};
  for (auto& a : child_args(args, i, "perf", dir)) argv.push_back(a);
  argv.push_back("--child-backend=" + label);
  argv.push_back("--ctl=" + ctl);
  argv.push_back("--ack=" + ack);
  std::string errf = dir + "/child." + tag + ".err";
  int rc = run(argv, dir + "/child." + tag + ".out", errf);
  Meta m = read_meta(dir + "/meta." + label);
  if (m.pid == 0) {  // the child never started: perf could not record here
    std::string why = last_line(slurp(errf));
    *err = rc == -1 ? "perf could not be started" : "perf record failed" + (why.empty() ? "" : ": " + why);
    return 0;
  }
  if (!m.done) {
    *err = child_messages(errf);
    std::remove(perfmap_path(m.pid).c_str());
    return -1;
  }
  std::map<CostKey, double> raw;
  std::map<std::string, double> charged;
  Via via;
  bool ok = perf_samples(o.perf, data, dir, label, raw, charged, via, err);
  std::remove(perfmap_path(m.pid).c_str());
  if (!ok) return 0;
  double total = 0;
  for (const auto& [k, v] : raw) total += v;
  if (total <= 0) {
    *err = "perf recorded no samples";
    return 0;
  }
  out.label = label;
  out.method = "perf";
  out.executions = m.runs[label].first;
  out.ns = m.runs[label].second;
  for (const auto& s : m.stmts)
    if (s.label == label) out.stmts.push_back(s);
  finish(out, raw, charged, via);
  if (o.keep.empty()) std::remove(data.c_str());  // tens of megabytes of stacks
  return 1;
}

}  // namespace

int profile_main(const std::vector<std::string>& args, size_t i) {
  register_all_backends();
  Options o = parse_options(args, i);
  if (o.child == "perf") return child_perf(o);
  if (o.child == "callgrind") return child_callgrind(o);
  if (!o.child.empty()) usage_error("--child must be perf or callgrind");

  std::vector<std::pair<std::string, std::string>> labels;
  try {
    labels = backend_list(o);
  } catch (QuelError& e) {
    usage_error(e.err.message);
  }
  for (const auto& [name, what] : o.scripts)
    if (name.empty() && access(what.c_str(), R_OK) != 0)
      usage_error("cannot open " + what + ": " + std::strerror(errno));

  TempDir dir;
  if (dir.path.empty()) {
    std::cerr << "quelkit profile: error: cannot make a temporary directory in /tmp\n";
    return 1;
  }

  std::vector<BackendProfile> profiles;
  std::string note, method = o.instructions ? "callgrind" : "perf";
  if (!o.instructions) {
    std::string why;
    if (!on_path(o.perf))
      why = o.perf + " is not installed (Debian package linux-perf; ./kit profile installs it)";
    for (const auto& [name, mode] : labels) {
      if (!why.empty()) break;
      BackendProfile p;
      std::string err;
      int r = run_perf(args, i, dir.path, name + ":" + mode, o, p, &err);
      if (r < 0) {
        std::cerr << err << "quelkit profile: the script failed under " << name << ":" << mode << "\n";
        return 1;
      }
      if (r == 0) {
        why = err;
        profiles.clear();
        break;
      }
      profiles.push_back(std::move(p));
      if (!o.json) std::cerr << "quelkit profile: sampled " << name << ":" << mode << "\n";
    }
    if (!why.empty()) {
      note = "sampling is not available here (" + why +
             "); falling back to callgrind: shares below are of instructions, not time";
      std::cerr << "quelkit profile: " << note << "\n";
      method = "callgrind";
    }
  }
  if (method == "callgrind") {
    std::string err;
    std::vector<std::string> names;
    for (const auto& [name, mode] : labels) names.push_back(name + ":" + mode);
    if (!run_callgrind(args, i, dir.path, names, profiles, &err)) {
      std::cerr << err << (err.empty() || err.back() == '\n' ? "" : "\n")
                << "quelkit profile: counting instructions failed\n";
      return 1;
    }
  }
  if (!o.keep.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.keep, ec);
    std::filesystem::copy(dir.path, o.keep,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                          ec);
    if (ec) std::cerr << "quelkit profile: could not copy the raw files to " << o.keep << ": " << ec.message() << "\n";
  }

  if (o.json) {
    print_json(std::cout, profiles, o, method, note);
    return 0;
  }
  std::cout << "quelkit profile: " << (method == "perf" ? "cpu-clock sampling (perf record)" : "instruction counts (callgrind)")
            << "; machine: " << machine_description() << "\n";
  if (method == "perf")
    std::cout << "each execution: parse, bind, evaluate" << (o.format == OutFormat::None ? "" : ", format the rows (to /dev/null)")
              << "; statements that change the database are evaluated, not applied\n";
  else
    std::cout << "run phase only: " << o.reps << " warm evaluations per statement (plan cache warm, every prepare() "
              << "excluded);\nper tuple = instructions / (evaluations x tuples in the statement's largest relation)\n";
  if (!note.empty()) std::cout << note << "\n";
  for (const auto& p : profiles) print_profile(std::cout, p, o);
  if (method == "callgrind" && profiles.size() > 1) {
    // Instructions per tuple, statements across, back ends down.
    std::cout << "\ninstructions per tuple (run phase)\n  " << std::left << std::setw(18) << "back end" << std::right;
    for (const auto& s : profiles[0].stmts) std::cout << std::setw(12) << ("q" + std::to_string(s.k));
    std::cout << std::setw(14) << "all\n";
    for (const auto& p : profiles) {
      std::cout << "  " << std::left << std::setw(18) << p.label << std::right;
      for (const auto& s : p.stmts)
        std::cout << std::setw(12) << num(double(s.run_cost) / double(s.reps) / double(s.tuples), 1);
      double tt = tuples_total(p);
      std::cout << std::setw(13) << num(tt > 0 ? p.total / tt : 0, 1) << "\n";
    }
  }
  return 0;
}

}  // namespace quelkit::profile
