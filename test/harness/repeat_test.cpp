// --repeat K runs a retrieve K times, and a retrieve with aggregates is its
// aggregates' inner queries and then the statement they rewrote: every
// repetition runs both (once they ran in the first run only, and each
// repetition added that cold run's time). A fake back end counts the tuples
// its qualification is asked about, so the check times nothing.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "bench/workloads/parts.h"
#include "engine/backend.h"
#include "engine/session.h"

namespace quelkit::test {
namespace {

using namespace harness;

int qualified = 0;

class CountingPlan final : public Prepared {
 public:
  Entries entries(Use use, Selection) override {
    Entries e;
    if (use == Use::Tuple) {
      e.qualify = [](const uint8_t*, qk_ctx*) -> int32_t {
        ++qualified;
        return 1;
      };
      e.project = [](const uint8_t*, uint8_t*, qk_ctx*) -> int32_t { return 0; };
    }
    return e;
  }
};

class CountingBackend final : public Backend {
 public:
  bool reuses_plans() const override { return true; }
  std::unique_ptr<Prepared> prepare(const Plan&, const uint8_t*) override { return std::make_unique<CountingPlan>(); }
};

TEST(Repeat, EveryRepetitionRunsTheStatementsAggregates) {
  register_backend(BackendSpec{"counting", {{"tuple", false}}, {}, [](const std::string&, const PrepareOptions&) {
                                 return std::unique_ptr<Backend>(std::make_unique<CountingBackend>());
                               }});
  SessionOptions o;
  o.backends = parse_backend_list("counting");
  o.format = OutFormat::None;
  o.repeat = 3;
  std::ostringstream out, err;
  Session s(o, out, err);
  s.catalog().add(make_parts(40, false, Structure::Heap));
  // Per run: the 40 tuples of parts, and for an aggregate the one-tuple outer
  // query over no relation that its value is put into.
  for (auto [q, per_run] : {std::pair{"retrieve (p.pnum)", 40}, std::pair{"retrieve (n = count(p.pnum))", 41},
                            std::pair{"retrieve (n = count(p.pnum where p.qoh > 0))", 41}}) {
    qualified = 0;
    ASSERT_TRUE(s.run(std::make_shared<Source>("t.quel", std::string("range of p is parts\n") + q + "\n"))) << err.str();
    EXPECT_EQ(qualified, 3 * per_run) << q;
    EXPECT_EQ(s.reports().back().runs, 3) << q;
  }
}

}  // namespace
}  // namespace quelkit::test
