// libFuzzer target over the front end: lexer, parser, binder and fold pass.
// Any input either parses, binds and folds or yields a QuelError; never a
// crash, a hang, another exception or a sanitizer report. The catalog holds
// PARTS and EDGE (one attribute of every format) and grows with `create`;
// `range` statements are honoured, so names resolve as in a session.
// Built with -fsanitize=fuzzer by `./kit fuzz` (-DQUELKIT_FUZZ=ON); every
// other build links it with replay_main.cpp into test_fuzz_replay, which runs
// the seed corpus and the corpus of queries as a test.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "frontend/frontend.h"
#include "frontend/ir.h"

namespace {

using namespace quelkit;

class FuzzCatalog final : public CatalogView {
 public:
  FuzzCatalog() {
    add("parts", {{"pnum", Type::i2()}, {"pname", Type::c(20)}, {"color", Type::c(8)}, {"weight", Type::i2()},
                  {"qoh", Type::i2()}});
    add("edge", {{"id", Type::i2()}, {"i1", Type::i1()}, {"i2", Type::i2()}, {"i4", Type::i4()}, {"f4", Type::f4()},
                 {"f8", Type::f8()}, {"c1", Type::c(1)}, {"c255", Type::c(255)}});
  }
  const Schema* find_schema(std::string_view r) const override {
    auto it = rels_.find(lowercase(r));
    return it == rels_.end() ? nullptr : &it->second;
  }
  void add(const std::string& name, const std::vector<std::pair<std::string, Type>>& cols) {
    rels_[lowercase(name)] = Schema::packed(cols);
  }

 private:
  std::map<std::string, Schema> rels_;
};

void exercise(const ir::Node& n) {
  ir::NodePtr f = frontend::fold(n);
  volatile size_t sink = ir::shape(*f).size() + ir::dump(n).size();
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto src = std::make_shared<Source>("fuzz.quel", std::string(reinterpret_cast<const char*>(data), size));
  std::vector<frontend::ast::StmtPtr> stmts;
  try {
    stmts = frontend::parse(src);
  } catch (QuelError& e) {
    volatile size_t n = e.err.format().size();
    (void)n;
    return 0;
  }
  FuzzCatalog cat;
  frontend::RangeTable ranges;
  for (const auto& s : stmts) {
    volatile size_t n = frontend::dump_ast(*s).size();
    (void)n;
    try {
      switch (s->kind) {
        case frontend::ast::Stmt::Range:
          if (cat.find_schema(s->relation)) ranges.set(s->var, lowercase(s->relation));
          break;
        case frontend::ast::Stmt::Create: {
          std::vector<std::pair<std::string, Type>> cols;
          for (const auto& c : s->columns)
            if (auto t = parse_format(c.format)) cols.emplace_back(c.name, *t);
          if (!cols.empty() && !cat.find_schema(s->relation)) cat.add(s->relation, cols);
          break;
        }
        case frontend::ast::Stmt::Retrieve:
        case frontend::ast::Stmt::Append:
        case frontend::ast::Stmt::Replace:
        case frontend::ast::Stmt::Delete: {
          frontend::BoundQuery q = frontend::bind(*s, ranges, cat, src);
          if (q.qual) exercise(*q.qual);
          for (const auto& t : q.targets) exercise(*t.expr);
          break;
        }
        default: break;
      }
    } catch (QuelError& e) {
      volatile size_t m = e.err.format().size();
      (void)m;
    }
  }
  return 0;
}
