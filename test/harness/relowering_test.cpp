// What --stats calls prepare for a back end without plan reuse (the 1976
// interpreter's design): it lowers a substituted query again for every
// substituted tuple, and only a statement's first lowering of each plan is
// prepare time; the lowerings after it are the design's execution, on the run
// clock (docs/stats.md). A fake back end whose "lowering" sleeps a fixed time
// makes the split checkable: the fake measures its own sleeps, and prepare
// must hold every first lowering's sleep and less than half of the later
// ones'. A later lowering sleeps ten times as long as a first one, so the one
// upper bound has hundreds of milliseconds of slack for the harness's own
// work, however loaded the machine is.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "engine/backend.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit::test {
namespace {

using namespace harness;

constexpr auto kFirstLowering = std::chrono::milliseconds(1);
constexpr auto kLaterLowering = std::chrono::milliseconds(10);
int lowerings = 0;
std::set<std::string> plans_lowered;
uint64_t first_slept_ns = 0, later_slept_ns = 0;  // as measured by the fake

uint64_t sleep_measured(std::chrono::milliseconds d) {
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(d);
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
}

class EveryTuplePlan final : public Prepared {
 public:
  Entries entries(Use use, Selection) override {
    Entries e;
    if (use == Use::Tuple) {
      e.qualify = [](const uint8_t*, qk_ctx*) -> int32_t { return 1; };
      e.project = [](const uint8_t*, uint8_t*, qk_ctx*) -> int32_t { return 0; };
    }
    return e;
  }
};

class LoweringBackend final : public Backend {
 public:
  bool reuses_plans() const override { return false; }
  std::unique_ptr<Prepared> prepare(const Plan& plan, const uint8_t*) override {
    ++lowerings;
    if (plans_lowered.insert(plan.key).second)
      first_slept_ns += sleep_measured(kFirstLowering);
    else
      later_slept_ns += sleep_measured(kLaterLowering);
    return std::make_unique<EveryTuplePlan>();
  }
};

TEST(Relowering, OnlyAStatementsFirstLoweringOfAPlanIsPrepare) {
  register_backend(BackendSpec{"lowering", {{"switch", false}}, {}, [](const std::string&, const PrepareOptions&) {
                                 return std::unique_ptr<Backend>(std::make_unique<LoweringBackend>());
                               }});
  SessionOptions o;
  o.backends = parse_backend_list("lowering");
  o.format = OutFormat::None;
  std::ostringstream out, err;
  Session s(o, out, err);
  s.catalog().add(make_parts(40, false, Structure::Heap));
  // A join: one variable detached, the other substituted once per outer tuple.
  const std::string join = "range of p is parts\nrange of q is parts\n"
                           "retrieve (p.pnum, q.pnum) where p.pnum = q.pnum\n";
  for (int statement = 0; statement < 2; ++statement) {
    lowerings = 0;
    plans_lowered.clear();
    first_slept_ns = later_slept_ns = 0;
    ASSERT_TRUE(s.run(std::make_shared<Source>("t.quel", join))) << err.str();
    const ExecStats& st = s.reports().back().stats;
    const uint64_t again = uint64_t(lowerings) - plans_lowered.size();
    ASSERT_GE(again, 30u) << "the join did not substitute once per outer tuple";
    EXPECT_EQ(st.prepares, uint64_t(lowerings));
    EXPECT_EQ(st.cache_hits, 0u);
    // Each plan's first lowering is prepare; every later one is run time.
    EXPECT_GE(st.prepare_ns, first_slept_ns);
    EXPECT_LT(st.prepare_ns, first_slept_ns + later_slept_ns / 2);
    EXPECT_GE(st.run_ns, later_slept_ns);
  }
}

}  // namespace
}  // namespace quelkit::test
