// The harness's side of code generated on first use (Prepared::entries,
// PrepareTimes::lazy_ns): a back end that prepares a fused kernel only, as
// llvm:fused and gccjit:fused do, makes its per-tuple functions when a
// statement first asks for them to drive it tuple by tuple, before any is
// called, and that compile is counted as prepare time in --stats, never as
// run time. A fake back end makes the counting exact: its "compile" reports
// fixed phase and wall times.
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

constexpr uint64_t kLazyWallNs = 7'000'000'000;  // what the fake compile says it took

class DeferringPlan final : public Prepared {
 public:
  Entries entries(Use use, Selection) override {
    Entries e;
    e.state = this;
    if (use != Use::Tuple) return e;  // no page kernel: the scan asks for tuple functions
    if (!made_) {
      made_ = true;
      ++tuple_functions_made;
      times.irgen_ns += 1000;
      times.opt_ns += 2000;
      times.codegen_ns += 3000;
      times.lazy_ns += kLazyWallNs;
    }
    e.qualify = &qualify;
    e.project = &project;
    return e;
  }

 private:
  static int32_t qualify(const uint8_t*, qk_ctx* ctx) {
    EXPECT_TRUE(static_cast<DeferringPlan*>(ctx->plan)->made_) << "qualify called before it was made";
    return 1;
  }
  static int32_t project(const uint8_t*, uint8_t*, qk_ctx* ctx) {
    EXPECT_TRUE(static_cast<DeferringPlan*>(ctx->plan)->made_) << "project called before it was made";
    return 0;
  }
  bool made_ = false;
};

class DeferringBackend final : public Backend {
 public:
  bool reuses_plans() const override { return true; }
  std::unique_ptr<Prepared> prepare(const Plan&, const uint8_t*) override {
    auto p = std::make_unique<DeferringPlan>();
    p->times = {10, 20, 30, 0};  // the kernel's compile
    return p;
  }
};

TEST(DeferredTupleFunctions, MadeOnceAndCountedAsPrepare) {
  register_backend(BackendSpec{"deferring", {{"fused"}}, {}, [](const std::string&, const PrepareOptions&) {
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
  // The generation's wall time is prepare: the run clock is the statement's
  // wall time less prepare, so it would otherwise be charged to running.
  EXPECT_GE(first.prepare_ns, kLazyWallNs);
  EXPECT_LT(first.run_ns, kLazyWallNs);
  const ExecStats& second = s.reports()[1].stats;  // from the cache: nothing left to make
  EXPECT_EQ(second.cache_hits, 1u);
  EXPECT_EQ(second.irgen_ns + second.opt_ns + second.codegen_ns, 0u);
  EXPECT_LT(second.prepare_ns, kLazyWallNs);
  EXPECT_EQ(tuple_functions_made, 1);
}

}  // namespace
}  // namespace quelkit::test
