// The harness's side of deferred per-tuple functions (Prepared::
// tuple_functions_pending): a back end that prepares a fused kernel only, as
// llvm:fused and gccjit:fused do, is asked to make its per-tuple functions
// before a statement drives it tuple by tuple, and that compile is counted as
// prepare time in --stats, never as run time. A fake back end makes the
// counting exact: its "compile" reports fixed phase times.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "engine/backend.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit::test {
namespace {

using namespace harness;

int tuple_functions_made = 0;

class DeferringPlan final : public Prepared {
 public:
  int qualify(const uint8_t*, qk_ctx*) override {
    EXPECT_TRUE(made_) << "qualify called before make_tuple_functions";
    return 1;
  }
  int project(const uint8_t*, uint8_t*, qk_ctx*) override {
    EXPECT_TRUE(made_) << "project called before make_tuple_functions";
    return 0;
  }
  bool tuple_functions_pending() const override { return !made_; }
  void make_tuple_functions() override {
    made_ = true;
    ++tuple_functions_made;
    times.irgen_ns += 1000;
    times.opt_ns += 2000;
    times.codegen_ns += 3000;
  }

 private:
  bool made_ = false;
};

class DeferringBackend final : public Backend {
 public:
  bool reuses_plans() const override { return true; }
  std::unique_ptr<Prepared> prepare(const Plan&, const uint8_t*) override {
    auto p = std::make_unique<DeferringPlan>();
    p->times = {10, 20, 30};  // the kernel's compile
    return p;
  }
};

TEST(DeferredTupleFunctions, MadeOnceAndCountedAsPrepare) {
  register_backend(BackendSpec{"deferring", {"fused"}, {}, [](const std::string&, const PrepareOptions&) {
                                 return std::unique_ptr<Backend>(std::make_unique<DeferringBackend>());
                               }});
  SessionOptions o;
  o.backends = parse_backend_list("deferring");
  o.format = OutFormat::None;
  std::ostringstream out, err;
  Session s(o, out, err);
  s.catalog().add(make_parts(210, false, Structure::Heap));
  // delete drives the plan tuple by tuple (it needs tids), twice on one cached plan.
  ASSERT_TRUE(s.run(std::make_shared<Source>("t.quel", "range of p is parts\ndelete p where p.pnum > 100\n"
                                                       "delete p where p.pnum > 100")))
      << err.str();
  ASSERT_EQ(s.reports().size(), 2u);
  const ExecStats& first = s.reports()[0].stats;
  EXPECT_EQ(first.prepares, 1u);
  EXPECT_EQ(first.irgen_ns, 1010u);
  EXPECT_EQ(first.opt_ns, 2020u);
  EXPECT_EQ(first.codegen_ns, 3030u);
  const ExecStats& second = s.reports()[1].stats;  // from the cache: nothing left to make
  EXPECT_EQ(second.cache_hits, 1u);
  EXPECT_EQ(second.irgen_ns + second.opt_ns + second.codegen_ns, 0u);
  EXPECT_EQ(tuple_functions_made, 1);
}

}  // namespace
}  // namespace quelkit::test
