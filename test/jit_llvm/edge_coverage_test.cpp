// The edge query list (edge_queries.h) reaches every typed operator of the
// catalogue: the JIT and stencil differential suites that run it test a new
// catalogue row only if some query there binds to it, so this test names the
// rows no query reaches. It binds the queries (no back end needed) and walks
// their typed IR, unfolded, as the binder leaves it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test/jit_llvm/edge_queries.h"
#include "test/jit_llvm/support.h"
#include "test/quel_plan.h"

namespace quelkit::test {
namespace {

void collect(const ir::Node& n, std::set<ir::Op>& seen) {
  seen.insert(n.op);
  for (const auto& k : n.kid)
    if (k) collect(*k, seen);
}

TEST(EdgeQueries, ReachEveryTypedOperator) {
  auto rel = edge_relation();
  const Schema& edge = rel->schema();
  QuelPlan q("t", edge);
  q.params("v", edge);
  std::set<ir::Op> seen;
  for (const char* text : kEdgeQueries) {
    frontend::BoundQuery b = q.bind(text);
    if (b.qual) collect(*b.qual, seen);
    for (const auto& t : b.targets) collect(*t.expr, seen);
  }
  std::string missing;
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::Op op = ir::Op(i);
    if (ir::class_of(op) != ir::Class::Leaf && !seen.count(op)) missing += std::string(" ") + ir::op_name(op);
  }
  EXPECT_EQ(missing, "") << "add queries to test/jit_llvm/edge_queries.h that bind to these";
}

}  // namespace
}  // namespace quelkit::test
