// libFuzzer target over whole statements: parse, bind, decompose, prepare and
// run on the interpreter and the threaded back end (every back end built
// without LLVM/gccjit), over a small PARTS and EDGE. Any input runs or yields
// an error: never a crash, an uncaught exception or a sanitizer report.
// `copy` is not run (it writes files); relations are capped at a few hundred
// tuples and statements at two variables so every input stays fast.
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "backends/backends.h"
#include "frontend/frontend.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace {

using namespace quelkit;

void vars(const frontend::ast::Expr& e, std::set<std::string>& out) {
  if (e.kind == frontend::ast::Expr::Attr) out.insert(e.text);
  for (const auto& a : e.args) vars(*a, out);
}

const char* kEdge = R"(create edge (id = i2, i1 = i1, i2 = i2, i4 = i4, f4 = f4, f8 = f8, c1 = c1, c12 = c12)
append to edge (id = 1, i1 = -128, i2 = -32767 - 1, i4 = -2147483647 - 1, f4 = -3.4e38, f8 = -0.0, c1 = "*", c12 = "")
append to edge (id = 2, i1 = 127, i2 = 32767, i4 = 2147483647, f4 = 1e-45, f8 = 5e-324, c1 = "a", c12 = "a[b]c\\")
append to edge (id = 3, i1 = 0, i2 = 1, i4 = 46341, f4 = 0.1, f8 = 1e300, c1 = " ", c12 = "abc  ")
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool once = (register_all_backends(), true);
  (void)once;
  std::ostringstream out, err;
  harness::SessionOptions o;
  o.backends = harness::parse_backend_list("all");
  o.format = harness::OutFormat::None;
  o.page_size = 256;
  harness::Session s(o, out, err);
  s.catalog().add(harness::make_parts(5, false, harness::Structure::Heap, o.page_size));
  s.run(std::make_shared<Source>("setup", kEdge));
  auto src = std::make_shared<Source>("fuzz.quel", std::string(reinterpret_cast<const char*>(data), size));
  std::vector<frontend::ast::StmtPtr> stmts;
  try {
    stmts = frontend::parse(src);
  } catch (QuelError&) {
    return 0;
  }
  for (const auto& st : stmts) {
    if (st->kind == frontend::ast::Stmt::Copy) continue;
    std::set<std::string> vs;
    for (const auto& t : st->targets) vars(*t.expr, vs);
    if (st->where) vars(*st->where, vs);
    if (vs.size() > 2) continue;
    s.run_statement(*st, src);
    for (const auto& name : s.catalog().names())
      if (s.catalog().find(name)->ntuples() > 300) return 0;
  }
  return 0;
}
