// Errors inside a batch. Primitives never raise: a failing rule flags its
// tuple, and a flagged batch is run again tuple at a time from its first
// tuple, so the error reported is tuple-at-a-time evaluation's — the first in
// scan order, then in evaluation order — and a right operand's error is
// raised only for a tuple whose outcome it decides. On 4 KiB pages every
// tuple lies on one page, so the batch holds them all (or, with batches of 4,
// the page is two batches); on 64-byte pages (five tuples a page) one batch
// spans both pages, and a failing one is run again a page at a time.
#include "vector_test_util.h"

namespace quelkit::test {
namespace {

const char* kSetup = R"(create t (a = i2, b = i2, c = i4)
append to t (a = 1, b = 1, c = 1)
append to t (a = 0, b = 2, c = 2)
append to t (a = 2, b = 0, c = 100)
append to t (a = 0, b = 0, c = 2147483647)
append to t (a = 3, b = 3, c = 2147483647)
append to t (a = 0, b = 5, c = -5)
range of t is t
)";

struct Param {
  VectorVariant mode;
  uint32_t batch;
  uint32_t page_size;  // 64: five tuples of t a page, so a batch spans both pages
};

class BatchErrors : public ::testing::TestWithParam<Param> {
 protected:
  BatchErrors()
      : k_("vector:" + GetParam().mode.mode,
           {.dumps = {}, .batch = GetParam().batch, .page_size = GetParam().page_size,
            .selection = GetParam().mode.selection}) {
    auto r = k_.run(kSetup);
    EXPECT_TRUE(r.ok) << r.err;
  }
  // The error a statement (on line 1 of its own script) reports.
  std::string error(const std::string& q) {
    auto r = k_.run(q);
    EXPECT_FALSE(r.ok) << q << "\n" << r.out;
    size_t e = r.err.find("error: ");
    return e == std::string::npos ? r.err : r.err.substr(0, r.err.find('\n'));
  }
  Kit k_;
};

// and's right operand divides by zero for tuples 2 and 4; its left operand
// holds only for tuple 4 (and 3, which divides by 2).
TEST_P(BatchErrors, RightOperandErrorThatTupleAtATimeRaises) {
  EXPECT_EQ(error("retrieve (t.a) where t.b = 0 and 10 / t.a > 1"),
            "t.quel:1:37: error: division by zero (relation t, tuple 4)");
}

// The right operand would divide by zero for tuples 2, 4 and 6: the left one
// decides them, so nothing is raised.
TEST_P(BatchErrors, RightOperandErrorThatShortCircuitMustNotRaise) {
  auto r = k_.run("retrieve (t.a) where t.a = 0 or 10 / t.a > 1");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "a\n1\n0\n2\n0\n3\n0\n");
  r = k_.run("retrieve (t.a) where t.a != 0 and 10 / t.a > 4");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "a\n1\n2\n");
  r = k_.run("retrieve (t.a) where not (t.a = 0) and 10 / t.a > 1");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "a\n1\n2\n3\n");
}

// The left operand overflows for tuple 4, the right one divides by zero for
// tuple 2: the vectorized run meets tuple 4's error first (the left
// operand's primitive runs over the whole batch first), tuple at a time
// meets tuple 2's, which wins.
TEST_P(BatchErrors, TwoErrorsInOneBatchTheFirstInScanOrderWins) {
  EXPECT_EQ(error("retrieve (t.a) where t.c + 1 < 0 or 10 / t.a > 1"),
            "t.quel:1:40: error: division by zero (relation t, tuple 2)");
  EXPECT_EQ(error("retrieve (t.a) where 10 / t.a > 1 or t.c + 1 < 0"),
            "t.quel:1:25: error: division by zero (relation t, tuple 2)");
}

// Tuple 4 divides by zero and overflows: the first in evaluation order.
TEST_P(BatchErrors, TwoErrorsInOneTupleTheFirstInEvaluationOrderWins) {
  EXPECT_EQ(error("retrieve (t.a) where t.b = 0 and 10 / t.a + t.c * 2 > 0"),
            "t.quel:1:37: error: division by zero (relation t, tuple 4)");
  EXPECT_EQ(error("retrieve (t.a) where t.b = 0 and t.c * 2 + 10 / t.a > 0"),
            "t.quel:1:38: error: integer overflow (relation t, tuple 4)");
}

// Tuple 2 qualifies and its target divides by zero; tuple 3's qualification
// divides by zero too: the batch's qualification flags tuple 3 before any
// target runs, tuple at a time raises tuple 2's target.
TEST_P(BatchErrors, TargetOfAnEarlierTupleBeforeQualificationOfALaterOne) {
  EXPECT_EQ(error("retrieve (x = 10 / t.a) where 5 / (t.b + 1) >= 0 and 6 / t.b >= 0"),
            "t.quel:1:18: error: division by zero (relation t, tuple 2)");
  auto r = k_.run("retrieve (x = 10 / t.a, y = t.c + 1) where t.a != 0 and t.c < 1000");
  EXPECT_TRUE(r.ok) << r.err;
  EXPECT_EQ(r.out, "x,y\n10,2\n5,101\n");
}

// replace and delete run tuple at a time (they want tuple ids): a batch of one.
TEST_P(BatchErrors, TupleAtATimeEntryPoints) {
  EXPECT_EQ(error("replace t (b = 100 / t.a) where t.b > 0"),
            "t.quel:1:20: error: division by zero (relation t, tuple 2)");
  auto r = k_.run("delete t where t.a = 1\nretrieve (t.a, t.c) where t.c + 1 < 0 or 10 / t.a > 1");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.err.find("t.quel:2:45: error: division by zero (relation t, tuple 1)"), std::string::npos) << r.err;
}

std::vector<Param> params() {
  std::vector<Param> v;
  for (const auto& m : vector_modes())
    for (auto [b, page] : {std::pair{1024u, 4096u}, {4u, 4096u}, {1024u, 64u}}) v.push_back({m, b, page});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Modes, BatchErrors, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return i.param.mode.name() + "_batch" + std::to_string(i.param.batch) + "_page" +
                                  std::to_string(i.param.page_size);
                         });

}  // namespace
}  // namespace quelkit::test
