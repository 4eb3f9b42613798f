// Binding generated text (bind.h): the one place difftest asks for types.
#include "difftest/bind.h"

#include <stdexcept>

namespace quelkit::difftest {

frontend::RangeTable ranges_of(const std::vector<GVar>& vars) {
  frontend::RangeTable r;
  for (const auto& v : vars) r.set(v.name, v.relation);
  return r;
}

BoundText bind_query(const GQuery& q, const CatalogView& catalog, const std::string& prefix) {
  BoundText b;
  b.src = std::make_shared<Source>("difftest.quel", prefix + q.statement_text());
  auto stmts = frontend::parse(b.src);
  if (stmts.size() != 1) throw std::runtime_error("difftest: generated text is not one statement");
  b.query = frontend::bind(*stmts[0], ranges_of(q.vars), catalog, b.src);
  return b;
}

ir::NodePtr bind_expr(const GNode& e, const std::vector<GVar>& vars, const CatalogView& catalog) {
  auto src = std::make_shared<Source>("difftest.quel", "retrieve (x = " + quel_text(e) + ")");
  std::vector<frontend::ast::StmtPtr> stmts;
  try {
    stmts = frontend::parse(src);
  } catch (QuelError&) {
    return nullptr;
  }
  frontend::ast::Stmt& s = *stmts[0];
  const frontend::RangeTable ranges = ranges_of(vars);
  // Try first what the written operator suggests (a comparison or a logical
  // operator is likely a condition); the binder decides.
  bool condition = e.kind == GNode::Op && (ir::generic_info(e.op).cls == ir::Class::Compare ||
                                           ir::generic_info(e.op).cls == ir::Class::Logic);
  for (int attempt = 0; attempt < 2; ++attempt, condition = !condition) {
    if (condition && !s.targets.empty()) {
      s.where = std::move(s.targets[0].expr);
      s.targets.clear();
    } else if (!condition && s.targets.empty()) {
      frontend::ast::Target t;
      t.name = "x";
      t.expr = std::move(s.where);
      s.targets.push_back(std::move(t));
    }
    try {
      frontend::BoundQuery q = frontend::bind(s, ranges, catalog, src);
      return condition ? std::move(q.qual) : std::move(q.targets[0].expr);
    } catch (QuelError&) {
    }
  }
  return nullptr;
}

}  // namespace quelkit::difftest
